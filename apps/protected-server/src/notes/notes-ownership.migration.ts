import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { RESOURCE_SERVER_CONFIG } from '@portcullis/resource-server/nest';
import { NotesRepository } from './notes.repository.js';

/**
 * Notes stored before ownership named the issuer have none. Where this server trusts exactly one issuer, those
 * notes can only be its users': they are given that issuer at boot, so an upgrade hides nobody's notes. Where it
 * trusts several, the owner cannot be told apart (the same `sub` may exist at each), so they stay unattributed and
 * the boot says how many.
 */
@Injectable()
export class NotesOwnershipMigration implements OnApplicationBootstrap {
  readonly #logger = new Logger('Notes');

  constructor(
    private readonly notes: NotesRepository,
    @Inject(RESOURCE_SERVER_CONFIG)
    private readonly config: { readonly authorizationServers: readonly string[] },
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const [only, ...others] = this.config.authorizationServers;
    if (only !== undefined && others.length === 0) {
      const claimed = await this.notes.claimUnattributed(only);
      if (claimed > 0)
        this.#logger.log(`gave ${claimed} note(s) from before issuer-scoped ownership to ${only}`);
      return;
    }
    const unattributed = await this.notes.countUnattributed();
    if (unattributed > 0) {
      this.#logger.warn(
        `${unattributed} note(s) from before issuer-scoped ownership have no issuer and are visible to no one: ` +
          'several issuers are trusted, so their owner cannot be told',
      );
    }
  }
}
