import {
  authorizationServerOptionsFromEnv,
  KeyWithdrawalError,
  SigningKeyRepository,
  SigningKeysService,
  type SigningKeyInfo,
} from '@portcullis/authorization';
import { OperatorEvents, type AdminCommand, type AdminContext } from './admin-command.js';

/** `keys rotate|withdraw|list`: the signing keys every instance shares through the database. */
export const KEY_COMMANDS: Readonly<Record<string, AdminCommand>> = {
  /**
   * A new key, published at once (every running instance within SIGNING_KEY_RELOAD_INTERVAL), that signs only after
   * SIGNING_KEY_ACTIVATION_DELAY, when every resource server's cached key set has it; with --now it signs at once.
   * The keys before it stay in jwks_uri until every token they signed has expired.
   */
  async 'keys rotate'(context) {
    const keys = signingKeys(context);
    const immediate = context.values.now === true;
    const { kid, activatesAt } = await keys.rotate({ now: immediate });
    const listed = await keys.list();
    const previous = listed.filter((key) => key.kid !== kid && key.status !== 'retired');
    const retired = listed.filter((key) => key.kid !== kid && key.retiredAt);
    const seconds = Math.max(0, Math.round((activatesAt.getTime() - Date.now()) / 1000));
    const reload = context.config.SIGNING_KEY_RELOAD_INTERVAL;
    // The delay comes from this process's variables, not the running server's: say which, so a mismatch shows.
    const delay = seconds === 0 ? 0 : keys.activationDelay();
    context.print(
      [
        seconds === 0
          ? `new signing key ${kid}; running servers sign with it within ${reload} s (resource servers fetch it on ` +
            'the first token that names it: see "Signing keys" in docs/operating.md)'
          : `new signing key ${kid}, published now; it signs from ${activatesAt.toISOString()} (in ${seconds} s), ` +
            `once every resource server's cached key set has it\n` +
            `activation delay ${delay} s: ${delaySource(context)}, as this command's environment sets them ` +
            "(run it with the server's configuration)",
        ...previous.map(
          (key) =>
            `${key.kid} signs until ${key.retiredAt?.toISOString()}, published until ${key.publishedUntil?.toISOString()}`,
        ),
        ...retired
          .filter((key) => key.status === 'retired')
          .map((key) => `retired ${key.kid}: published until ${key.publishedUntil?.toISOString()}`),
      ].join('\n'),
      {
        kid,
        activates_at: activatesAt.toISOString(),
        immediate: seconds === 0,
        activation_delay: delay,
        retired: retired.map(describe),
      },
    );
    return 0;
  },

  /** Takes a retired (compromised) key out of jwks_uri now, instead of when the tokens it signed expire. */
  async 'keys withdraw'(context) {
    const kid = context.argument;
    if (!kid) return context.fail('keys withdraw KID: which key (see keys list)', 2);
    try {
      await signingKeys(context).withdraw(kid);
    } catch (error) {
      if (error instanceof KeyWithdrawalError) return context.fail(`portcullis-admin: ${error.message}`);
      throw error;
    }
    context.print(
      `withdrew ${kid}: running servers stop publishing it within ${context.config.SIGNING_KEY_RELOAD_INTERVAL} s; ` +
        'resource servers stop accepting its tokens when they fetch the key set again',
      { kid, withdrawn: true },
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
            key.status === 'staged'
              ? `staged, signs from ${key.activatesAt.toISOString()}`
              : key.status === 'signing'
                ? key.retiredAt
                  ? `signing until ${key.retiredAt.toISOString()}`
                  : 'signing'
                : `retired, published until ${key.publishedUntil?.toISOString()}`,
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

/** Where the activation delay came from: the variable that sets it, or the ones its default adds up. */
function delaySource({ config }: AdminContext): string {
  return config.SIGNING_KEY_ACTIVATION_DELAY !== undefined
    ? 'SIGNING_KEY_ACTIVATION_DELAY'
    : `JWKS_MAX_AGE ${config.JWKS_MAX_AGE} + SIGNING_KEY_RELOAD_INTERVAL ${config.SIGNING_KEY_RELOAD_INTERVAL} + ` +
        `RESOURCE_SERVER_REFETCH_COOLDOWN ${config.RESOURCE_SERVER_REFETCH_COOLDOWN}`;
}

function describe(key: SigningKeyInfo) {
  return {
    kid: key.kid,
    alg: key.alg,
    status: key.status,
    created_at: key.createdAt.toISOString(),
    activates_at: key.activatesAt.toISOString(),
    ...(key.retiredAt ? { retired_at: key.retiredAt.toISOString() } : {}),
    ...(key.publishedUntil ? { published_until: key.publishedUntil.toISOString() } : {}),
    encrypted: key.encrypted,
  };
}
