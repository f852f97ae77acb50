import { hasUnsafeCharacter, OAuthError } from '@portcullis/protocol';

/**
 * The parameters of an OAuth request, read from a query string or an `application/x-www-form-urlencoded` body
 * exactly as sent. RFC 6749 section 3.1 and 3.2: "Request and response parameters MUST NOT be included more than
 * once"; `resource` is the exception (RFC 8707 section 2 allows several), kept apart in `resources`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.1
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
 */
export class RequestParameters {
  readonly #single = new Map<string, string>();
  readonly #all = new Map<string, string[]>();
  readonly #repeated = new Set<string>();
  #unsafe: string | undefined;
  readonly resources: readonly string[];

  private constructor(search: URLSearchParams) {
    const resources: string[] = [];
    for (const [name, value] of search) {
      if (this.#unsafe === undefined && (hasUnsafeCharacter(name) || hasUnsafeCharacter(value))) {
        this.#unsafe = hasUnsafeCharacter(name) ? 'a parameter name' : name;
      }
      this.#all.set(name, [...(this.#all.get(name) ?? []), value]);
      if (name === 'resource') {
        resources.push(value);
        continue;
      }
      if (this.#single.has(name)) this.#repeated.add(name);
      else this.#single.set(name, value);
    }
    this.resources = resources;
  }

  /** From the raw query string of a request URL (`/authorize?...`). */
  static fromUrl(url: string): RequestParameters {
    const question = url.indexOf('?');
    return new RequestParameters(new URLSearchParams(question === -1 ? '' : url.slice(question + 1)));
  }

  /** From the raw bytes of a form body. */
  static fromForm(body: Buffer | string | undefined): RequestParameters {
    const text = typeof body === 'string' ? body : (body?.toString('utf8') ?? '');
    return new RequestParameters(new URLSearchParams(text));
  }

  /** Names sent more than once. */
  get repeated(): readonly string[] {
    return [...this.#repeated];
  }

  /** The value of a parameter; an empty value counts as absent (RFC 6749 section 3.1). */
  get(name: string): string | undefined {
    const value = this.#single.get(name);
    return value === '' ? undefined : value;
  }

  /** Every value of a parameter a form may repeat on purpose (checkboxes). */
  all(name: string): readonly string[] {
    return this.#all.get(name) ?? [];
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Every single-valued parameter, `resource` excluded. */
  entries(): Record<string, string> {
    const result: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [name, value] of this.#single) if (value !== '') result[name] = value;
    return result;
  }

  /**
   * The parameter whose name or value holds a control character (other than tab, LF, CR) or a lone surrogate, to be
   * refused where the request is parsed (`hasUnsafeCharacter`); `undefined` when there is none.
   */
  get unsafe(): string | undefined {
    return this.#unsafe;
  }

  /**
   * Throws `invalid_request` when a parameter holds a control character or a lone surrogate.
   *
   * @throws OAuthError `invalid_request`
   */
  assertPlainText(): void {
    if (this.#unsafe !== undefined) {
      throw new OAuthError('invalid_request', `${this.#unsafe} contains a control character`);
    }
  }

  /**
   * Throws `invalid_request` when a parameter was repeated.
   *
   * @throws OAuthError `invalid_request`
   */
  assertNoRepeats(): void {
    if (this.#repeated.size > 0) {
      throw new OAuthError('invalid_request', `parameter sent more than once: ${this.repeated.join(', ')}`);
    }
  }
}

/** The media type of a request, lowercased, without parameters. */
export function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}
