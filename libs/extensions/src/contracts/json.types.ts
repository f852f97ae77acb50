/**
 * A JSON value (RFC 8259): what an extension may put into a metadata document or an access token.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8259#section-3
 */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | JsonObject;

/**
 * A JSON object (RFC 8259 section 4) with string member names.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8259#section-4
 */
export interface JsonObject {
  readonly [member: string]: JsonValue;
}
