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
 * Every feature for every revision, read off the spec by hand: the MCP authorization pages of 2025-06-18, 2025-11-25
 * and 2026-07-28 (https://modelcontextprotocol.io/specification/<revision>/basic/authorization and, for 2026-07-28,
 * its sub-pages) and the "Key Changes" of the later two (https://modelcontextprotocol.io/specification/<revision>/
 * changelog). Sections are cited per row as 2025-06-18 | 2025-11-25 | 2026-07-28. A new revision adds one column.
 */
const SPEC_TABLE: Record<RevisionFeature, Record<RevisionId, boolean>> = {
  // absent | "Client ID Metadata Documents" SHOULD (changelog: SEP-991) | "Client ID Metadata Documents" SHOULD
  'client-id-metadata-documents': { '2025-06-18': false, '2025-11-25': true, '2026-07-28': true },
  // "Dynamic Client Registration" SHOULD | MAY, "for backwards compatibility" | MAY, deprecated
  'dynamic-client-registration': { '2025-06-18': true, '2025-11-25': true, '2026-07-28': true },
  'dynamic-client-registration-deprecated': { '2025-06-18': false, '2025-11-25': false, '2026-07-28': true },
  // "Server Metadata Discovery": RFC 8414 only | "Authorization Server Metadata Discovery": RFC 8414 and OpenID
  // Connect Discovery (changelog: PR #797) | the same
  'openid-connect-discovery': { '2025-06-18': false, '2025-11-25': true, '2026-07-28': true },
  // "Authorization Server Location": header mandatory | "Protected Resource Metadata Discovery Requirements":
  // header, else path-inserted then root well-known (changelog: SEP-985) | the same
  'prm-well-known-fallback': { '2025-06-18': false, '2025-11-25': true, '2026-07-28': true },
  // absent | "Scope Selection Strategy", "Runtime Insufficient Scope Errors", "Step-Up Authorization Flow"
  // (changelog: SEP-835) | the same
  'scope-challenge': { '2025-06-18': false, '2025-11-25': true, '2026-07-28': true },
  'step-up-authorization': { '2025-06-18': false, '2025-11-25': true, '2026-07-28': true },
  // absent | step-up determines scopes by the "Scope Selection Strategy" alone | "Step-Up Authorization Flow"
  // step 2: the union of the previous and the challenged scopes
  'scope-union-on-reauthorization': { '2025-06-18': false, '2025-11-25': false, '2026-07-28': true },
  // plain RFC 7591 | plain RFC 7591 | "Application Type and Redirect URI Constraints" (changelog: SEP-837)
  'dcr-application-type': { '2025-06-18': false, '2025-11-25': false, '2026-07-28': true },
  // none | none | "Authorization Server Binding" (changelog: SEP-2352)
  'credential-issuer-binding': { '2025-06-18': false, '2025-11-25': false, '2026-07-28': true },
  // "Token Theft": rotation for public clients only | the same | "Refresh Tokens": the full section
  'refresh-token-guidance': { '2025-06-18': false, '2025-11-25': false, '2026-07-28': true },
  // absent | "MCP Authorization Extensions" | the same
  'authorization-extensions': { '2025-06-18': false, '2025-11-25': true, '2026-07-28': true },
};

/** A section of an MCP authorization page (the 2026-07-28 sub-pages included); group 1 is its revision. */
const MCP_SECTION =
  /^https:\/\/modelcontextprotocol\.io\/specification\/(\d{4}-\d{2}-\d{2})\/basic\/authorization(?:\/(?:authorization-server-discovery|client-registration|security-considerations))?#[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** A numbered section of an RFC. */
const RFC_SECTION = /^https:\/\/www\.rfc-editor\.org\/rfc\/rfc[1-9]\d*#section-\d+(?:\.\d+)*$/;

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

  it.each(Object.keys(SPEC_TABLE) as RevisionFeature[])(
    'cites the public spec sections %s comes from',
    (feature) => {
      const { summary, sources, revisions } = REVISION_FEATURES[feature];
      expect(summary.length).toBeGreaterThan(20);
      expect(summary).not.toMatch(/§|\.md\b|\bspec \d/);
      expect(sources.length).toBeGreaterThan(0);
      expect(new Set(sources).size).toBe(sources.length);
      const cited: string[] = [];
      for (const source of sources) {
        if (RFC_SECTION.test(source)) continue;
        expect(source).toMatch(MCP_SECTION);
        cited.push(MCP_SECTION.exec(source)?.[1] ?? '');
      }
      // An MCP section comes from a revision that has the feature, or from an earlier one (showing what a revision
      // without it does), never from a later one; at least one comes from a revision that has the feature.
      const newest = revisions[revisions.length - 1] ?? '';
      expect(cited.filter((revision) => revision > newest)).toEqual([]);
      expect(
        cited.filter((revision) => (revisions as readonly string[]).includes(revision)).length,
      ).toBeGreaterThan(0);
    },
  );
});

describe('REVISIONS and LATEST_REVISION', () => {
  it('lists the three revisions oldest first', () => {
    expect(REVISIONS).toEqual(['2025-06-18', '2025-11-25', '2026-07-28']);
  });

  it('names the newest revision as the latest', () => {
    expect(LATEST_REVISION).toBe('2026-07-28');
    expect(LATEST_REVISION).toBe(REVISIONS[REVISIONS.length - 1]);
  });

  it('cannot be changed by a caller', () => {
    expect(() => (REVISIONS as unknown as string[]).push('2099-01-01')).toThrow(TypeError);
    expect(() => {
      (REVISION_FEATURES['dcr-application-type'].revisions as RevisionId[]).length = 0;
    }).toThrow(TypeError);
    expect(REVISION_FEATURES['dcr-application-type'].revisions).toEqual(['2026-07-28']);
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
      expect(() => getRevision(id)).toThrow('known revisions: 2025-06-18, 2025-11-25, 2026-07-28');
    },
  );

  it('refuses to answer for a feature name that does not exist', () => {
    const supports = getRevision(LATEST_REVISION).supports as (feature: string) => boolean;
    expect(() => supports('cimd')).toThrow('Unknown revision feature "cimd"');
  });

  // RFC 8414 Section 3.3 (the metadata's issuer) and RFC 9207 Section 2.4 (the response's iss) are rules of the RFCs
  // every revision builds on, applied in every revision: no revision can answer that it lacks them.
  it.each(['metadata-issuer-check', 'iss-validation'])(
    'has no feature %s, applied in every revision',
    (name) => {
      expect(Object.keys(REVISION_FEATURES)).not.toContain(name);
      for (const revision of REVISIONS) {
        const supports = getRevision(revision).supports as (feature: string) => boolean;
        expect(() => supports(name)).toThrow(`Unknown revision feature "${name}"`);
      }
    },
  );
});

describe('isRevisionId', () => {
  it.each(REVISIONS)('accepts %s', (id) => {
    expect(isRevisionId(id)).toBe(true);
  });

  it.each([
    ['2024-11-05'],
    ['2025-03-26'],
    ['2026-07-28\n'],
    ['2026-07-29'],
    [20260728],
    [null],
    [undefined],
    [{}],
  ])('rejects %j', (value) => {
    expect(isRevisionId(value)).toBe(false);
  });
});
