import type { HttpRequestView } from '@portcullis/extensions';
import type { FastifyRequest } from 'fastify';

/**
 * The request as a proof-of-possession extension checks it (RFC 9449 section 4.3): its method, the URL this server
 * is known by (`url`, from the configuration, never the `Host` header, which the client chooses), and every field
 * line of a header one by one, from the raw headers: Node joins repeated fields into one value, which would hide
 * that a request carries two `DPoP` fields (RFC 9449 section 4.3, item 1).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-4.3
 */
export function httpRequestView(request: FastifyRequest, url: string): HttpRequestView {
  const raw = request.raw.rawHeaders;
  return {
    method: request.method.toUpperCase(),
    url,
    headerValues(name: string): readonly string[] {
      const wanted = name.toLowerCase();
      const values: string[] = [];
      for (let index = 0; index + 1 < raw.length; index += 2) {
        if ((raw[index] as string).toLowerCase() === wanted) values.push(raw[index + 1] as string);
      }
      return values;
    },
  };
}
