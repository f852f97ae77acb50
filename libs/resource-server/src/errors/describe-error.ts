/** How an unexpected error is written to a log line: its name, message and cause, never sent to a client. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (cause: ${error.cause.message})` : '';
    return `${error.name}: ${error.message}${cause}`;
  }
  return String(error);
}

/** The stack of an error, for the log line of {@link describeError}. */
export function stackOf(error: unknown): string | undefined {
  return error instanceof Error ? error.stack : undefined;
}
