import { Inject, Injectable } from '@nestjs/common';
import { PrismaClient, type NoteModel } from '@portcullis/persistence';
import type { Owner } from './owner.js';

/**
 * The Prisma calls of the notes domain. Every query names the owner (issuer and subject), so no code path can read
 * or delete another user's note by id alone, nor a note of the same `sub` at another issuer.
 */
@Injectable()
export class NotesRepository {
  constructor(@Inject(PrismaClient) private readonly prisma: PrismaClient) {}

  listByOwner(owner: Owner, limit: number): Promise<NoteModel[]> {
    return this.prisma.note.findMany({
      where: byOwner(owner),
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      take: limit,
    });
  }

  findOwned(owner: Owner, id: string): Promise<NoteModel | null> {
    return this.prisma.note.findFirst({ where: { id, ...byOwner(owner) } });
  }

  create(owner: Owner, title: string, body: string): Promise<NoteModel> {
    return this.prisma.note.create({ data: { ...byOwner(owner), title, body } });
  }

  /** Gives every note without an issuer to `issuer`; how many. */
  async claimUnattributed(issuer: string): Promise<number> {
    const { count } = await this.prisma.note.updateMany({ where: { issuer: null }, data: { issuer } });
    return count;
  }

  countUnattributed(): Promise<number> {
    return this.prisma.note.count({ where: { issuer: null } });
  }

  /** Deletes the note if this owner has it; the number of notes deleted (0 or 1). */
  async deleteOwned(owner: Owner, id: string): Promise<number> {
    const { count } = await this.prisma.note.deleteMany({ where: { id, ...byOwner(owner) } });
    return count;
  }
}

function byOwner(owner: Owner): { issuer: string; owner: string } {
  return { issuer: owner.issuer, owner: owner.subject };
}
