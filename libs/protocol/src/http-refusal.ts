/**
 * The `error_description` of an `invalid_request` that the web framework, not an endpoint, refused: no route for the
 * path or method (404, 405), a body over the limit (413), an unsupported media type (415), or a request it could not
 * parse at all (400). Every app answers these in its own OAuth JSON format with this text.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export function describeFrameworkRefusal(status: number): string {
  switch (status) {
    case 404:
      return 'no such endpoint';
    case 405:
      return 'method not allowed';
    case 413:
      return 'the request body is too large';
    case 415:
      return 'unsupported content type';
    default:
      return 'the request is malformed';
  }
}
