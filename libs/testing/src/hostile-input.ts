import assert from 'node:assert/strict';
import { hasUnsafeCharacter } from '@portcullis/protocol';
import fc from 'fast-check';

/** One parameter of one endpoint a hostile-input property sends text in, and how the text travels. */
export interface HostileInputTarget {
  /** `form` for a query string or a form body (a lone surrogate arrives as U+FFFD), `json` for a JSON body. */
  readonly encoding: 'form' | 'json';
  send(value: string): Promise<Response>;
}

/** Any UTF-16 text (lone surrogates included), and plain text with a control character or a lone surrogate inside. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom('\u0000', '\u0007', '\u007f', '\ud800', '\udfff'))
    .map(([text, bad]) => `${text}${bad}${text}`),
);

/**
 * The property every endpoint keeps: whatever text a parameter holds, the answer is never a 5xx, and text that
 * still holds a control character or a lone surrogate when it arrives is refused with 400 and writes nothing
 * (`written` reads everything a request could write).
 */
export async function expectHostileInputRefused(
  targets: Readonly<Record<string, HostileInputTarget>>,
  written: () => Promise<unknown>,
  numRuns: number,
): Promise<void> {
  await fc.assert(
    // The entry, not the target alone, so a counterexample names the endpoint and parameter.
    fc.asyncProperty(fc.constantFrom(...Object.entries(targets)), hostileText, async ([, target], text) => {
      const before = await written();
      const response = await target.send(text);
      await response.arrayBuffer();
      assert.ok(response.status < 500, `answered ${response.status}`);
      // Form and query encoding turn a lone surrogate into U+FFFD, which is plain text; JSON keeps it.
      const arrives = target.encoding === 'json' ? text : (new URLSearchParams({ v: text }).get('v') ?? '');
      if (hasUnsafeCharacter(arrives)) {
        assert.equal(response.status, 400);
        assertSameRows(await written(), before);
      }
    }),
    { numRuns },
  );
}

/**
 * Asserts a refusal in the OAuth JSON error format (RFC 6749 5.2): `status`, `invalid_request` with `description`,
 * `Cache-Control: no-store`, a request id, no redirect, and nothing written (`written` before and after).
 */
export async function expectInvalidRequest(
  send: () => Promise<Response>,
  status: number,
  description: string,
  written: () => Promise<unknown>,
): Promise<void> {
  const before = await written();
  const response = await send();
  assert.equal(response.status, status);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.equal(response.headers.get('location'), null);
  assert.ok(response.headers.get('x-request-id'), 'x-request-id');
  assertSameRows(await response.json(), { error: 'invalid_request', error_description: description });
  assertSameRows(await written(), before);
}

/**
 * Deep equality of plain JSON values, compared as JSON text: Jest runs tests in another realm, where
 * `deepStrictEqual` sees other prototypes. (Plain `node:assert`, so the lib stays importable outside Jest: the demo
 * uses its user-agent.)
 */
function assertSameRows(actual: unknown, expected: unknown): void {
  assert.equal(JSON.stringify(actual), JSON.stringify(expected));
}
