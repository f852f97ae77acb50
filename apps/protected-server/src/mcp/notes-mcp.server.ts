/**
 * The notes MCP server: tools `notes_list`, `notes_get`, `notes_create`, `notes_delete` and the resource
 * `notes://{id}`, each acting for the request's user (token issuer and subject) only. One definition serves both protocol eras (a
 * fresh instance per 2026-07-28 request, one per 2025-era session).
 *
 * Rules kept here:
 * - Every handler takes the owner from the request's validated auth info, never from its arguments; a request
 *   without auth info is refused (fail closed), and another user's note is answered exactly like a missing one.
 * - Only tools in TOOL_SCOPES can be registered, so no tool escapes the scope decision made before the SDK.
 * - MCP SEP-2133 "Negotiation": the server advertises the extensions it supports in `capabilities.extensions`
 *   (the `initialize` result, the 2026-07-28 `server/discover` result), each id with its settings object, `{}` for
 *   none; with no extension composed the field is left out.
 */
import {
  McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
  type CallToolResult,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { Logger } from '@nestjs/common';
import { DATABASE_RETRY_AFTER_SECONDS, DatabaseUnavailableError } from '@portcullis/persistence';
import type { ExtensionSummary } from '@portcullis/extensions';
import { z } from 'zod';
import { NoteInputSchema, type NoteInput } from '../notes/note.schema.js';
import type { NotesService } from '../notes/notes.service.js';
import { withCachedJsonSchema } from './cached-json-schema.js';
import { ownerOf } from './mcp-auth-info.js';
import type { Owner } from '../notes/owner.js';
import { isNotesTool, type NotesToolName } from './mcp-scopes.js';
import { registerUpstreamWhoami, type UpstreamWhoamiOptions } from './upstream-whoami.tool.js';

/** The server's name and version, as `initialize` and `server/discover` report them. */
export const NOTES_SERVER_INFO = Object.freeze({ name: 'portcullis-notes', version: '0.1.0' });

const NOTE_URI_PREFIX = 'notes://';

function json(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

const logger = new Logger('NotesMcpServer');

/**
 * A tool handler whose unexpected failures become a generic tool error, their cause logged: the SDK would otherwise
 * send the error's message (a database error names files, code and the database's own words) to the client. A
 * database outage is a tool error that says when to retry (MCP reports a tool's failure in its result, which the
 * model reads; the REST routes answer 503 with Retry-After).
 */
function guarded<Args extends unknown[]>(
  name: string,
  handler: (...args: Args) => Promise<CallToolResult>,
): (...args: Args) => Promise<CallToolResult> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof DatabaseUnavailableError) {
        // An outage, not a fault of the tool: said as such, so the model (or the person) retries after a while.
        logger.warn({ err: error.cause, tool: name }, 'tool refused: database unavailable');
        return toolError(
          `The notes service is temporarily unavailable; try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
        );
      }
      logger.error({ err: error, tool: name }, 'tool failed');
      return toolError('The notes service could not complete this request; try again later.');
    }
  };
}

// The tools' argument schemas, their JSON Schema converted once for every server instance (see withCachedJsonSchema).
const IdArgumentsSchema = withCachedJsonSchema(
  z.object({ id: z.string().describe('The note id (a UUID).') }),
);
const NoteArgumentsSchema = withCachedJsonSchema(NoteInputSchema);

/**
 * The server's capabilities with the composed extensions declared: neither authorization extension defines
 * settings, so each is declared with an empty object.
 *
 * @see https://modelcontextprotocol.io/seps/2133-extensions
 * @see https://modelcontextprotocol.io/extensions/auth/oauth-client-credentials
 */
export function notesServerCapabilities(extensions: readonly ExtensionSummary[]): ServerCapabilities {
  return {
    tools: {},
    resources: {},
    ...(extensions.length === 0
      ? {}
      : { extensions: Object.fromEntries(extensions.map(({ id }) => [id, {}])) }),
  };
}

/** Builds one notes MCP server instance over the notes service, declaring `extensions` in its capabilities. */
export function createNotesMcpServer(
  notes: NotesService,
  extensions: readonly ExtensionSummary[],
  upstream?: UpstreamWhoamiOptions,
): McpServer {
  const server = new McpServer(NOTES_SERVER_INFO, {
    capabilities: notesServerCapabilities(extensions),
    instructions: 'Personal notes of the signed-in user. Reading needs notes:read, writing notes:write.',
  });

  const tool = <Name extends NotesToolName>(name: Name): Name => {
    if (!isNotesTool(name)) throw new Error(`tool ${String(name)} has no scope decision`);
    return name;
  };
  const owner = (context: ServerContext): Owner => ownerOf(context.http?.authInfo);

  server.registerTool(
    tool('notes_list'),
    {
      title: 'List notes',
      description: 'Lists your notes, newest first (id, title, timestamps).',
      annotations: { readOnlyHint: true },
    },
    guarded('notes_list', async (context: ServerContext) => {
      const list = await notes.list(owner(context));
      return json(list.map(({ id, title, createdAt, updatedAt }) => ({ id, title, createdAt, updatedAt })));
    }),
  );

  server.registerTool(
    tool('notes_get'),
    {
      title: 'Read a note',
      description: 'Returns one of your notes.',
      inputSchema: IdArgumentsSchema,
      annotations: { readOnlyHint: true },
    },
    guarded('notes_get', async ({ id }: { id: string }, context: ServerContext) => {
      const note = await notes.get(owner(context), id);
      return note ? json(note) : toolError('No note with that id.');
    }),
  );

  server.registerTool(
    tool('notes_create'),
    {
      title: 'Create a note',
      description: 'Creates a note with a title and an optional body.',
      inputSchema: NoteArgumentsSchema,
    },
    guarded('notes_create', async (input: NoteInput, context: ServerContext) =>
      json(await notes.create(owner(context), input)),
    ),
  );

  server.registerTool(
    tool('notes_delete'),
    {
      title: 'Delete a note',
      description: 'Deletes one of your notes.',
      inputSchema: IdArgumentsSchema,
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    guarded('notes_delete', async ({ id }: { id: string }, context: ServerContext) =>
      (await notes.delete(owner(context), id)) ? json({ deleted: id }) : toolError('No note with that id.'),
    ),
  );

  if (upstream) registerUpstreamWhoami(server, tool('upstream_whoami'), upstream);

  server.registerResource(
    'note',
    new ResourceTemplate(`${NOTE_URI_PREFIX}{id}`, {
      list: async (context) => ({
        resources: (await notes.list(owner(context))).map((note) => ({
          uri: `${NOTE_URI_PREFIX}${note.id}`,
          name: note.title,
          mimeType: 'application/json',
        })),
      }),
    }),
    { title: 'Note', description: 'One of your notes, as JSON.', mimeType: 'application/json' },
    async (uri, variables, context) => {
      const id = typeof variables['id'] === 'string' ? variables['id'] : '';
      let note;
      try {
        note = await notes.get(owner(context), id);
      } catch (error) {
        if (error instanceof DatabaseUnavailableError) {
          logger.warn({ err: error.cause, resource: 'note' }, 'resource read refused: database unavailable');
          throw new Error(
            `The notes service is temporarily unavailable; try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
          );
        }
        logger.error({ err: error, resource: 'note' }, 'resource read failed');
        throw new Error('The notes service could not complete this request; try again later.');
      }
      if (!note) throw new ResourceNotFoundError(uri.href);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(note) }] };
    },
  );

  return server;
}
