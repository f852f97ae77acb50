import { CookieJar, type Cookie, type SetCookieOutcome } from './cookie-jar.js';
import {
  buildFormSubmission,
  describeFormTarget,
  type FormSubmissionOptions,
  type FormValues,
} from './form-submission.js';
import { tokenizeHtml } from './html-tokenizer.js';
import { parseForms, type HtmlForm } from './html-forms.js';

/** Picks a form by its resolved action (a path or query-less URL matches any query), its id or its name. */
export interface FormSelector {
  readonly action?: string;
  readonly id?: string;
  readonly name?: string;
}

/** The request behind a response, kept so that a 307 or 308 can be replayed. */
export interface UserAgentRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | FormData;
}

/** One response, with its body read. Redirects are never followed for you: see {@link HeadlessUserAgent.follow}. */
export interface UserAgentResponse {
  /** The URL requested. */
  readonly url: string;
  readonly status: number;
  readonly headers: Headers;
  /** The Location header resolved against {@link url}, when there is one. */
  readonly location?: string;
  readonly body: string;
  readonly request: UserAgentRequest;
  /** What became of each `Set-Cookie` header of this response, in order: stored, deleted or rejected (why). */
  readonly setCookies: readonly SetCookieOutcome[];
  /** The page's forms. Throws when the response is not HTML. */
  forms(): HtmlForm[];
  /** The `href` of every `<a>` of the page, resolved against {@link url}, in document order. */
  links(): string[];
  /**
   * The one form matching `selector` (or the only form, without one). Throws, listing the forms found, when
   * none or several match.
   */
  form(selector?: FormSelector): HtmlForm;
}

export interface RequestOptions {
  /** Extra request headers; they win over the user-agent's defaults and its Cookie header. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface SubmitOptions extends RequestOptions, FormSubmissionOptions {}

/** Where {@link HeadlessUserAgent.followUntil} stopped. */
export type FollowUntilResult =
  /** A redirect's Location matched the predicate; it was not requested. `response` is that redirect. */
  | { readonly stoppedAt: URL; readonly response: UserAgentResponse }
  /** A response that is not a redirect. */
  | { readonly stoppedAt?: undefined; readonly response: UserAgentResponse };

export interface HeadlessUserAgentOptions {
  readonly userAgent?: string;
  /** Headers sent with every request, after the defaults (`Accept: text/html`, `Accept-Language: en`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** How many redirects {@link HeadlessUserAgent.followUntil} follows before giving up; 10 by default. */
  readonly maxRedirects?: number;
  readonly cookieJar?: CookieJar;
  /**
   * Send a GET once more when its connection failed before any answer came (a keep-alive connection the server
   * closed as it was reused), as browsers do with idempotent requests (RFC 9112 9.3.1.1); `retried` counts them.
   * Off by default: a test should see every failure.
   */
  readonly retryIdempotent?: boolean;
}

/** One request made, for assertions about where the user-agent went. */
export interface HistoryEntry {
  readonly method: string;
  readonly url: string;
  readonly status: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_USER_AGENT = 'Mozilla/5.0 (compatible; PortcullisHeadlessUserAgent/1.0; no JavaScript)';

/**
 * A browser without JavaScript for integration tests: it GETs pages, submits their forms, keeps cookies, and
 * follows redirects only when asked, one at a time, so a test can stop at a client's redirect URI without
 * anything listening there. Requests go out with `redirect: 'manual'`; bodies are read as UTF-8.
 *
 * @example
 * const ua = new HeadlessUserAgent();
 * const login = await ua.get(authorizeUrl);
 * const consent = await ua.follow(await ua.submit(login.form({ id: 'login' }), { username, password }));
 * const approved = await ua.submit(consent.form(), {}, { button: { value: 'approve' } });
 * const { stoppedAt } = await ua.followUntil(approved, (url) => url.startsWith(redirectUri));
 * expect(stoppedAt?.searchParams.get('code')).toBeTruthy();
 */
export class HeadlessUserAgent {
  readonly cookieJar: CookieJar;
  /** Every request made, in order. */
  readonly history: HistoryEntry[] = [];
  private readonly defaultHeaders: Record<string, string>;
  private readonly maxRedirects: number;
  private readonly retryIdempotent: boolean;
  /** How many GETs were sent again after their connection failed (with `retryIdempotent`). */
  retried = 0;

