// Rules kept: RFC 9745 2 (a `Deprecation` header, an sf-date, says a resource is deprecated) where the MCP revision
// in force deprecates dynamic client registration (asked of the revision as `dynamic-client-registration-deprecated`),
// since RFC 8414 metadata has no standard member for it. The date is the revision's own.
import { getRevision } from '@portcullis/revisions';
import type { BackChannelCheck } from '../back-channel-check.js';

/** Every registration answer says whether the revision deprecates dynamic registration. */
export const deprecationCheck: BackChannelCheck = {
  name: 'deprecation',
  run(context) {
    const { revision } = context.options;
    if (!getRevision(revision).supports('dynamic-client-registration-deprecated')) return;
    // RFC 9745 2.1: an sf-date, the moment the deprecation took effect (the revision's own date).
    context.reply.header('deprecation', `@${Math.floor(Date.parse(`${revision}T00:00:00Z`) / 1000)}`);
  },
};
