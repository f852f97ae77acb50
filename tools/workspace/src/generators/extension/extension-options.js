// @ts-check
import { names } from '@nx/devkit';

/**
 * What `nx g @portcullis/workspace:extension` is given (see schema.json).
 *
 * @typedef {object} ExtensionGeneratorSchema
 * @property {string} name The catalogue name, lowercase kebab-case.
 * @property {string} [id] The extension id; default `com.example/<name>`.
 * @property {string} [apps] Comma-separated app projects whose catalogue gets the extension.
 * @property {boolean} [skipInstall] Do not run `npm install` afterwards.
 */

/**
 * Every name the generated files and edits use, derived once from the schema.
 *
 * @typedef {object} ExtensionOptions
 * @property {string} name The name `EXTENSIONS` uses, e.g. `tenant-claims`.
 * @property {string} projectName `extension-<name>`.
 * @property {string} projectRoot `libs/extension-<name>`.
 * @property {string} importPath `@portcullis/extension-<name>`.
 * @property {string} extensionId `{vendor-prefix}/{extension-name}`.
 * @property {string} constName The exported extension, e.g. `tenantClaimsExtension`.
 * @property {string} idConst The exported id, e.g. `TENANT_CLAIMS_EXTENSION_ID`.
 * @property {string} metadataMember Its authorization server metadata member, e.g. `tenant_claims_supported`.
 * @property {string} version The version every published lib has.
 * @property {readonly string[]} apps The app projects whose catalogue gets a line.
 * @property {boolean} skipInstall
 */

/** The catalogue name: lowercase kebab-case, starting with a letter so that it also makes an identifier. */
const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
/** The extension-name part of an id is at most 64 characters (libs/extensions/src/checks/extension-id.check.ts). */
const MAX_NAME_LENGTH = 64;
/**
 * The shape of an extension id, `{reversed domain}/{kebab-case name}`; the registry's `isExtensionId` checks the
 * rest (label lengths, an all-digit top-level domain) when the generated test composes the extension.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
const EXTENSION_ID =
  /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+\/[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const DEFAULT_APPS = 'authorization-server';

/**
 * Checks the schema and derives every name from it.
 *
 * @param {ExtensionGeneratorSchema} schema
 * @param {string} version The version of the published libs (`libs/extensions/package.json`).
 * @returns {ExtensionOptions}
 * @throws Error naming the option that is wrong.
 */
export function normalizeOptions(schema, version) {
  const name = String(schema.name ?? '').trim();
  if (!NAME.test(name) || name.length > MAX_NAME_LENGTH) {
    throw new Error(
      `The extension name ${JSON.stringify(name)} is not lowercase kebab-case of at most ${MAX_NAME_LENGTH} characters starting with a letter (e.g. tenant-claims).`,
    );
  }
  const extensionId = schema.id ?? `com.example/${name}`;
  if (!EXTENSION_ID.test(extensionId)) {
    throw new Error(
      `--id ${JSON.stringify(extensionId)} is not {vendor-prefix}/{extension-name}: a reversed domain name you control, a slash and a lowercase kebab-case name (e.g. com.acme/${name}).`,
    );
  }
  const apps = String(schema.apps ?? DEFAULT_APPS)
    .split(',')
    .map((app) => app.trim())
    .filter(Boolean);
  const { propertyName, constantName } = names(name);
  return {
    name,
    projectName: `extension-${name}`,
    projectRoot: `libs/extension-${name}`,
    importPath: `@portcullis/extension-${name}`,
    extensionId,
    constName: `${propertyName}Extension`,
    idConst: `${constantName}_EXTENSION_ID`,
    metadataMember: `${constantName.toLowerCase()}_supported`,
    version,
    apps: [...new Set(apps)],
    skipInstall: schema.skipInstall === true,
  };
}
