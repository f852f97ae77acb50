// Rule: an app's `EXTENSIONS` list names built-in extensions (the app's catalogue) and modules, which the host
// resolves and imports (a package name such as `@acme/portcullis-tenant` or `acme-tenant`, with an optional
// subpath; a `./relative` or `/absolute` path; a `file:` URL). A name is a built-in one when the catalogue has it,
// otherwise a module when it is spelt as one; anything else (`Client-Credentials`, a name with a space) is refused
// at once rather than looked for on disk.

/**
 * A package name (npm's rules: lowercase, URL-safe, optionally scoped) with an optional subpath whose segments are
 * never `.` or `..` nor percent-encoded, so a package name always resolves inside that package (Node's resolver
 * refuses such subpaths too: ERR_INVALID_MODULE_SPECIFIER).
 */
const PACKAGE_SPECIFIER =
  /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*(?:\/(?!\.{1,2}(?:\/|$))[^\s,\\/%]+)*$/;
/** A path relative to the extensions directory, an absolute path, or a file URL. */
const PATH_SPECIFIER = /^(?:\.{1,2}\/|\/|file:\/\/)[^\s,]+$/;

/**
 * Whether `name` is spelt as a module specifier a host can resolve: a package name with an optional subpath
 * (`@acme/portcullis-tenant`, `acme-tenant/extension`), a relative or absolute path, or a `file:` URL.
 *
 * @see https://docs.npmjs.com/cli/configuring-npm/package-json#name
 */
export function isExtensionModuleSpecifier(name: string): boolean {
  return name.length <= 1024 && (PACKAGE_SPECIFIER.test(name) || PATH_SPECIFIER.test(name));
}

/**
 * The names in an app's extension list, such as `EXTENSIONS=client-credentials,@acme/portcullis-tenant`:
 * comma-separated, trimmed, each once, in the order given; blank or unset is none. `modules` are the names that are
 * not one of `known` (the app's catalogue) and are spelt as module specifiers, for the host to load. `problem` is set,
 * as one line for the variable's configuration error, when a name is neither.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export function readExtensionNames(
  text: string | undefined,
  known: readonly string[],
): { readonly names: readonly string[]; readonly modules: readonly string[]; readonly problem?: string } {
  const names = [...new Set((text ?? '').split(',').map((name) => name.trim()))].filter(Boolean);
  const others = names.filter((name) => !known.includes(name));
  const modules = others.filter(isExtensionModuleSpecifier);
  const unusable = others.filter((name) => !isExtensionModuleSpecifier(name));
  if (unusable.length === 0) return { names, modules };
  const list = [...known].sort().join(', ') || 'none';
  const many = unusable.length > 1;
  return {
    names,
    modules,
    problem: `names ${unusable.map((name) => JSON.stringify(name)).join(', ')}, which ${many ? 'are' : 'is'} neither ${many ? 'built-in extensions' : 'a built-in extension'} (known: ${list}) nor ${many ? 'module specifiers' : 'a module specifier'} (a package name, a ./relative or /absolute path)`,
  };
}
