/**
 * Rules kept here: RFC 9728 5.1 and RFC 6750 3: the 401 carries a `WWW-Authenticate` challenge of the `Bearer`
 * scheme (or `DPoP`, RFC 9449 7.1), whose parameters the next checks read.
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { authChallenge } from '../doctor-context.js';
import { REFERENCES } from '../references.js';

/**
 * The challenge's scheme.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
 */
export const challengeSchemeCheck: ServerCheck = {
  id: 'challenge.scheme',
  scope: 'server',
  reference: REFERENCES.challenge,
  run(context) {
    const response = context.unauthenticated;
    if (response === undefined) return undefined;
    context.challenge = authChallenge(response);
    if (context.challenge === undefined) {
      return finding(
        'fail',
        `No Bearer challenge in WWW-Authenticate (${response.headers.get('www-authenticate') ?? 'absent'}).`,
      );
    }
    return finding(
      'pass',
      `WWW-Authenticate carries a ${context.challenge.scheme === 'dpop' ? 'DPoP' : 'Bearer'} challenge.`,
    );
  },
};
