export {
  CLIENT_CREDENTIALS_EXTENSION_ID,
  CLIENT_CREDENTIALS_STRATEGY,
  clientCredentialsExtension,
} from './client-credentials.extension.js';
export {
  CLIENT_CREDENTIALS_GRANT,
  clientCredentialsGrant,
  clientCredentialsScope,
  registeredScope,
} from './client-credentials.grant.js';
export { clientCredentialsStrategy } from './client-credentials.strategy.js';
