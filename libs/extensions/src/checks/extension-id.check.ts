// Rule: an extension id is `{vendor-prefix}/{extension-name}` (MCP extensions overview).
// - The vendor prefix is a domain name the author controls, reversed (`com.example` for example.com): at least
//   two labels separated by dots, each label 1-63 characters of lowercase letters, digits and inner hyphens
//   (RFC 1035 section 2.3.1 as relaxed by RFC 1123 section 2.1), at most 253 characters in all (RFC 1035
//   section 2.3.4). Its first label, the top-level domain, is not all digits (RFC 3696 section 2), so an IP
//   address is never a prefix.
// - The extension name is lowercase kebab-case: letters and digits, single inner hyphens, 1-64 characters.
// - Uppercase is refused rather than folded: domain names compare case-insensitively, so accepting
//   `Com.Example/x` beside `com.example/x` would let two spellings name one extension.

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const EXTENSION_ID = new RegExp(`^(${LABEL}(?:\\.${LABEL})+)/([a-z0-9]+(?:-[a-z0-9]+)*)$`);
const MAX_PREFIX_LENGTH = 253;
const MAX_NAME_LENGTH = 64;

/**
 * Whether `id` is a well-formed extension identifier, `{vendor-prefix}/{extension-name}` with a reversed domain
 * name as the prefix, e.g. `io.modelcontextprotocol/oauth-client-credentials`.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 * @see https://www.rfc-editor.org/rfc/rfc1123#section-2.1
 */
export function isExtensionId(id: unknown): id is string {
  if (typeof id !== 'string') return false;
  const match = EXTENSION_ID.exec(id);
  if (!match) return false;
  const [, prefix = '', name = ''] = match;
  const topLevelDomain = prefix.slice(0, prefix.indexOf('.'));
  return (
    prefix.length <= MAX_PREFIX_LENGTH && name.length <= MAX_NAME_LENGTH && !/^\d+$/.test(topLevelDomain)
  );
}
