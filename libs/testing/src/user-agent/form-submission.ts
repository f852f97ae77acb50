import type { HtmlForm, HtmlFormButton } from './html-forms.js';

/** Picks a submit button by whichever of its name, value and text are given. */
export interface ButtonSelector {
  readonly name?: string;
  readonly value?: string;
  readonly text?: string;
}

/**
 * What a user types or ticks, by control name: a string or several strings replace the form's values for
 * that name, `null` removes them (an unticked checkbox), `undefined` leaves them as they are.
 */
export type FormValues = Readonly<Record<string, string | readonly string[] | null | undefined>>;

export interface FormSubmissionOptions {
  /** The submit button pressed; the form's first submit button when omitted. */
  readonly button?: ButtonSelector;
  /**
   * Allow `values` to name controls the form does not have, as a hand-crafted request would. Off by default
   * so that a misspelt name fails the test instead of submitting a form without it.
   */
  readonly allowUnknownFields?: boolean;
}

/** The request a browser makes when a form is submitted. */
export interface FormSubmission {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly entries: ReadonlyArray<readonly [string, string]>;
  readonly body?: string | FormData;
  /** Set for a urlencoded body; fetch writes the multipart boundary itself. */
  readonly contentType?: string;
}

/**
 * Builds the submission of a form: its fields overridden by `values`, then the pressed button's
 * `name=value`; urlencoded (or multipart, when the form says so) in the body of a POST, or as the whole
 * query of the action URL for a GET. Line breaks are sent as CRLF, as browsers do.
 *
 * @see https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#form-submission-algorithm
 */
export function buildFormSubmission(
  form: HtmlForm,
  values: FormValues = {},
  options: FormSubmissionOptions = {},
): FormSubmission {
  const known = new Set([...form.controls.map((control) => control.name), ...Object.keys(form.fields)]);
  const unknown = Object.keys(values).filter((name) => !known.has(name) && values[name] !== undefined);
  if (unknown.length > 0 && !options.allowUnknownFields) {
    throw new Error(
      `submit: the form ${describeFormTarget(form)} has no control named ${unknown.map((n) => JSON.stringify(n)).join(', ')}; ` +
        `its controls are ${[...known].map((n) => JSON.stringify(n)).join(', ') || '(none)'} ` +
        '(pass allowUnknownFields to send them anyway)',
    );
  }
  const merged = new Map<string, readonly string[]>(Object.entries(form.fields));
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (value === null) merged.delete(name);
    else merged.set(name, typeof value === 'string' ? [value] : value);
  }
  const entries: [string, string][] = [];
  for (const [name, list] of merged) for (const value of list) entries.push([name, value]);
  const button = chooseButton(form, options.button);
  if (button?.name) entries.push([button.name, button.value]);

  const method = button?.formMethod ?? form.method;
  const action = button?.formAction ?? form.action;
  const enctype = button?.formEnctype ?? form.enctype;
  if (method === 'GET') {
    const url = new URL(action);
    url.search = urlencode(entries);
    return { method, url: url.href, entries };
  }
  if (enctype === 'multipart/form-data') {
    const body = new FormData();
    for (const [name, value] of entries) body.append(name, value);
    return { method, url: action, entries, body };
  }
  if (enctype === 'text/plain') {
    throw new Error(`submit: enctype text/plain is not supported (form ${describeFormTarget(form)})`);
  }
  return {
    method,
    url: action,
    entries,
    body: urlencode(entries),
    contentType: 'application/x-www-form-urlencoded',
  };
}

function chooseButton(form: HtmlForm, selector: ButtonSelector | undefined): HtmlFormButton | undefined {
  if (!selector) return form.buttons[0];
  const match = form.buttons.find(
    (button) =>
      (selector.name === undefined || button.name === selector.name) &&
      (selector.value === undefined || button.value === selector.value) &&
      (selector.text === undefined || button.text === selector.text),
  );
  if (!match) {
    const found = form.buttons.map((b) => `{ name: ${q(b.name)}, value: ${q(b.value)}, text: ${q(b.text)} }`);
    throw new Error(
      `submit: no button matches ${JSON.stringify(selector)} in form ${describeFormTarget(form)}; ` +
        `its buttons are ${found.join(', ') || '(none)'}`,
    );
  }
  return match;
}

function urlencode(entries: ReadonlyArray<readonly [string, string]>): string {
  return new URLSearchParams(
    entries.map(([name, value]): [string, string] => [crlf(name), crlf(value)]),
  ).toString();
}

function crlf(text: string): string {
  return text.replace(/\r\n|\r|\n/g, '\r\n');
}

function q(text: string): string {
  return JSON.stringify(text);
}

/** `POST http://host/login (id "login")`, for error messages. */
export function describeFormTarget(form: HtmlForm): string {
  const names = [
    form.id !== undefined && `id ${q(form.id)}`,
    form.name !== undefined && `name ${q(form.name)}`,
  ];
  const label = names.filter(Boolean).join(', ');
  return `${form.method} ${form.action}${label ? ` (${label})` : ''}`;
}
