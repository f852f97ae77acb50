import { hasUnsafeCharacter } from '@portcullis/protocol';
import { z } from 'zod';

/** A note's identifier: a UUID (checked before any query, so a malformed id is "not found", never a 500). */
export const NoteIdSchema = z.uuid();

/**
 * What creating a note takes. Title and body hold no control character (but tab, LF, CR) and no lone surrogate:
 * NUL cannot be stored in PostgreSQL and a lone surrogate has no UTF-8 form.
 */
export const NoteInputSchema = z.object({
  title: z
    .string()
    .trim()
    .min(1, 'title must not be empty')
    .max(200, 'title must be at most 200 characters')
    .refine((text) => !hasUnsafeCharacter(text), 'title contains a control character'),
  body: z
    .string()
    .max(10_000, 'body must be at most 10000 characters')
    .refine((text) => !hasUnsafeCharacter(text), 'body contains a control character')
    .default(''),
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
