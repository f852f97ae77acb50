/**
 * The log lines of one request (by its request id) from an app started with `captureLogs`, once its completion line
 * is written: pino-http writes it when the response has finished, which may be after the client has read it.
 */
export async function requestLogLines(logs: () => string, requestId: string): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const lines = logs()
      .split('\n')
      .filter((line) => line.includes(requestId));
    if (lines.some((line) => /"msg":"request (completed|errored)"/.test(line))) return lines.join('\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no completion line for request ${requestId}`);
}
