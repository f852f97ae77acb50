import {
  authorizationServerOptionsFromEnv,
  SigningKeyRepository,
  SigningKeysService,
  type SigningKeyInfo,
} from '@portcullis/authorization';
import { OperatorEvents, type AdminCommand, type AdminContext } from './admin-command.js';

/** `keys rotate|list`: the signing keys every instance shares through the database. */
export const KEY_COMMANDS: Readonly<Record<string, AdminCommand>> = {
  /**
   * A new key signs from now on (running instances switch within SIGNING_KEY_RELOAD_INTERVAL seconds); the old
   * one stays in jwks_uri until every token it signed has expired.
   */
  async 'keys rotate'(context) {
    const keys = signingKeys(context);
    const kid = await keys.rotate();
    const retired = (await keys.list()).filter((key) => key.kid !== kid && key.retiredAt);
    context.print(
      [
        `new signing key ${kid}; running servers sign with it within ${context.config.SIGNING_KEY_RELOAD_INTERVAL} s`,
        ...retired.map((key) => `retired ${key.kid}: published until ${key.publishedUntil?.toISOString()}`),
      ].join('\n'),
      { kid, retired: retired.map(describe) },
    );
    return 0;
  },

  async 'keys list'(context) {
    const list = await signingKeys(context).list();
    context.print(
      list
        .map((key) =>
          [
            key.kid,
            key.alg,
            key.retiredAt ? `retired, published until ${key.publishedUntil?.toISOString()}` : 'signing',
            `created ${key.createdAt.toISOString()}`,
            key.encrypted ? 'sealed' : 'UNSEALED',
          ].join('\t'),
        )
        .join('\n') || 'no signing keys (the server makes one at its first boot)',
      list.map(describe),
    );
    return 0;
  },
};

/** The key service outside Nest: the same rules and lifetimes as the server, from the same variables. */
function signingKeys({ prisma, config }: AdminContext): SigningKeysService {
  const { lifetimes, keyEncryptionKey, signingKeys } = authorizationServerOptionsFromEnv(config);
  return new SigningKeysService(
    new SigningKeyRepository(prisma),
    { lifetimes, ...(keyEncryptionKey ? { keyEncryptionKey } : {}), signingKeys },
    new OperatorEvents(prisma),
  );
}

function describe(key: SigningKeyInfo) {
  return {
    kid: key.kid,
    alg: key.alg,
    status: key.retiredAt ? 'retired' : 'signing',
    created_at: key.createdAt.toISOString(),
    ...(key.retiredAt ? { retired_at: key.retiredAt.toISOString() } : {}),
    ...(key.publishedUntil ? { published_until: key.publishedUntil.toISOString() } : {}),
    encrypted: key.encrypted,
  };
}
