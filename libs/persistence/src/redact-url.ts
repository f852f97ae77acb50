/** A database URL fit for logs and error messages: the password (and any query) removed. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return '<unparseable URL>';
  }
}
