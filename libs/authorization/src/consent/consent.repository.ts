import { Injectable } from '@nestjs/common';
import { PrismaClient } from '@portcullis/persistence';

/** What users allowed clients to do, per resource. */
@Injectable()
export class ConsentRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async scopes(userId: string, clientId: string, resource: string): Promise<string[] | undefined> {
    const row = await this.prisma.consent.findUnique({
      where: { userId_clientId_resource: { userId, clientId, resource } },
    });
    return row?.scopes;
  }

  /** Adds scopes to what the user allowed (a later, wider consent extends the earlier one). */
  async grant(userId: string, clientId: string, resource: string, scopes: readonly string[]): Promise<void> {
    const existing = (await this.scopes(userId, clientId, resource)) ?? [];
    const merged = [...new Set([...existing, ...scopes])];
    await this.prisma.consent.upsert({
      where: { userId_clientId_resource: { userId, clientId, resource } },
      create: { userId, clientId, resource, scopes: merged },
      update: { scopes: merged },
    });
  }

  /** Whether the user has approved this client before, for any resource. */
  async any(userId: string, clientId: string): Promise<boolean> {
    return (await this.prisma.consent.count({ where: { userId, clientId } })) > 0;
  }
}
