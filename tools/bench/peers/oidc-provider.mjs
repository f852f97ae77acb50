// The peer of the authorization server benchmarks: panva's oidc-provider (the most used Node.js authorization
// server) keeping everything in memory, one confidential client with PKCE, refresh tokens rotated on every use, and
// its development sign-in and consent pages (walked once; afterwards the session and the grant let /auth answer with
// a code at once). Run as its own process, as our server is: `PORT=<port> node peers/oidc-provider.mjs`; it prints
// `listening on <url>` when ready.
//
// Its storage is the adapter below, not oidc-provider's bundled development `MemoryAdapter`: that one indexes a
// grant's tokens in a map it walks whole (and spreads into Math.max) on every token it stores, so a family refreshed
// thousands of times costs more at each refresh (a full run at c=20 measured 420 refreshes/s and 2.5 ms of CPU each;
// a quick run's 1.5 s windows 999/s and 1.1 ms), and it keeps at most 1,000 entries. The adapter below keeps the same
// records with constant-time indexes, so the reference is oidc-provider's own cost, not its example adapter's.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT ?? '0');
const server = createServer();
await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;
// It warns about its development defaults, which are what a benchmark of the same flow wants.
console.warn = () => undefined;
// The person's consent, one grant per account and client, made at their first authorization (the benchmark's premise
// is a person who approved the client): oidc-provider's default lookup goes through the session's record of OpenID
// Connect authorizations, which a plain OAuth request (no `openid`) does not leave, so every flow would ask again.
const grants = new Map();

// oidc-provider's adapter interface (https://github.com/panva/node-oidc-provider/blob/main/example/my_adapter.js):
// records by model and id, their expiry read on find, a grant's tokens in a Set, sessions by uid.
const records = new Map();
const grantMembers = new Map();
const sessionUids = new Map();
const nowSeconds = () => Math.floor(Date.now() / 1000);
class InMemoryAdapter {
  constructor(model) {
    this.model = model;
  }
  key(id) {
    return `${this.model}:${id}`;
  }
  async upsert(id, payload, expiresIn) {
    const key = this.key(id);
    records.set(key, {
      payload,
      expiresAt: typeof expiresIn === 'number' ? nowSeconds() + expiresIn : Infinity,
    });
    if (payload.grantId) {
      let members = grantMembers.get(payload.grantId);
      if (!members) grantMembers.set(payload.grantId, (members = new Set()));
      members.add(key);
    }
    if (this.model === 'Session' && payload.uid) sessionUids.set(payload.uid, id);
  }
  async find(id) {
    const record = records.get(this.key(id));
    if (!record) return undefined;
    if (record.expiresAt <= nowSeconds()) {
      records.delete(this.key(id));
      return undefined;
    }
    return record.payload;
  }
  async findByUid(uid) {
    const id = sessionUids.get(uid);
    return id === undefined ? undefined : this.find(id);
  }
  async findByUserCode() {
    return undefined;
  }
  async consume(id) {
    const record = records.get(this.key(id));
    if (record) record.payload.consumed = nowSeconds();
  }
  async destroy(id) {
    const key = this.key(id);
    const record = records.get(key);
    records.delete(key);
    if (record?.payload.grantId) grantMembers.get(record.payload.grantId)?.delete(key);
    if (this.model === 'Session' && record?.payload.uid) sessionUids.delete(record.payload.uid);
  }
  async revokeByGrantId(grantId) {
    for (const key of grantMembers.get(grantId) ?? []) records.delete(key);
    grantMembers.delete(grantId);
  }
}

const provider = new Provider(issuer, {
  adapter: InMemoryAdapter,
  loadExistingGrant: async (ctx) => {
    const accountId = ctx.oidc.session?.accountId;
    if (!accountId) return undefined;
    const clientId = ctx.oidc.client.clientId;
    const key = `${accountId}\n${clientId}`;
    const known = grants.get(key);
    const found = known ? await ctx.oidc.provider.Grant.find(known) : undefined;
    if (found) return found;
    // The first authorization of this person for this client: they approved it (the benchmark's premise).
    const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
    grant.addOIDCScope('notes:read');
    grants.set(key, await grant.save());
    return grant;
  },

  clients: [
    {
      // Confidential: a native (public) client is asked to confirm on every authorization, by oidc-provider as by us.
      client_id: 'bench',
      client_secret: process.env.CLIENT_SECRET ?? 'bench-secret',
      token_endpoint_auth_method: 'client_secret_basic',
      application_type: 'web',
      redirect_uris: ['https://bench-client.example/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  ],
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  findAccount: (_context, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  features: { devInteractions: { enabled: true } },
  pkce: { required: () => true },
  scopes: ['notes:read'],
  issueRefreshToken: async () => true,
  rotateRefreshToken: true,
  ttl: {
    AccessToken: 300,
    AuthorizationCode: 60,
    Interaction: 600,
    Session: 86_400,
    Grant: 86_400,
    RefreshToken: 86_400,
  },
});
server.on('request', provider.callback());
process.stdout.write(`listening on ${issuer}\n`);
process.once('SIGTERM', () => server.close(() => process.exit(0)));
