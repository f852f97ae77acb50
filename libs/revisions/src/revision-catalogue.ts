import {
  FEATURE_DESCRIPTIONS,
  type RevisionFeature,
  type RevisionFeatureDescription,
} from './revision-features.data.js';
import type { RevisionDefinition } from './revisions.data.js';

/** A revision as feature code sees it: its id and the question "does it do X". */
export interface CatalogueRevision<Id extends string> {
  readonly id: Id;
  supports(feature: RevisionFeature): boolean;
}

/** A feature's description plus the revisions that have it, oldest first. */
export type CatalogueFeature<Id extends string> = RevisionFeatureDescription & {
  readonly revisions: readonly Id[];
};

/** Everything derived from a list of revision definitions. */
export interface RevisionCatalogue<Id extends string> {
  readonly ids: readonly Id[];
  readonly latest: Id;
  readonly features: { readonly [F in RevisionFeature]: CatalogueFeature<Id> };
  isRevisionId(value: unknown): value is Id;
  getRevision(id: string): CatalogueRevision<Id>;
}

const REVISION_ID = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/**
 * Builds the revision lookups from data. Kept apart from the published constants so a test can prove that a
 * further revision is a data entry and nothing else. Invalid data (no revision, a malformed or repeated id,
 * revisions out of date order, an unknown or repeated feature) throws when the module loads, not when a feature
 * is first asked about.
 */
export function createRevisionCatalogue<const D extends readonly RevisionDefinition[]>(
  definitions: D,
  descriptions: { readonly [F in RevisionFeature]: RevisionFeatureDescription } = FEATURE_DESCRIPTIONS,
): RevisionCatalogue<D[number]['id']> {
  type Id = D[number]['id'];
  const knownFeatures = new Set(Object.keys(descriptions));
  const isFeature = (value: unknown): value is RevisionFeature =>
    typeof value === 'string' && knownFeatures.has(value);

  if (definitions.length === 0) throw new Error('At least one revision must be defined');
  const ids: Id[] = [];
  const revisions = new Map<string, CatalogueRevision<Id>>();
  for (const definition of definitions) {
    const id: Id = definition.id;
    if (!REVISION_ID.test(id)) throw new Error(`Revision id "${id}" is not a YYYY-MM-DD date`);
    if (revisions.has(id)) throw new Error(`Revision "${id}" is defined twice`);
    const previous = ids.at(-1);
    // Ids are ISO dates, so string order is date order; "latest" relies on the list being sorted.
    if (previous !== undefined && previous > id) {
      throw new Error(`Revisions must be listed oldest first: "${id}" comes after "${previous}"`);
    }
    const features = new Set<RevisionFeature>();
    for (const feature of definition.features) {
      if (!isFeature(feature)) throw new Error(`Revision "${id}" lists unknown feature "${feature}"`);
      if (features.has(feature)) throw new Error(`Revision "${id}" lists feature "${feature}" twice`);
      features.add(feature);
    }
    ids.push(id);
    revisions.set(
      id,
      Object.freeze({
        id,
        supports(feature: RevisionFeature): boolean {
          // A typo from untyped code would otherwise read as "not supported" and silently change behaviour.
          if (!isFeature(feature)) {
            throw new Error(
              `Unknown revision feature "${String(feature)}"; known features: ${[...knownFeatures].join(', ')}`,
            );
          }
          return features.has(feature);
        },
      }),
    );
  }

  const featureEntries = Object.entries(descriptions).map(([feature, description]) => {
    const having = ids.filter((id) => revisions.get(id)?.supports(feature as RevisionFeature));
    const entry: CatalogueFeature<Id> = Object.freeze({
      summary: description.summary,
      sources: Object.freeze([...description.sources]),
      revisions: Object.freeze(having),
    });
    return [feature, entry] as const;
  });

  const isRevisionId = (value: unknown): value is Id => typeof value === 'string' && revisions.has(value);
  const latest = ids[ids.length - 1] as Id;

  return Object.freeze({
    ids: Object.freeze(ids),
    latest,
    features: Object.freeze(Object.fromEntries(featureEntries)) as RevisionCatalogue<Id>['features'],
    isRevisionId,
    getRevision(id: string): CatalogueRevision<Id> {
      const revision = isRevisionId(id) ? revisions.get(id) : undefined;
      if (revision === undefined) {
        throw new Error(`Unknown MCP revision "${String(id)}"; known revisions: ${ids.join(', ')}`);
      }
      return revision;
    },
  });
}
