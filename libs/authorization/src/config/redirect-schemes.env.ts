// Rules kept: RFC 8252 7.1 (a native app may receive its authorization response at a private-use URI scheme);
// MCP "Communication Security" (redirect URIs are localhost or https), so no such scheme is accepted unless the
// operator names it; RFC 3986 3.1 (scheme syntax, case-insensitive: kept lowercase); a scheme the browser handles
// itself (`javascript`, `data`, `vbscript`, `file`, `http`, `https`, ...) is never private-use and stops the boot
// even when configured. RFC 8252 8.4's SHOULD (refuse a scheme without a period) is left to the operator who names
// one: the boot log warns about it (see `PrivateUseSchemesNotice`).
import { privateUseSchemeProblem } from '@portcullis/metadata';
import { z } from 'zod';

/**
 * `ALLOWED_REDIRECT_SCHEMES`: comma-separated private-use URI schemes a client may register redirect URIs with
 * (`cursor`, `com.example.app`), lowercase, each once; empty (the default) allows none.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.1
 */
export const AllowedRedirectSchemesEnvSchema = z
  .string()
  .default('')
  .transform((text, context) => {
    const schemes = [
      ...new Set(
        text
          .split(',')
          .map((scheme) => scheme.trim().toLowerCase())
          .filter(Boolean),
      ),
    ];
    for (const scheme of schemes) {
      const problem = privateUseSchemeProblem(scheme);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    }
    return schemes;
  });
