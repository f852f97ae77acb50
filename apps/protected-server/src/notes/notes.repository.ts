import { Inject, Injectable } from '@nestjs/common';
import { PrismaClient, type NoteModel } from '@portcullis/persistence';

/**
 * The Prisma calls of the notes domain. Every query names the owner, so no code path can read or delete another
 * user's note by id alone.
 */
@Injectable()
export class NotesRepository {
  constructor(@Inject(PrismaClient) private readonly prisma: PrismaClient) {}

  listByOwner(owner: string, limit: number): Promise<NoteModel[]> {
    return this.prisma.note.findMany({
      where: { owner },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      take: limit,
    });
  }

  findOwned(owner: string, id: string): Promise<NoteModel | null> {
    return this.prisma.note.findFirst({ where: { id, owner } });
  }

  create(owner: string, title: string, body: string): Promise<NoteModel> {
    return this.prisma.note.create({ data: { owner, title, body } });
  }

  /** Deletes the note if this owner has it; the number of notes deleted (0 or 1). */
  async deleteOwned(owner: string, id: string): Promise<number> {
    const { count } = await this.prisma.note.deleteMany({ where: { id, owner } });
    return count;
  }
}
