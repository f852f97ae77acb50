import { Module } from '@nestjs/common';
import { NotesController } from './notes.controller.js';
import { NotesOwnershipMigration } from './notes-ownership.migration.js';
import { NotesRepository } from './notes.repository.js';
import { NotesService } from './notes.service.js';

/** The notes domain: per-user notes in PostgreSQL, and their REST route. */
@Module({
  controllers: [NotesController],
  providers: [NotesRepository, NotesService, NotesOwnershipMigration],
  exports: [NotesService],
})
export class NotesModule {}
