// The Express adapter (`@portcullis/resource-server/express`): middleware over `createResourceServer` of
// `@portcullis/resource-server`. Express is a peer dependency.
export {
  metadataRouter,
  requireBearer,
  type AuthenticatedRequest,
  type RequireBearerOptions,
} from './express.middleware.js';
