/*
 * Rules kept here, for every `client_name` an authorization server shows a user (RFC 7591 2 registration
 * metadata, Client ID Metadata Documents), so that a name reads as what it is:
 * - no bidirectional formatting characters: the embeddings and overrides U+202A-U+202E, the isolates
 *   U+2066-U+2069, the marks U+200E, U+200F and U+061C (Unicode UAX #9 2.1-2.6). They reorder the text around
 *   them, so `Notes\u202Eexe.ppa` reads as `Notesapp.exe` (Unicode TR #36, "Bidirectional Text Spoofing");
 * - no zero-width characters: U+200B-U+200D, U+2060 and U+FEFF, which make two names that look the same differ,
 *   or hide a word from the reader (Unicode TR #36, "Visual Security Issues").
 * RFC 7591 5 warns that a client can register a `client_name` that impersonates another client; the CIMD draft
 * 6.4 asks the same care of metadata documents. Other characters, whatever their script, are left alone.
 */
import { z } from 'zod';

/**
 * The bidirectional controls and zero-width characters no `client_name` may contain, as code points: U+061C,
 * U+200B-U+200F, U+202A-U+202E, U+2060, U+2066-U+2069, U+FEFF.
 *
 * @see https://www.unicode.org/reports/tr9/
 * @see https://www.unicode.org/reports/tr36/
 */
export const CLIENT_NAME_INVISIBLE_CHARACTERS: readonly number[] = Object.freeze([
  0x061c, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2066,
  0x2067, 0x2068, 0x2069, 0xfeff,
]);

const spelt = (codePoint: number): string => codePoint.toString(16).toUpperCase().padStart(4, '0');

// All of them are in the Basic Multilingual Plane: one UTF-16 code unit each.
const INVISIBLE_CHARACTER = new RegExp(
  `[${CLIENT_NAME_INVISIBLE_CHARACTERS.map((codePoint) => `\\u${spelt(codePoint)}`).join('')}]`,
);

/**
 * The first bidirectional control or zero-width character in `name`, spelt `U+202E`, or `undefined` when there
 * is none.
 *
 * @example
 * findInvisibleCharacter('Notes\u202Eexe.ppa'); // 'U+202E'
 * @see https://www.unicode.org/reports/tr36/
 */
export function findInvisibleCharacter(name: string): string | undefined {
  const found = INVISIBLE_CHARACTER.exec(name)?.[0];
  if (found === undefined) return undefined;
  return `U+${spelt(found.charCodeAt(0))}`;
}

/**
 * Why a name is refused, for an `error_description` or a log line: names the character found.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-5
 */
export function describeInvisibleCharacter(codePoint: string): string {
  return `must not contain bidirectional control or zero-width characters (found ${codePoint})`;
}

/**
 * A `client_name`: any string without bidirectional controls or zero-width characters.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-5
 */
export const ClientNameSchema = z.string().superRefine((name, ctx) => {
  const codePoint = findInvisibleCharacter(name);
  if (codePoint !== undefined)
    ctx.addIssue({ code: 'custom', message: describeInvisibleCharacter(codePoint) });
});
