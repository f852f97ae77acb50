import {
  SecurityEventRepository,
  SecurityEvents,
  type SecurityEventFields,
  type SecurityEventType,
} from '@portcullis/authorization';
import type { PrismaClient } from '@portcullis/persistence';
import type { Env } from '../env.schema.js';

/** The parsed command-line options every command may read. */
export interface AdminValues {
  name?: string;
  'redirect-uri'?: string[];
  auth?: string;
  'no-refresh'?: boolean;
  'dpop-bound-access-tokens'?: boolean;
  'jwks-uri'?: string;
  'jwks-file'?: string;
  'client-id'?: string;
  'resource-server'?: string;
  grant?: string;
  /** `clients create --resource-server --grant token-exchange --connections`: the connections it may exchange for. */
  connections?: string;
  scope?: string;
  password?: string;
  /** `users create|update --email`: the `email` claim; `--email-verified` vouches for it. */
  email?: string;
  'email-verified'?: boolean;
  'email-unverified'?: boolean;
  json?: boolean;
  /** `keys rotate --now`: the new key signs at once. */
  now?: boolean;
  since?: string;
  type?: string[];
}

/** What one command gets: the database, the server's configuration, its arguments and how to answer. */
export interface AdminContext {
  readonly prisma: PrismaClient;
  readonly config: Env;
  readonly values: AdminValues;
  /** The positional argument after the command (`users delete alice`: `alice`). */
  readonly argument?: string;
  /** Prints `human`, or `data` as JSON under `--json`. */
  print(human: string, data: unknown): void;
  /** Writes `text` to stderr and returns the exit code (1 unless given). */
  fail(text: string, code?: number): number;
}

/** One `noun verb` command; resolves to the exit code. */
export type AdminCommand = (context: AdminContext) => Promise<number>;

/** The security events the operator causes with this tool: stored with `by: operator` (the tool prints the rest). */
export class OperatorEvents extends SecurityEvents {
  constructor(prisma: PrismaClient) {
    super(new SecurityEventRepository(prisma));
  }

  override record(type: SecurityEventType, fields: SecurityEventFields = {}): Promise<void> {
    return super.record(type, { ...fields, detail: { by: 'operator', ...fields.detail } });
  }
}

/** Records a security event the operator caused with this tool. */
export function recordEvent(
  prisma: PrismaClient,
  type: SecurityEventType,
  fields: SecurityEventFields,
): Promise<void> {
  return new OperatorEvents(prisma).record(type, fields);
}
