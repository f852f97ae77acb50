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

/** Clients stored in the database: pre-registered and dynamically registered ones. */
@Injectable()
export class ClientRepository implements ClientSource {
  constructor(private readonly prisma: PrismaClient) {}

  async find(clientId: string): Promise<OAuthClient | undefined> {
    const row = await this.prisma.client.findUnique({ where: { id: clientId } });
    return row ? toOAuthClient(row) : undefined;
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
    return count === 1 ? this.find(clientId) : undefined;
  }

  async delete(clientId: string): Promise<boolean> {
    const { count } = await this.prisma.client.deleteMany({ where: { id: clientId } });
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