  constructor(options: HeadlessUserAgentOptions = {}) {
    this.cookieJar = options.cookieJar ?? new CookieJar();
    this.retryIdempotent = options.retryIdempotent ?? false;
    this.maxRedirects = options.maxRedirects ?? 10;
    this.defaultHeaders = lowerCaseKeys({
      'User-Agent': options.userAgent ?? DEFAULT_USER_AGENT,
      Accept: 'text/html',
      'Accept-Language': 'en',
      ...options.headers,
    });
  }

  /** A top-level navigation to `url`. */
  async get(url: string | URL, options: RequestOptions = {}): Promise<UserAgentResponse> {
    return this.send({
      method: 'GET',
      url: new URL(url).href,
      headers: lowerCaseKeys(options.headers ?? {}),
    });
  }

  /**
   * Submits a form as a browser would when its button is pressed: its fields overridden by `values`, plus the
   * chosen button's `name=value`, with `Origin` and `Referer` of the page it came from.
   */
  async submit(
    form: HtmlForm,
    values: FormValues = {},
    options: SubmitOptions = {},
  ): Promise<UserAgentResponse> {
    const submission = buildFormSubmission(form, values, options);
    const page = new URL(form.documentUrl);
    const target = new URL(submission.url);
    const headers: Record<string, string> = {
      referer: page.origin === target.origin ? withoutFragment(page) : `${page.origin}/`,
    };
    if (submission.method === 'POST') headers['origin'] = page.origin;
    if (submission.contentType) headers['content-type'] = submission.contentType;
    return this.send({
      method: submission.method,
      url: submission.url,
      headers: { ...headers, ...lowerCaseKeys(options.headers ?? {}) },
      ...(submission.body !== undefined ? { body: submission.body } : {}),
    });
  }

  /**
   * Requests the Location of a redirect, once: a GET, except after 307 and 308, which repeat the method and
   * body as browsers do. Throws when `response` is not a redirect.
   */
  async follow(response: UserAgentResponse): Promise<UserAgentResponse> {
    const location = redirectTarget(response);
    const { request } = response;
    if ((response.status === 307 || response.status === 308) && request.method !== 'GET') {
      const headers = { ...request.headers };
      // Fetch's tainted origin: a cross-origin redirect hides where the POST came from.
      if (headers['origin'] && new URL(location).origin !== new URL(request.url).origin) {
        headers['origin'] = 'null';
      }
      return this.send({ ...request, url: location, headers });
    }
    return this.send({ method: 'GET', url: location, headers: {} });
  }

  /**
   * Follows redirects until one's Location satisfies `stopAt` (not requested: returned as `stoppedAt`) or a
   * response is not a redirect (returned as `response`). Throws after `maxRedirects`.
   */
  async followUntil(
    response: UserAgentResponse,
    stopAt: (url: string, parsed: URL) => boolean,
    options: { maxRedirects?: number } = {},
  ): Promise<FollowUntilResult> {
    const limit = options.maxRedirects ?? this.maxRedirects;
    const chain = [`${response.status} ${response.url}`];
    let current = response;
    for (let hops = 0; REDIRECTS.has(current.status); hops++) {
      const location = redirectTarget(current);
      const parsed = new URL(location);
      if (stopAt(location, parsed)) return { stoppedAt: parsed, response: current };
      if (hops >= limit) {
        throw new Error(
          `followUntil: more than ${limit} redirects:\n  ${chain.join('\n  ')}\n  -> ${location}`,
        );
      }
      current = await this.follow(current);
      chain.push(`${current.status} ${current.url}`);
    }
    return { response: current };
  }

  /** The cookies a request to `url` would carry. */
  cookies(url: string | URL): Cookie[] {
    return this.cookieJar.cookies(url);
  }

  clearCookies(): void {
    this.cookieJar.clear();
  }

