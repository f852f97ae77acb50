import { z } from 'zod';

/** A note's identifier: a UUID (checked before any query, so a malformed id is "not found", never a 500). */
export const NoteIdSchema = z.uuid();

/** What creating a note takes. */
export const NoteInputSchema = z.object({
  title: z.string().trim().min(1, 'title must not be empty').max(200, 'title must be at most 200 characters'),
  body: z.string().max(10_000, 'body must be at most 10000 characters').default(''),
});

export type NoteInput = z.input<typeof NoteInputSchema>;

/** A note as the API and the MCP tools return it. */
export interface NoteView {
  id: string;
  title: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}
