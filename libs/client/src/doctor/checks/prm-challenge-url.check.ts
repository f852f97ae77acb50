/**
 * Rules kept here: RFC 9728 5.1 and 3.3: a `resource_metadata` URL other than the well-known ones must serve a
 * document naming the server, since clients that got the challenge fetch only that URL.
 */
import type { ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';
import {
  challengeCandidate,
  probeResourceMetadata,
  wellKnownCandidates,
} from '../resource-metadata-probe.js';

/**
 * The document at the challenge's URL, when it is not a well-known one.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-5.1
 */
export const prmChallengeUrlCheck: ServerCheck = {
  id: 'prm.challenge-url',
  scope: 'server',
  reference: REFERENCES.prmWellKnown,
  run(context) {
    const candidate = challengeCandidate(context);
    const { pathAware, root } = wellKnownCandidates(context);
    if (candidate === undefined || candidate.url === pathAware?.url || candidate.url === root.url)
      return undefined;
    return probeResourceMetadata(context, 'challenge-url', candidate, 'fail');
  },
};
