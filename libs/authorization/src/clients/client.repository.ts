import { Injectable } from '@nestjs/common';
import { PrismaClient, type Client } from '@portcullis/persistence';
import type { ClientSource, OAuthClient } from './client.js';

/** The fields of a new client row, secret already hashed. */
export interface NewClient {
  clientId: string;
  clientName?: string;
  redirectUris: string[];
  grantTypes: string[];
  responseTypes?: string[];
  tokenEndpointAuthMethod: string;
  applicationType: string;
  scope?: string;
  secretHash?: string;
  origin: 'preregistered' | 'dynamic';
  metadata?: Record<string, unknown>;
  /** Operator-set only: the canonical resource URI this client is the resource server of. */
  resourceServer?: string;
  /** SHA-256 of the RFC 7592 registration access token (dynamic registration only). */
  registrationTokenHash?: string;
}

/** What RFC 7592 management reads of a dynamically registered client. */
export interface ManagedRegistration {
  readonly client: OAuthClient;
  readonly registrationTokenHash: string;
  readonly createdAt: Date;
}

/** The fields a registration update (RFC 7592 2.2) replaces. */
export interface RegistrationUpdate {
  clientName?: string;
  redirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  applicationType: string;
  scope?: string;
  metadata: Record<string, unknown>;
}

/** A stored client as operators see it. */
export interface ClientRegistration {
  readonly client: OAuthClient;
  /** `preregistered` (portcullis-admin) or `dynamic` (RFC 7591). */
  readonly origin: string;
  readonly createdAt: Date;
  /** When an authorization of it last completed; absent while none has. */
  readonly lastUsedAt?: Date;
}

/** How long a client read from the database is used without reading it again. */
export const CLIENT_CACHE_MS = 5_000;
/** The most clients kept; beyond it the oldest entry goes. */
const CLIENT_CACHE_ENTRIES = 10_000;

/**
 * Clients stored in the database: pre-registered and dynamically registered ones. A client found is kept
 * {@link CLIENT_CACHE_MS} (every token request and authorization looks its client up, often twice), and forgotten at
 * once when this process changes or deletes it; a change made elsewhere (another instance, `portcullis-admin`) is
 * seen within that time. An unknown client ID is never cached, so a new registration is found at once.
 */
@Injectable()
export class ClientRepository implements ClientSource {
  readonly #cache = new Map<string, { client: OAuthClient; until: number }>();

  constructor(private readonly prisma: PrismaClient) {}

  async find(clientId: string): Promise<OAuthClient | undefined> {
    const cached = this.#cache.get(clientId);
    const now = Date.now();
    if (cached && cached.until > now) return cached.client;
    const row = await this.prisma.client.findUnique({ where: { id: clientId } });
    if (!row) {
      this.#cache.delete(clientId);
      return undefined;
    }
    const client = toOAuthClient(row);
    this.#cache.delete(clientId);
    if (this.#cache.size >= CLIENT_CACHE_ENTRIES) {
      const oldest = this.#cache.keys().next();
      if (!oldest.done) this.#cache.delete(oldest.value);
    }
    this.#cache.set(clientId, { client, until: now + CLIENT_CACHE_MS });
    return client;
  }

  /** Drops what this process keeps of a client, after a change made around the repository (the housekeeping sweep). */
  forget(clientId: string): void {
    this.#cache.delete(clientId);
  }

  async create(client: NewClient): Promise<OAuthClient> {
    const row = await this.prisma.client.create({
      data: {
        id: client.clientId,
        name: client.clientName ?? null,
        redirectUris: client.redirectUris,
        grantTypes: client.grantTypes,
        responseTypes: client.responseTypes ?? ['code'],
        tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
        applicationType: client.applicationType,
        scope: client.scope ?? null,
        secretHash: client.secretHash ?? null,
        origin: client.origin,
        metadata: (client.metadata ?? {}) as object,
        resourceServer: client.resourceServer ?? null,
        registrationTokenHash: client.registrationTokenHash ?? null,
      },
    });
    return toOAuthClient(row);
  }

  async list(): Promise<OAuthClient[]> {
    const rows = await this.prisma.client.findMany({ orderBy: { createdAt: 'asc' } });
    return rows.map(toOAuthClient);
  }

  /** Every stored client with how it came to exist and when an authorization of it last completed, for operators. */
  async listRegistrations(): Promise<ClientRegistration[]> {
    const rows = await this.prisma.client.findMany({ orderBy: { createdAt: 'asc' } });
    return rows.map((row) => ({
      client: toOAuthClient(row),
      origin: row.origin,
      createdAt: row.createdAt,
      ...(row.lastUsedAt ? { lastUsedAt: row.lastUsedAt } : {}),
    }));
  }

  /** A dynamically registered client that has a registration access token, for RFC 7592 management. */
  async findManaged(clientId: string): Promise<ManagedRegistration | undefined> {
    const row = await this.prisma.client.findUnique({ where: { id: clientId } });
    if (!row || row.origin !== 'dynamic' || !row.registrationTokenHash) return undefined;
    return {
      client: toOAuthClient(row),
      registrationTokenHash: row.registrationTokenHash,
      createdAt: row.createdAt,
    };
  }

  /** Replaces the metadata of a dynamically registered client (RFC 7592 2.2); false when it is gone. */
  async updateRegistration(clientId: string, update: RegistrationUpdate): Promise<OAuthClient | undefined> {
    this.forget(clientId);
    const { count } = await this.prisma.client.updateMany({
      where: { id: clientId, origin: 'dynamic' },
      data: {
        name: update.clientName ?? null,
        redirectUris: update.redirectUris,
        grantTypes: update.grantTypes,
        responseTypes: update.responseTypes,
        applicationType: update.applicationType,
        scope: update.scope ?? null,
        metadata: update.metadata as object,
      },
    });
    this.forget(clientId);
    return count === 1 ? this.find(clientId) : undefined;
  }

  async delete(clientId: string): Promise<boolean> {
    this.forget(clientId);
    const { count } = await this.prisma.client.deleteMany({ where: { id: clientId } });
    this.forget(clientId);
    return count === 1;
  }
}

function toOAuthClient(row: Client): OAuthClient {
  return {
    clientId: row.id,
    origin: row.origin === 'dynamic' ? 'dynamic' : 'preregistered',
    createdAt: row.createdAt,
    ...(row.name ? { clientName: row.name } : {}),
    redirectUris: row.redirectUris,
    grantTypes: row.grantTypes,
    responseTypes: row.responseTypes,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod,
    applicationType: row.applicationType,
    ...(row.secretHash ? { secretHash: row.secretHash } : {}),
    ...(row.secretExpiresAt ? { secretExpiresAt: row.secretExpiresAt } : {}),
    metadata: (row.metadata ?? {}) as Record<string, unknown>,
    ...(row.resourceServer ? { resourceServer: row.resourceServer } : {}),
  };
}
