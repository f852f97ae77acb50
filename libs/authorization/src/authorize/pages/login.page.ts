import { escapeHtml, page } from './layout.js';

/** What the sign-in form shows. */
export interface LoginPageModel {
  readonly clientName: string;
  readonly action: string;
  readonly interaction: string;
  readonly csrf: string;
  /** Set after a failed attempt. */
  readonly failed: boolean;
  /** A line under the form (the development stack's user names). */
  readonly hint?: string;
}

/** The username and password form. */
export function loginPage(model: LoginPageModel): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p>to continue to <strong>${escapeHtml(model.clientName)}</strong></p>
${model.failed ? '<p class="error" role="alert">Wrong username or password.</p>' : ''}
<form method="post" action="${escapeHtml(model.action)}">
<input type="hidden" name="interaction" value="${escapeHtml(model.interaction)}">
<input type="hidden" name="csrf" value="${escapeHtml(model.csrf)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${model.hint ? `<p class="hint">${escapeHtml(model.hint)}</p>` : ''}`,
  );
}