  private async send(request: UserAgentRequest): Promise<UserAgentResponse> {
    const headers: Record<string, string> = { ...this.defaultHeaders };
    const cookie = this.cookieJar.cookieHeader(request.url);
    if (cookie) headers['cookie'] = cookie;
    Object.assign(headers, request.headers);
    const attempt = () =>
      fetch(request.url, {
        method: request.method,
        headers,
        redirect: 'manual',
        ...(request.body !== undefined ? { body: request.body } : {}),
      });
    let res: Response;
    try {
      res = await attempt().catch((error: unknown) => {
        if (!this.retryIdempotent || request.method !== 'GET') throw error;
        this.retried += 1;
        return attempt();
      });
    } catch (error) {
      throw new Error(`${request.method} ${request.url} failed: ${networkErrorDetail(error)}`, {
        cause: error,
      });
    }
    const setCookies = res.headers
      .getSetCookie()
      .map((header) => this.cookieJar.setCookie(header, request.url));
    const body = await res.text();
    this.history.push({ method: request.method, url: request.url, status: res.status });
    return createResponse(request, res, body, setCookies);
  }
}

function createResponse(
  request: UserAgentRequest,
  { status, headers }: Response,
  body: string,
  setCookies: readonly SetCookieOutcome[],
): UserAgentResponse {
  const { url } = request;
  const rawLocation = headers.get('location');
  let location: string | undefined;
  if (rawLocation !== null) {
    try {
      location = new URL(rawLocation, url).href;
    } catch {
      location = undefined;
    }
  }
  let parsed: HtmlForm[] | undefined;
  const response: UserAgentResponse = {
    url,
    status,
    headers,
    ...(location !== undefined ? { location } : {}),
    body,
    request,
    setCookies,
    forms: () => {
      const contentType = headers.get('content-type');
      if (!/^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i.test(contentType ?? '')) {
        throw new Error(
          `${describe(response)} is not HTML (content-type: ${contentType ?? 'none'}); it has no forms. ` +
            `Body: ${snippet(body)}`,
        );
      }
      parsed ??= parseForms(body, url);
      return parsed;
    },
    links: () =>
      tokenizeHtml(body).flatMap((token) => {
        const href = token.kind === 'start' && token.name === 'a' ? token.attributes.get('href') : undefined;
        return href === undefined ? [] : [new URL(href, url).href];
      }),
    form: (selector) => {
      const forms = response.forms();
      const matches = forms.filter((form) => formMatches(form, selector ?? {}, url));
      const [only] = matches;
      if (only && matches.length === 1) return only;
      const wanted = selector ? `matching ${JSON.stringify(selector)}` : '';
      const list = forms.map((form, i) => `\n  #${i + 1} ${describeForm(form)}`).join('');
      const problem = matches.length === 0 ? `no form ${wanted}` : `${matches.length} forms ${wanted}`;
      throw new Error(
        `${problem.trim()} on ${describe(response)}; ` +
          (forms.length === 0 ? `the page has no forms. Body: ${snippet(body)}` : `forms found:${list}`),
      );
    },
  };
  return response;
}

function formMatches(form: HtmlForm, selector: FormSelector, pageUrl: string): boolean {
  if (selector.id !== undefined && form.id !== selector.id) return false;
  if (selector.name !== undefined && form.name !== selector.name) return false;
  if (selector.action !== undefined) {
    const wanted = new URL(selector.action, pageUrl);
    const actual = new URL(form.action);
    if (wanted.search || selector.action.includes('?')) return wanted.href === actual.href;
    return wanted.origin === actual.origin && wanted.pathname === actual.pathname;
  }
  return true;
}

function redirectTarget(response: UserAgentResponse): string {
  if (!REDIRECTS.has(response.status)) {
    throw new Error(`${describe(response)} is not a redirect. Body: ${snippet(response.body)}`);
  }
  if (response.location === undefined) {
    const raw = response.headers.get('location');
    throw new Error(
      `${describe(response)} has ${raw === null ? 'no Location' : `an invalid Location ${raw}`}`,
    );
  }
  return response.location;
}

function describe(response: UserAgentResponse): string {
  return `${response.request.method} ${response.url} (${response.status})`;
}

function describeForm(form: HtmlForm): string {
  const fields = Object.keys(form.fields).join(', ') || 'none';
  const buttons = form.buttons.map((b) => JSON.stringify(b.text || b.value || b.name)).join(', ') || 'none';
  return `${describeFormTarget(form)} fields: ${fields}; buttons: ${buttons}`;
}

function snippet(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${JSON.stringify(text.slice(0, 200))}...` : JSON.stringify(text);
}

/** undici says only "fetch failed"; the reason is in its cause. Errors may come from another realm under Jest. */
function networkErrorDetail(error: unknown): string {
  const messageOf = (value: unknown) =>
    typeof value === 'object' && value !== null && 'message' in value ? String(value.message) : undefined;
  const cause = typeof error === 'object' && error !== null && 'cause' in error ? error.cause : undefined;
  return messageOf(cause) || messageOf(error) || String(error);
}

function withoutFragment(url: URL): string {
  const copy = new URL(url);
  copy.hash = '';
  return copy.href;
}

function lowerCaseKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
