import { describe, expect, it } from '@jest/globals';
import { getRevision } from '@portcullis/revisions';
import { selectInitialScopes, selectStepUpScopes, withOfflineAccess } from './scope-selection.js';

const latest = getRevision('2026-07-28');
const earlier = getRevision('2025-06-18');

// MCP 2026-07-28 "Scope Selection Strategy", "Step-Up Authorization Flow" and "Refresh Tokens".
describe('scope selection', () => {
  it.each([
    ['the challenge scope when present', ['files:read'], ['a', 'b'], ['files:read']],
    ['the challenge scope even when it is outside scopes_supported', ['other'], ['a'], ['other']],
    ['every scopes_supported entry without a challenge scope', undefined, ['a', 'b', 'c'], ['a', 'b', 'c']],
    ['no scope when neither is there', undefined, undefined, []],
    ['no offline_access taken from the resource', undefined, ['a', 'offline_access'], ['a']],
  ])('initially picks %s', (_, challengeScope, scopesSupported, expected) => {
    expect(selectInitialScopes({ challengeScope, scopesSupported })).toEqual(expected);
  });

  it('steps up to the union of the scopes asked before and the challenged ones (2026-07-28)', () => {
    expect(
      selectStepUpScopes({
        previouslyRequested: ['a', 'offline_access'],
        challengeScope: ['b', 'a'],
        revision: latest,
      }),
    ).toEqual(['a', 'b']);
  });

  it('steps up to the challenged scopes alone without the union feature (2025-06-18)', () => {
    expect(
      selectStepUpScopes({ previouslyRequested: ['a'], challengeScope: ['b'], revision: earlier }),
    ).toEqual(['b']);
  });

  it.each([
    [
      'the server lists it and the client wants refresh tokens',
      ['x', 'offline_access'],
      true,
      latest,
      ['a', 'offline_access'],
    ],
    ['the server does not list it', ['x'], true, latest, ['a']],
    ['the server lists no scopes at all', undefined, true, latest, ['a']],
    ['the client wants no refresh tokens', ['offline_access'], false, latest, ['a']],
    ['the revision is 2025-06-18', ['offline_access'], true, earlier, ['a']],
  ])(
    'adds offline_access only when %s',
    (_, authorizationServerScopes, wantsRefreshTokens, revision, expected) => {
      expect(withOfflineAccess(['a'], { authorizationServerScopes, wantsRefreshTokens, revision })).toEqual(
        expected,
      );
    },
  );
});
