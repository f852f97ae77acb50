/** The requested scopes that were left ticked, in the order requested: a form cannot add a scope. */
export function approvedScopes(requested: readonly string[], ticked: readonly string[]): string[] {
  const set = new Set(ticked);
  return requested.filter((scope) => set.has(scope));
}
