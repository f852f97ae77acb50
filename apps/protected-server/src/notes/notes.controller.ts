import { Controller, Get, Inject } from '@nestjs/common';
import { type AuthInfo } from '@portcullis/resource-server';
import { CurrentAuth, RequireScopes } from '@portcullis/resource-server/nest';
import type { NoteView } from './note.schema.js';
import { NOTES_READ } from './notes.scopes.js';
import { NotesService } from './notes.service.js';

/**
 * A plain REST route behind the same resource-server module as the MCP endpoint: the protection is not
 * MCP-specific.
 */
@Controller('api/notes')
export class NotesController {
  constructor(@Inject(NotesService) private readonly notes: NotesService) {}

  @Get()
  @RequireScopes(NOTES_READ)
  async list(@CurrentAuth() auth: AuthInfo): Promise<{ notes: NoteView[] }> {
    return { notes: await this.notes.list({ issuer: auth.issuer, subject: auth.subject }) };
  }
}
