import { describe, expect, it } from '@jest/globals';
import { createRevisionCatalogue } from './revision-catalogue.js';
import type { RevisionFeature } from './revision-features.data.js';
import { REVISION_DEFINITIONS, type RevisionDefinition } from './revisions.data.js';

// A hypothetical middle revision, to show that one more data entry is all a new revision needs. Its feature list
// is illustrative, not a claim about the real 2025-11-25 revision.
const MIDDLE: RevisionDefinition = {
  id: '2025-11-25',
  specification: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization',
  features: ['client-id-metadata-documents', 'dynamic-client-registration', 'openid-connect-discovery'],
};

describe('createRevisionCatalogue', () => {
  it('takes a third revision from one data entry', () => {
    const [earlier, later] = REVISION_DEFINITIONS;
    const catalogue = createRevisionCatalogue([earlier, MIDDLE, later]);

    expect(catalogue.ids).toEqual(['2025-06-18', '2025-11-25', '2026-07-28']);
    expect(catalogue.latest).toBe('2026-07-28');
    expect(catalogue.isRevisionId('2025-11-25')).toBe(true);
    expect(catalogue.getRevision('2025-11-25').supports('client-id-metadata-documents')).toBe(true);
    expect(catalogue.getRevision('2025-11-25').supports('iss-validation')).toBe(false);
    expect(catalogue.features['client-id-metadata-documents'].revisions).toEqual([
      '2025-11-25',
      '2026-07-28',
    ]);
    expect(catalogue.features['iss-validation'].revisions).toEqual(['2026-07-28']);
    expect(catalogue.features['dynamic-client-registration'].revisions).toEqual([
      '2025-06-18',
      '2025-11-25',
      '2026-07-28',
    ]);
  });

  it('leaves the neighbouring revisions unchanged when one is inserted between them', () => {
    const [earlier, later] = REVISION_DEFINITIONS;
    const two = createRevisionCatalogue([earlier, later]);
    const three = createRevisionCatalogue([earlier, MIDDLE, later]);
    const features = Object.keys(two.features) as RevisionFeature[];
    for (const id of ['2025-06-18', '2026-07-28']) {
      for (const feature of features) {
        expect(three.getRevision(id).supports(feature)).toBe(two.getRevision(id).supports(feature));
      }
    }
  });

  it('refuses an empty list of revisions', () => {
    expect(() => createRevisionCatalogue([])).toThrow('At least one revision');
  });

  it('refuses a revision id that is not a date', () => {
    expect(() => createRevisionCatalogue([{ ...MIDDLE, id: 'draft' }])).toThrow('not a YYYY-MM-DD date');
    expect(() => createRevisionCatalogue([{ ...MIDDLE, id: '2025-13-01' }])).toThrow('not a YYYY-MM-DD date');
  });

  it('refuses a revision defined twice', () => {
    expect(() => createRevisionCatalogue([MIDDLE, MIDDLE])).toThrow('defined twice');
  });

  it('refuses revisions out of date order, since the latest is the last one', () => {
    const [earlier, later] = REVISION_DEFINITIONS;
    expect(() => createRevisionCatalogue([later, earlier])).toThrow('oldest first');
  });

  it('refuses an unknown or repeated feature in a revision', () => {
    const unknown = { ...MIDDLE, features: ['cimd'] } as unknown as RevisionDefinition;
    expect(() => createRevisionCatalogue([unknown])).toThrow('unknown feature "cimd"');
    const repeated: RevisionDefinition = { ...MIDDLE, features: ['iss-validation', 'iss-validation'] };
    expect(() => createRevisionCatalogue([repeated])).toThrow('twice');
  });
});
