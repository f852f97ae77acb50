/**
 * Which scopes each MCP operation of the notes server needs: the one table both the scope resolver (which decides
 * before the MCP SDK sees a request) and the server (which registers only tools listed here) read, so a tool
 * cannot exist without a scope decision.
 */
import { NOTES_READ, NOTES_SCOPES, NOTES_WRITE } from '../notes/notes.scopes.js';

/** Scopes of each tool, by name. */
export const TOOL_SCOPES = Object.freeze({
  notes_list: [NOTES_READ],
  notes_get: [NOTES_READ],
  notes_create: [NOTES_WRITE],
  notes_delete: [NOTES_WRITE],
  // The user's identity at their sign-in provider (registered only with UPSTREAM_USER_API_URL): it reads data of the
  // user's, so not with a bare token; this demo server has no scope of its own for it and uses its read scope.
  upstream_whoami: [NOTES_READ],
} as const satisfies Record<string, readonly string[]>);

export type NotesToolName = keyof typeof TOOL_SCOPES;

/** Reading and listing `notes://{id}` resources exposes notes: the same scope as reading them with a tool. */
export const RESOURCE_SCOPES: readonly string[] = Object.freeze([NOTES_READ]);

/**
 * Protocol methods that expose no user data and need only a valid token: the handshake, liveness, capability and
 * tool discovery, notifications, and the client's answers to server requests.
 */
export const TOKEN_ONLY_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'resources/templates/list',
  'prompts/list',
  'logging/setLevel',
]);

/**
 * What an unclassified method needs: every scope this server knows. Failing closed means a method added to the SDK
 * later is never reachable with less than full authorization until it is classified here.
 */
export const UNCLASSIFIED_METHOD_SCOPES: readonly string[] = NOTES_SCOPES;

/** Whether `name` is a tool this server has. */
export function isNotesTool(name: unknown): name is NotesToolName {
  return typeof name === 'string' && Object.hasOwn(TOOL_SCOPES, name);
}
