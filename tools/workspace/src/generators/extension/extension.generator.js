// @ts-check
import {
  generateFiles,
  getProjects,
  installPackagesTask,
  joinPathFragments,
  logger,
  readJson,
  updateJson,
} from '@nx/devkit';
import { fileURLToPath } from 'node:url';
import { addToCatalogue, CATALOGUE_FILE } from './extension-catalogue.js';
import { normalizeOptions } from './extension-options.js';
import { formatFilesUnder } from './format-files-under.js';

/** The lib whose version every published lib shares (nx.json `release`: one fixed version for them all). */
const CONTRACT_PACKAGE = 'libs/extensions/package.json';

/**
 * `nx g @portcullis/workspace:extension <name> [--id=com.acme/<name>] [--apps=authorization-server,proxy]`:
 * scaffolds `libs/extension-<name>` (`@portcullis/extension-<name>`, tagged `type:framework-free` and
 * `scope:published`): a `defineExtension` object with a spec that composes it in an `ExtensionRegistry`, Jest,
 * README, CHANGELOG, package.json at the published libs' version; maps the package to its sources in
 * tsconfig.base.json (for typecheck and Jest); adds it to each chosen app's catalogue (`AVAILABLE_EXTENSIONS`), so
 * `EXTENSIONS=<name>` composes it there. Then `npm install` links the package for the built apps (`--skipInstall`
 * not to).
 *
 * @param {import('@nx/devkit').Tree} tree
 * @param {import('./extension-options.js').ExtensionGeneratorSchema} schema
 * @returns {Promise<import('@nx/devkit').GeneratorCallback>}
 * @throws Error before anything is written when the name, the id or an app is wrong, or the lib exists.
 */
export default async function extensionGenerator(tree, schema) {
  if (!tree.exists(CONTRACT_PACKAGE)) {
    throw new Error(
      `${CONTRACT_PACKAGE} is missing: run the generator at the root of the Portcullis workspace.`,
    );
  }
  const options = normalizeOptions(schema, readJson(tree, CONTRACT_PACKAGE).version);
  if (tree.exists(options.projectRoot) || getProjects(tree).has(options.projectName)) {
    throw new Error(`${options.projectRoot} (project ${options.projectName}) exists already.`);
  }
  const paths = readJson(tree, 'tsconfig.base.json').compilerOptions?.paths ?? {};
  if (Object.hasOwn(paths, options.importPath)) {
    throw new Error(`tsconfig.base.json maps ${options.importPath} already.`);
  }
  const catalogues = options.apps.map((app) => catalogueOf(tree, app));
  const edited = catalogues.map(({ path }) => addToCatalogue(tree.read(path, 'utf-8') ?? '', path, options));

  generateFiles(tree, fileURLToPath(new URL('./files', import.meta.url)), options.projectRoot, {
    ...options,
    appsSentence: appsSentence(catalogues, options.name),
    tmpl: '',
  });
  updateJson(tree, 'tsconfig.base.json', (json) => {
    const entries = Object.entries({
      ...json.compilerOptions.paths,
      [options.importPath]: [`./${options.projectRoot}/src/index.ts`],
    });
    json.compilerOptions.paths = Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return json;
  });
  catalogues.forEach(({ path }, index) => tree.write(path, edited[index] ?? ''));
  await formatFilesUnder(tree, options.projectRoot);

  return () => {
    if (!options.skipInstall) installPackagesTask(tree, true);
    logger.info(
      [
        `${options.importPath} is in ${options.projectRoot}.`,
        options.skipInstall
          ? `Run npm install before building the apps: it links node_modules/${options.importPath}.`
          : '',
        `Check it: npx nx run-many -t lint typecheck build test -p ${options.projectName}`,
        options.apps.length > 0
          ? `Compose it: EXTENSIONS=${options.name} on ${options.apps.join(', ')}.`
          : `Compose it: add it to an app's ${CATALOGUE_FILE}, or name ${options.importPath} in EXTENSIONS.`,
      ]
        .filter(Boolean)
        .join('\n'),
    );
  };
}

/**
 * The catalogue of the app project `app`.
 *
 * @param {import('@nx/devkit').Tree} tree
 * @param {string} app
 * @returns {{ root: string, path: string }}
 */
function catalogueOf(tree, app) {
  const project = getProjects(tree).get(app);
  const path = project && joinPathFragments(project.root, CATALOGUE_FILE);
  if (project === undefined || project.projectType !== 'application' || !path || !tree.exists(path)) {
    const known = [...getProjects(tree)]
      .filter(([, { root }]) => tree.exists(joinPathFragments(root, CATALOGUE_FILE)))
      .map(([name]) => name);
    throw new Error(
      `--apps: ${JSON.stringify(app)} is not an app with a ${CATALOGUE_FILE} catalogue (apps with one: ${known.join(', ') || 'none'}).`,
    );
  }
  return { root: project.root, path };
}

/**
 * The README's sentence on where the apps of this repository compose it.
 *
 * @param {readonly { root: string }[]} apps
 * @param {string} name
 */
function appsSentence(apps, name) {
  if (apps.length === 0) {
    return `In this repository no app composes it yet: add it to an app's catalogue (\`apps/<app>/${CATALOGUE_FILE}\`), then \`EXTENSIONS=${name}\`.`;
  }
  const list = apps.map(({ root }) => `\`${root}\``);
  const joined = list.length === 1 ? list[0] : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;
  return `In this repository the apps compose it by configuration: \`EXTENSIONS=${name}\` on ${joined}.`;
}
