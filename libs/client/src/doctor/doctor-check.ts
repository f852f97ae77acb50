import type { DoctorContext, KnownAuthorizationServer } from './doctor-context.js';

/** What a check found: `skip` when it could not run (no token given, an earlier check failed). */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

/** Where a rule is written, for the person to read. */
export interface CheckReference {
  readonly label: string;
  readonly url: string;
}

/** One line of the report. */
export interface DoctorCheck {
  /** A stable name, e.g. `challenge.scope`. */
  readonly id: string;
  readonly status: CheckStatus;
  /** What was seen, in one sentence. */
  readonly summary: string;
  readonly reference: CheckReference;
}

/** What one run of a check saw: a line of the report without its id (the check's). */
export interface Finding {
  readonly status: CheckStatus;
  readonly summary: string;
  /** Where the rule is written; the check's own reference when left out. */
  readonly reference?: CheckReference;
}

/** No finding when the check does not apply (what it looks at was not found by an earlier check). */
export type CheckResult = Finding | readonly Finding[] | undefined;

interface CheckBase {
  /** The id of every line the check reports. */
  readonly id: string;
  readonly reference: CheckReference;
}

/** A check of the server as a whole, run once. */
export interface ServerCheck extends CheckBase {
  readonly scope: 'server';
  run(context: DoctorContext): CheckResult | Promise<CheckResult>;
}

/** A check run once for each authorization server the resource metadata names, in the order it names them. */
export interface AuthorizationServerCheck extends CheckBase {
  readonly scope: 'authorization-server';
  run(context: DoctorContext, server: KnownAuthorizationServer): CheckResult | Promise<CheckResult>;
}

/**
 * One rule `portcullis doctor` checks. Checks run in the order of `DOCTOR_CHECKS`; each reads what earlier ones
 * found from the context and may add to it.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 */
export type DiagnosticCheck = ServerCheck | AuthorizationServerCheck;

/** A finding, in one line. */
export function finding(status: CheckStatus, summary: string, reference?: CheckReference): Finding {
  return reference === undefined ? { status, summary } : { status, summary, reference };
}
