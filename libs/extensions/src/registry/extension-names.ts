/**
 * The names in an app's extension list, such as `EXTENSIONS=client-credentials,enterprise-managed-authorization`:
 * comma-separated, trimmed, each once, in the order given; blank or unset is none. `problem` is set, as one line for
 * the variable's configuration error, when a name is not one of `known` (the app's catalogue).
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export function readExtensionNames(
  text: string | undefined,
  known: readonly string[],
): { readonly names: readonly string[]; readonly problem?: string } {
  const names = [...new Set((text ?? '').split(',').map((name) => name.trim()))].filter(Boolean);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length === 0) return { names };
  const list = [...known].sort().join(', ') || 'none';
  return {
    names,
    problem: `names unknown extension${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (known: ${list})`,
  };
}
