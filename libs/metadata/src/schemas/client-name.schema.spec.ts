import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { validateClientIdMetadataDocument } from '../client-id-metadata-document/validate-client-id-metadata-document.js';
import { ClientIdMetadataDocumentSchema } from './client-id-metadata-document.schema.js';
import { ClientMetadataSchema } from './client-metadata.schema.js';
import {
  CLIENT_NAME_INVISIBLE_CHARACTERS,
  ClientNameSchema,
  findInvisibleCharacter,
} from './client-name.schema.js';

const URL = 'https://app.example.com/oauth/client-metadata.json';
const CIMD = (clientName: string) => ({
  client_id: URL,
  client_name: clientName,
  redirect_uris: ['http://127.0.0.1:3000/callback'],
});

const REFUSED = [
  ...[0x202a, 0x202b, 0x202c, 0x202d, 0x202e], // embeddings and overrides
  ...[0x2066, 0x2067, 0x2068, 0x2069], // isolates
  ...[0x200e, 0x200f, 0x061c], // implicit directional marks
  ...[0x200b, 0x200c, 0x200d, 0x2060, 0xfeff], // zero-width characters
];
// Their neighbours in the code charts, and right-to-left letters: none of them is refused.
const NEIGHBOURS = [0x061b, 0x061d, 0x200a, 0x2010, 0x2028, 0x2029, 0x202f, 0x2065, 0x206a, 0xfefe, 0xff00];
const RIGHT_TO_LEFT_LETTERS = [0x05d0, 0x05e2, 0x0627, 0x0644, 0x0645];

const refused = fc.constantFrom(...REFUSED).map((codePoint) => String.fromCodePoint(codePoint));
const anyText = fc.string({ unit: 'binary', maxLength: 20 });
/** Any string with at least one refused character somewhere in it. */
const withInvisible = fc
  .tuple(anyText, refused, anyText)
  .map(([before, character, after]) => `${before}${character}${after}`);
/** Any string without refused characters, leaning towards their neighbours and right-to-left letters. */
const withoutInvisible = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc
        .constantFrom(...NEIGHBOURS, ...RIGHT_TO_LEFT_LETTERS)
        .map((codePoint) => String.fromCodePoint(codePoint)),
    ),
    { maxLength: 20 },
  )
  .map((characters) => characters.join(''))
  .filter((name) => ![...name].some((character) => REFUSED.includes(character.codePointAt(0)!)));

describe('client_name', () => {
  it('refuses exactly the bidirectional controls and zero-width characters listed', () => {
    expect([...CLIENT_NAME_INVISIBLE_CHARACTERS].sort()).toEqual([...REFUSED].sort());
  });

  it.each(
    REFUSED.map((codePoint) => [codePoint.toString(16).toUpperCase().padStart(4, '0'), codePoint] as const),
  )('refuses U+%s and names it in the message', (spelt, codePoint) => {
    const result = ClientNameSchema.safeParse(`Notes${String.fromCodePoint(codePoint)}CLI`);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(
      `must not contain bidirectional control or zero-width characters (found U+${spelt})`,
    );
  });

  it('names the first refused character of a right-to-left override spoof', () => {
    expect(findInvisibleCharacter('Notes\u202Eexe.ppa\u200B')).toBe('U+202E');
  });

  it.each(['Notes CLI', 'ملاحظات', 'הערות', 'Notes (ملاحظات)', 'Café 📝', 'Notes\u2028CLI'])(
    'accepts %s',
    (name) => {
      expect(ClientNameSchema.parse(name)).toBe(name);
    },
  );

  it('refuses any string with one of them, in registration metadata and in a client ID metadata document', () => {
    fc.assert(
      fc.property(withInvisible, (name) => {
        expect(ClientNameSchema.safeParse(name).success).toBe(false);
        const registration = ClientMetadataSchema.safeParse({ client_name: name });
        expect(registration.error?.issues.map((issue) => issue.path)).toEqual([['client_name']]);
        const validation = validateClientIdMetadataDocument(CIMD(`Notes ${name}`), URL);
        expect(validation.ok ? [] : validation.errors.map((error) => error.rule)).toEqual([
          'client_name_invisible_characters',
        ]);
        expect(ClientIdMetadataDocumentSchema.safeParse(CIMD(`Notes ${name}`)).success).toBe(false);
      }),
    );
  });

  it('leaves every name without them unaffected, in registration metadata and in a client ID metadata document', () => {
    fc.assert(
      fc.property(withoutInvisible, (name) => {
        expect(findInvisibleCharacter(name)).toBeUndefined();
        expect(ClientNameSchema.parse(name)).toBe(name);
        expect(ClientMetadataSchema.parse({ client_name: name })).toEqual({ client_name: name });
        const document = CIMD(`Notes ${name}`);
        expect(validateClientIdMetadataDocument(document, URL)).toEqual({ ok: true, document });
      }),
    );
  });
});
