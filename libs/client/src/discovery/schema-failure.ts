/**
 * Turning a metadata schema failure into the client's error: a URL the schema refused (a `javascript:` endpoint,
 * plain http off loopback, ...) is `unsafe_endpoint`, anything else the caller's code.
 *
 * Rules kept here: the metadata lib's `safeUrl` marks refused URLs with `params.urlProblem` (RFC 6819 4.4.1.5;
 * MCP "Communication Security": authorization server endpoints are https).
 */
import type { z } from 'zod';
import { PortcullisError, type PortcullisErrorCode } from '../errors/portcullis-error.js';

/**
 * The error for a document that failed its schema, naming the first offending field.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export function schemaFailure(
  error: z.ZodError,
  code: PortcullisErrorCode,
  what: string,
  url: string,
): PortcullisError {
  const unsafe = error.issues.find((issue) => urlProblemOf(issue) !== undefined);
  if (unsafe !== undefined) {
    const field = unsafe.path.join('.');
    return new PortcullisError(
      'unsafe_endpoint',
      `The ${what} at ${url} has an unsafe URL in "${field}" (${unsafe.message}); refusing to use it.`,
      { url, field, urlProblem: urlProblemOf(unsafe) },
    );
  }
  const first = error.issues[0];
  const field = first?.path.join('.') ?? '';
  return new PortcullisError(
    code,
    `The ${what} at ${url} is invalid${field === '' ? '' : ` ("${field}": ${first?.message})`}.`,
    { url, field },
  );
}

function urlProblemOf(issue: z.core.$ZodIssue): string | undefined {
  const params = (issue as { params?: { urlProblem?: unknown } }).params;
  return typeof params?.urlProblem === 'string' ? params.urlProblem : undefined;
}
