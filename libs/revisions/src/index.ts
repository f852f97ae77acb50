export type { RevisionFeature, RevisionFeatureDescription } from './revision-features.data.js';
export {
  getRevision,
  isRevisionId,
  LATEST_REVISION,
  REVISION_FEATURES,
  REVISIONS,
  type Revision,
  type RevisionFeatureInfo,
  type RevisionId,
} from './revisions.js';
