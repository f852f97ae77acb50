// Rules kept: RFC 8707 2 (`resource` is an absolute URI without a fragment, naming a resource this server issues
// tokens for; otherwise `invalid_target`), MCP "Resource Parameter Implementation" and "Canonical Server URI".
// Without `resource` the single registered resource is meant; with several registered the request must name one.
import type { AuthorizationCheck } from '../authorization-check.js';

/** The request is for one resource this server knows. */
export const resourceCheck: AuthorizationCheck = {
  name: 'resource',
  beforeRedirect: false,
  run(context) {
    context.resource = context.resources.resolve(context.params.resources);
  },
};
