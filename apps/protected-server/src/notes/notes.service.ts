import { Inject, Injectable } from '@nestjs/common';
import type { NoteModel } from '@portcullis/persistence';
import { NoteIdSchema, NoteInputSchema, type NoteInput, type NoteView } from './note.schema.js';
import { NotesRepository } from './notes.repository.js';
import type { Owner } from './owner.js';

/** The most notes one listing returns. */
export const NOTES_LIST_LIMIT = 100;

function toView(note: NoteModel): NoteView {
  return {
    id: note.id,
    title: note.title,
    body: note.body,
    createdAt: note.createdAt.toISOString(),
    updatedAt: note.updatedAt.toISOString(),
  };
}

/**
 * The notes of one owner (a token's issuer and subject). Callers pass the owner from the request's `AuthInfo`; there is no
 * operation that takes a note id without an owner.
 */
@Injectable()
export class NotesService {
  constructor(@Inject(NotesRepository) private readonly notes: NotesRepository) {}

  async list(owner: Owner): Promise<NoteView[]> {
    return (await this.notes.listByOwner(owner, NOTES_LIST_LIMIT)).map(toView);
  }

  /** The owner's note, or `undefined` for an unknown id, a malformed id, or someone else's note alike. */
  async get(owner: Owner, id: string): Promise<NoteView | undefined> {
    if (!NoteIdSchema.safeParse(id).success) return undefined;
    const note = await this.notes.findOwned(owner, id);
    return note ? toView(note) : undefined;
  }

  /** @throws ZodError when the input is invalid. */
  async create(owner: Owner, input: NoteInput): Promise<NoteView> {
    const { title, body } = NoteInputSchema.parse(input);
    return toView(await this.notes.create(owner, title, body));
  }

  /** Whether the owner had that note (and now has it no more). */
  async delete(owner: Owner, id: string): Promise<boolean> {
    if (!NoteIdSchema.safeParse(id).success) return false;
    return (await this.notes.deleteOwned(owner, id)) === 1;
  }
}
