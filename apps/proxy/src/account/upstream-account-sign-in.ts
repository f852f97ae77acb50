import { Inject, Injectable } from '@nestjs/common';
import {
  escapeHtml,
  page,
  type AccountSignIn,
  type AccountSignInForm,
  type CookieExchange,
  type Decision,
} from '@portcullis/authorization';
import { PROXY_OPTIONS, type ProxyOptions } from '../proxy.options.js';
import { UpstreamRedirect } from '../upstream/upstream-redirect.service.js';

/**
 * How a person signs in to the proxy's connected apps page: at the upstream authorization server, as for an
 * authorization. The page is one button (a form, so the redirect upstream is a POST with the page's CSRF token and no
 * cross-site link starts it); the upstream callback starts the proxy's session and comes back to `/account`.
 */
@Injectable()
export class UpstreamAccountSignIn implements AccountSignIn {
  constructor(
    private readonly redirect: UpstreamRedirect,
    @Inject(PROXY_OPTIONS) private readonly options: ProxyOptions,
  ) {}

  page(form: AccountSignInForm): { status: number; html: string } {
    const upstream = new URL(this.options.upstream.issuer).host;
    return {
      status: 200,
      html: page(
        'Sign in',
        `<h1>Sign in</h1>
<p>to see and revoke the applications you approved. You sign in at <strong>${escapeHtml(upstream)}</strong>.</p>
<form method="post" action="${escapeHtml(form.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(form.csrf)}">
<button type="submit" id="sign-in-upstream">Sign in at ${escapeHtml(upstream)}</button>
</form>`,
      ),
    };
  }

  submit(cookies: CookieExchange): Promise<Decision> {
    return this.redirect.forAccount(cookies);
  }
}
