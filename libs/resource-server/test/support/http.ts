import { request as httpRequest } from 'node:http';
import { parseWwwAuthenticate, type Challenge } from '@portcullis/protocol';

/** The one `Bearer` challenge of a response, parsed; fails the test when there is not exactly one. */
export function bearerChallengeOf(response: Response): Challenge {
  const header = response.headers.get('www-authenticate');
  if (header === null) throw new Error(`no WWW-Authenticate on a ${response.status}`);
  const challenges = parseWwwAuthenticate(header).filter((challenge) => challenge.scheme === 'bearer');
  if (challenges.length !== 1) throw new Error(`expected one Bearer challenge in ${header}`);
  return challenges[0]!;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * A GET whose array-valued headers become repeated fields (fetch would merge them into one).
 */
export function getWithRawHeaders(
  url: string,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // An array value is sent as one header field per element.
    const request = httpRequest(url, { method: 'GET', headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}
