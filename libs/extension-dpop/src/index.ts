export { DPOP_ALGORITHMS, DPOP_EXTENSION_ID, DPOP_SCHEME } from './constants.js';
export { dpopExtension, type DpopOptions } from './dpop.extension.js';
export {
  dpopAuthorizationServer,
  type DpopAuthorizationServerOptions,
} from './authorization-server/dpop.authorization-server.js';
export {
  checkDpopAuthorizationServerEnv,
  dpopAuthorizationServerEnvFields,
  dpopAuthorizationServerFromEnv,
  dpopNoncesPerProcess,
  type DpopAuthorizationServerEnv,
} from './authorization-server/dpop.env.js';
export {
  dpopResourceServer,
  type DpopResourceServerOptions,
} from './resource-server/dpop.resource-server.js';
export { dpopClient, type DpopClientOptions } from './client/dpop.client.js';
export { dpopNonces, type DpopNonceOptions, type DpopNonces } from './proof/dpop-nonce.js';
export {
  accessTokenHash,
  DPOP_HEADER,
  DPOP_NONCE_HEADER,
  DPOP_PROOF_TYPE,
  htuOf,
  verifyDpopProof,
  type ProofExpectation,
  type VerifiedProof,
} from './proof/dpop-proof.check.js';
export {
  memoryReplayStore,
  redisReplayStore,
  type RedisSetNx,
  type ReplayStore,
} from './proof/replay-store.js';
