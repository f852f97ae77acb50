import { describe, expect, it } from '@jest/globals';
import {
  getRevision,
  isRevisionId,
  LATEST_REVISION,
  REVISION_FEATURES,
  REVISIONS,
  type RevisionFeature,
  type RevisionId,
} from './index.js';

/**
 * Every feature for every revision, read off the spec by hand: section 9 of authorization-flow.md and the
 * "Revisions" table of details.md. A new revision adds one column here.
 */
const SPEC_TABLE: Record<RevisionFeature, Record<RevisionId, boolean>> = {
  // §9 "Client ID Metadata Documents": absent | SHOULD be supported
  'client-id-metadata-documents': { '2025-06-18': false, '2026-07-28': true },
  // §9 "Dynamic Client Registration": SHOULD be supported | MAY be supported; deprecated
  'dynamic-client-registration': { '2025-06-18': true, '2026-07-28': true },
  'dynamic-client-registration-deprecated': { '2025-06-18': false, '2026-07-28': true },
  // §9 "Authorization server discovery": RFC 8414 only | RFC 8414 or OpenID Connect Discovery
  'openid-connect-discovery': { '2025-06-18': false, '2026-07-28': true },
  // details.md "AS metadata issuer check": none | MUST equal
  'metadata-issuer-check': { '2025-06-18': false, '2026-07-28': true },
  // §9 "iss validation (RFC 9207)": absent | required client-side
  'iss-validation': { '2025-06-18': false, '2026-07-28': true },
  // details.md "PRM discovery": header mandatory | header, else path-inserted then root well-known
  'prm-well-known-fallback': { '2025-06-18': false, '2026-07-28': true },
  // §9 "Scope selection strategy, step-up flow, insufficient_scope response": absent | present
  'scope-challenge': { '2025-06-18': false, '2026-07-28': true },
  'step-up-authorization': { '2025-06-18': false, '2026-07-28': true },
  'scope-union-on-reauthorization': { '2025-06-18': false, '2026-07-28': true },
  // details.md "DCR request": plain RFC 7591 | MUST send application_type
  'dcr-application-type': { '2025-06-18': false, '2026-07-28': true },
  // details.md "credentials binding": none | keyed by issuer
  'credential-issuer-binding': { '2025-06-18': false, '2026-07-28': true },
  // §9 "Refresh token guidance": rotation for public clients only | full section (5.4)
  'refresh-token-guidance': { '2025-06-18': false, '2026-07-28': true },
  // §9 "Authorization extensions": absent | optional, additive, composable, independently versionable
  'authorization-extensions': { '2025-06-18': false, '2026-07-28': true },
};

const cells = (Object.keys(SPEC_TABLE) as RevisionFeature[]).flatMap((feature) =>
  REVISIONS.map((revision) => [feature, revision, SPEC_TABLE[feature][revision]] as const),
);

describe('the revision table', () => {
  it.each(cells)('%s in %s is %s, as the spec tables say', (feature, revision, expected) => {
    expect(getRevision(revision).supports(feature)).toBe(expected);
  });

  it('pins every documented feature and no other', () => {
    expect(Object.keys(SPEC_TABLE).sort()).toEqual(Object.keys(REVISION_FEATURES).sort());
  });

  it('pins every known revision in every row', () => {
    for (const row of Object.values(SPEC_TABLE))
      expect(Object.keys(row).sort()).toEqual([...REVISIONS].sort());
  });

  it.each(Object.keys(SPEC_TABLE) as RevisionFeature[])(
    'documents which revisions have %s, consistently with supports()',
    (feature) => {
      const expected = REVISIONS.filter((revision) => SPEC_TABLE[feature][revision]);
      expect(REVISION_FEATURES[feature].revisions).toEqual(expected);
    },
  );

  it.each(Object.keys(SPEC_TABLE) as RevisionFeature[])('cites the spec text %s comes from', (feature) => {
    const { summary, sources } = REVISION_FEATURES[feature];
    expect(summary.length).toBeGreaterThan(20);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(source).toMatch(/^(authorization-flow\.md §\d|details\.md ")/);
  });
});

describe('REVISIONS and LATEST_REVISION', () => {
  it('lists both revisions oldest first', () => {
    expect(REVISIONS).toEqual(['2025-06-18', '2026-07-28']);
  });

  it('names the newest revision as the latest', () => {
    expect(LATEST_REVISION).toBe('2026-07-28');
    expect(LATEST_REVISION).toBe(REVISIONS[REVISIONS.length - 1]);
  });

  it('cannot be changed by a caller', () => {
    expect(() => (REVISIONS as unknown as string[]).push('2099-01-01')).toThrow(TypeError);
    expect(() => {
      (REVISION_FEATURES['iss-validation'].revisions as RevisionId[]).length = 0;
    }).toThrow(TypeError);
    expect(REVISION_FEATURES['iss-validation'].revisions).toEqual(['2026-07-28']);
  });
});

describe('getRevision', () => {
  it.each(REVISIONS)('returns revision %s with its id', (id) => {
    expect(getRevision(id).id).toBe(id);
  });

  it('returns the same frozen object on every call', () => {
    const revision = getRevision('2026-07-28');
    expect(getRevision('2026-07-28')).toBe(revision);
    expect(Object.isFrozen(revision)).toBe(true);
  });

  it.each(['2025-03-26', '2026-07-28 ', '2026-7-28', '', 'latest', '__proto__', 'toString'])(
    'throws for the unknown id %j, listing the known revisions',
    (id) => {
      expect(() => getRevision(id)).toThrow(Error);
      expect(() => getRevision(id)).toThrow('known revisions: 2025-06-18, 2026-07-28');
    },
  );

  it('refuses to answer for a feature name that does not exist', () => {
    const supports = getRevision(LATEST_REVISION).supports as (feature: string) => boolean;
    expect(() => supports('cimd')).toThrow('Unknown revision feature "cimd"');
  });
});

describe('isRevisionId', () => {
  it.each(REVISIONS)('accepts %s', (id) => {
    expect(isRevisionId(id)).toBe(true);
  });

  it.each([['2024-11-05'], ['2026-07-28\n'], ['2026-07-29'], [20260728], [null], [undefined], [{}]])(
    'rejects %j',
    (value) => {
      expect(isRevisionId(value)).toBe(false);
    },
  );
});
