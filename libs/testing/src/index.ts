export { postgresServerAvailable, startDatabase } from './database.js';
export type { StartDatabaseOptions, TestDatabase, TestDatabaseKind } from './database.js';
export { startRedis } from './redis.js';
export { startBalancer } from './balancer.js';
export type { Balancer } from './balancer.js';
export { startFaultProxy } from './fault-proxy.js';
export type { FaultProxy } from './fault-proxy.js';
export type { TestRedis, TestRedisResult } from './redis.js';
export { startApp } from './app.js';
export { freePort } from './free-port.js';
export type { StartAppOptions, TestApp } from './app.js';
export { runNode, spawnApp, type NodeRun } from './process.js';
export {
  startBuiltStack,
  type BuiltStack,
  type BuiltStackOptions,
  type ProxiedResource,
} from './built-stack.js';
export {
  installExtensionPackages,
  type ExtensionPackage,
  type ExtensionsDirectory,
} from './extension-package.js';
export type { SpawnedApp } from './process.js';
export { HeadlessUserAgent } from './user-agent/headless-user-agent.js';
export type {
  FollowUntilResult,
  FormSelector,
  HeadlessUserAgentOptions,
  HistoryEntry,
  RequestOptions,
  SubmitOptions,
  UserAgentRequest,
  UserAgentResponse,
} from './user-agent/headless-user-agent.js';
export { parseForms } from './user-agent/html-forms.js';
export type { HtmlForm, HtmlFormButton, HtmlFormControl } from './user-agent/html-forms.js';
export { buildFormSubmission } from './user-agent/form-submission.js';
export type {
  ButtonSelector,
  FormSubmission,
  FormSubmissionOptions,
  FormValues,
} from './user-agent/form-submission.js';
export { CookieJar, isPotentiallyTrustworthy } from './user-agent/cookie-jar.js';
export type { Cookie, CookieJarOptions, SetCookieOutcome } from './user-agent/cookie-jar.js';
export { startLoopbackServer } from './user-agent/loopback-server.js';
export type { LoopbackServer, ReceivedRequest } from './user-agent/loopback-server.js';
export { CHROMIUM_ARGS, CHROMIUM_PATH, launchChromium, recordPageProblems } from './browser.js';
export {
  PATHS as TEST_AUTHORIZATION_SERVER_PATHS,
  createSigningKey,
  startTestAuthorizationServer,
} from './test-authorization-server.js';
export type {
  MintOptions,
  SigningKey as TestSigningKey,
  TestAuthorizationServer,
  TestAuthorizationServerOptions,
  TokenAnswer as TestTokenAnswer,
} from './test-authorization-server.js';
export { makeTestCertificates, type TestCertificateOptions, type TestCertificates } from './certificates.js';
export { expectBootedApp } from './health.js';
export { requestLogLines } from './logs.js';
export { expectHostileInputRefused, expectInvalidRequest, hostileText } from './hostile-input.js';
export type { HostileInputTarget } from './hostile-input.js';
export { metricValue, parseMetrics } from './metrics.js';
export type { MetricSample } from './metrics.js';
export * from './authorization-cluster.js';
export { FormUserAgent } from './user-agent/form-user-agent.js';
export type { ConsentChoice } from './user-agent/form-user-agent.js';
export * from './shipping-clients/index.js';
export {
  startGithubFake,
  type GithubFake,
  type GithubFakeApp,
  type GithubFakeUser,
} from './providers/github-fake.js';
export { startOidcFake } from './providers/oidc-fake.js';
export type {
  OidcFake,
  OidcFakeAuthorization,
  OidcFakeClient,
  OidcFakeEndpoint,
  OidcFakeError,
  OidcFakePreset,
  OidcFakeUser,
} from './providers/oidc-fake.js';
export { startGoogleFake, type GoogleFake, type GoogleFakeUser } from './providers/google-fake.js';
export {
  ENTRA_CONSUMERS_TENANT_ID,
  startEntraFake,
  type EntraFake,
  type EntraFakeUser,
} from './providers/entra-fake.js';
export { startOktaFake, type OktaFake, type OktaFakeUser } from './providers/okta-fake.js';
export { startAuth0Fake, type Auth0Fake, type Auth0FakeUser } from './providers/auth0-fake.js';
export { startKeycloakFake, type KeycloakFake, type KeycloakFakeUser } from './providers/keycloak-fake.js';
