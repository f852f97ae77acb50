// Rule: a trust rule's `subject` names workloads by their `sub` (MCP SEP-1933: "claim-based authorization rules").
// - Without `*` it is the exact `sub`, compared as a string (RFC 7519 4.1.2: case-sensitive).
// - `*` stands for any run of characters, the empty run included, `/` and `:` included; every other character is
//   itself. The pattern covers the whole `sub` (anchored at both ends), so `system:serviceaccount:prod:*` never
//   matches `system:serviceaccount:prod-2:agent` or `xsystem:serviceaccount:prod:agent`.

/**
 * A matcher for one trust rule's subject pattern.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7519#section-4.1.2
 */
export function subjectMatcher(pattern: string): (subject: string) => boolean {
  if (!pattern.includes('*')) return (subject) => subject === pattern;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&'))
    .join('.*');
  const regex = new RegExp(`^${source}$`, 'su');
  return (subject) => regex.test(subject);
}
