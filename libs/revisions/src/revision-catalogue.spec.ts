import { describe, expect, it } from '@jest/globals';
import { createRevisionCatalogue } from './revision-catalogue.js';
import type { RevisionFeature } from './revision-features.data.js';
import { REVISION_DEFINITIONS, type RevisionDefinition } from './revisions.data.js';

// A hypothetical later revision, to show that one more data entry is all a new revision needs. Its date and feature
// list are made up: they are no claim about any real revision.
const FUTURE: RevisionDefinition = {
  id: '2027-03-01',
  specification: 'https://modelcontextprotocol.io/specification/2027-03-01/basic/authorization',
  features: ['client-id-metadata-documents', 'openid-connect-discovery'],
};

const byId = (id: string): RevisionDefinition => {
  const definition = REVISION_DEFINITIONS.find((entry) => entry.id === id);
  if (definition === undefined) throw new Error(`no revision ${id}`);
  return definition;
};

describe('createRevisionCatalogue', () => {
  it('takes a further revision from one data entry, which becomes the latest', () => {
    const catalogue = createRevisionCatalogue([...REVISION_DEFINITIONS, FUTURE]);

    expect(catalogue.ids).toEqual(['2025-06-18', '2025-11-25', '2026-07-28', '2027-03-01']);
    expect(catalogue.latest).toBe('2027-03-01');
    expect(catalogue.isRevisionId('2027-03-01')).toBe(true);
    expect(catalogue.getRevision('2027-03-01').supports('client-id-metadata-documents')).toBe(true);
    // A feature the entry does not list is one it does not have, whatever the revisions before it had.
    expect(catalogue.getRevision('2027-03-01').supports('dynamic-client-registration')).toBe(false);
    expect(catalogue.features['dynamic-client-registration'].revisions).toEqual([
      '2025-06-18',
      '2025-11-25',
      '2026-07-28',
    ]);
    expect(catalogue.features['openid-connect-discovery'].revisions).toEqual([
      '2025-11-25',
      '2026-07-28',
      '2027-03-01',
    ]);
  });

  it('left the neighbouring revisions unchanged when 2025-11-25 was inserted between them', () => {
    const earlier = byId('2025-06-18');
    const later = byId('2026-07-28');
    const two = createRevisionCatalogue([earlier, later]);
    const three = createRevisionCatalogue(REVISION_DEFINITIONS);
    expect(three.ids).toEqual(['2025-06-18', '2025-11-25', '2026-07-28']);
    expect(two.latest).toBe(three.latest);
    const features = Object.keys(two.features) as RevisionFeature[];
    for (const id of ['2025-06-18', '2026-07-28']) {
      for (const feature of features) {
        expect(three.getRevision(id).supports(feature)).toBe(two.getRevision(id).supports(feature));
      }
    }
    // The inserted revision shows only in the features it lists.
    expect(three.features['client-id-metadata-documents'].revisions).toEqual(['2025-11-25', '2026-07-28']);
    expect(three.features['dcr-application-type'].revisions).toEqual(['2026-07-28']);
  });

  it('refuses an empty list of revisions', () => {
    expect(() => createRevisionCatalogue([])).toThrow('At least one revision');
  });

  it('refuses a revision id that is not a date', () => {
    expect(() => createRevisionCatalogue([{ ...FUTURE, id: 'draft' }])).toThrow('not a YYYY-MM-DD date');
    expect(() => createRevisionCatalogue([{ ...FUTURE, id: '2025-13-01' }])).toThrow('not a YYYY-MM-DD date');
  });

  it('refuses a revision defined twice', () => {
    expect(() => createRevisionCatalogue([FUTURE, FUTURE])).toThrow('defined twice');
  });

  it('refuses revisions out of date order, since the latest is the last one', () => {
    expect(() => createRevisionCatalogue([FUTURE, byId('2026-07-28')])).toThrow('oldest first');
  });

  it('refuses an unknown or repeated feature in a revision', () => {
    const unknown = { ...FUTURE, features: ['cimd'] } as unknown as RevisionDefinition;
    expect(() => createRevisionCatalogue([unknown])).toThrow('unknown feature "cimd"');
    const repeated: RevisionDefinition = { ...FUTURE, features: ['scope-challenge', 'scope-challenge'] };
    expect(() => createRevisionCatalogue([repeated])).toThrow('twice');
  });
});
