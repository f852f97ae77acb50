import { tokenizeHtml } from './html-tokenizer.js';

/** A submit button of a form: `<button>` (type submit, the default) or `<input type="submit">`. */
export interface HtmlFormButton {
  /** Empty when the button has no name; such a button adds nothing to the submission. */
  readonly name: string;
  readonly value: string;
  /** The label a user reads: the button's text with whitespace collapsed, or an input's value. */
  readonly text: string;
  /** `formaction`, resolved: where this button sends the form instead of the form's action. */
  readonly formAction?: string;
  readonly formMethod?: 'GET' | 'POST';
  readonly formEnctype?: string;
}

/** A named, enabled control of a form, whether or not it currently contributes a value. */
export interface HtmlFormControl {
  readonly name: string;
  /** The input's type, or `select-one`, `select-multiple`, `textarea`. */
  readonly type: string;
}

/** A form as a browser without JavaScript would submit it. */
export interface HtmlForm {
  /** The page the form came from. */
  readonly documentUrl: string;
  readonly id?: string;
  readonly name?: string;
  /** Absolute URL: the `action` attribute resolved against the document's base URL, or the page itself. */
  readonly action: string;
  readonly method: 'GET' | 'POST';
  readonly enctype: string;
  /**
   * What the form would submit, by name in document order: inputs (hidden included), textareas, selected
   * options, and checkboxes and radios only when checked. Disabled controls are left out.
   */
  readonly fields: Record<string, string[]>;
  readonly buttons: readonly HtmlFormButton[];
  /** Every named, enabled control, including unchecked checkboxes and radios. */
  readonly controls: readonly HtmlFormControl[];
}

const ENCTYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];
/** Input types whose value loses its line breaks (and for url and email, surrounding whitespace). */
const SINGLE_LINE = new Set(['text', 'search', 'tel', 'password', 'url', 'email', 'hidden']);
const NOT_SUBMITTED = new Set(['reset', 'button', 'file', 'image']);

interface Option {
  value: string;
  selected: boolean;
  disabled: boolean;
}

type Control =
  | { kind: 'value'; name: string; type: string; value: string; checkable: boolean; checked: boolean }
  | { kind: 'select'; name: string; multiple: boolean; options: Option[] }
  | { kind: 'button'; attributes: ReadonlyMap<string, string>; text: string };

interface FormBuilder {
  attributes: ReadonlyMap<string, string>;
  controls: Control[];
}

interface OwnedControl {
  control: Control;
  /** The form element the control sits in, if any. */
  parent: FormBuilder | undefined;
  /** The `form` attribute, which overrides the parent. */
  formId: string | undefined;
}

/**
 * Reads the forms of an HTML page: controls are owned by their enclosing `<form>` or by the form their
 * `form` attribute names; a `<base href>` changes how actions resolve. Not covered, because login and
 * consent pages do not need them: `<fieldset disabled>`, image buttons, file inputs, `dirname`.
 *
 * @see https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#constructing-the-form-data-set
 */
export function parseForms(html: string, documentUrl: string): HtmlForm[] {
  const forms: FormBuilder[] = [];
  const owned: OwnedControl[] = [];
  let baseHref: string | undefined;
  let openForm: FormBuilder | undefined;
  let button: Extract<Control, { kind: 'button' }> | undefined;
  let select: Extract<Control, { kind: 'select' }> | undefined;
  let option: { attributes: ReadonlyMap<string, string>; text: string; inDisabledGroup: boolean } | undefined;
  let optgroupDisabled = false;
  let textarea: { attributes: ReadonlyMap<string, string>; text: string } | undefined;

  const add = (control: Control, attributes: ReadonlyMap<string, string>) => {
    owned.push({ control, parent: openForm, formId: attributes.get('form') });
  };
  const closeOption = () => {
    if (option && select) {
      const value = option.attributes.get('value') ?? collapseWhitespace(option.text);
      const disabled = option.attributes.has('disabled') || option.inDisabledGroup;
      select.options.push({ value, selected: option.attributes.has('selected'), disabled });
    }
    option = undefined;
  };

  for (const token of tokenizeHtml(html)) {
    if (token.kind === 'text') {
      if (button) button.text += token.text;
      if (option) option.text += token.text;
      if (textarea) textarea.text += token.text;
      continue;
    }
    if (token.kind === 'end') {
      if (token.name === 'form') openForm = undefined;
      else if (token.name === 'button') button = undefined;
      else if (token.name === 'option') closeOption();
      else if (token.name === 'optgroup') {
        closeOption();
        optgroupDisabled = false;
      } else if (token.name === 'select') {
        closeOption();
        select = undefined;
      } else if (token.name === 'textarea' && textarea) {
        addTextarea(textarea.attributes, textarea.text);
        textarea = undefined;
      }
      continue;
    }
    const { name, attributes } = token;
    const disabled = attributes.has('disabled');
    switch (name) {
      case 'base':
        baseHref ??= attributes.get('href');
        break;
      case 'form':
        // A form inside a form is ignored by the HTML parser; its controls belong to the outer one.
        if (!openForm) {
          openForm = { attributes, controls: [] };
          forms.push(openForm);
        }
        break;
      case 'input': {
        const type = (attributes.get('type') ?? 'text').toLowerCase();
        const inputName = attributes.get('name') ?? '';
        if (disabled) break;
        if (type === 'submit') {
          add({ kind: 'button', attributes, text: attributes.get('value') ?? 'Submit' }, attributes);
        } else if (inputName && !NOT_SUBMITTED.has(type)) {
          const checkable = type === 'checkbox' || type === 'radio';
          let value = attributes.get('value') ?? (checkable ? 'on' : '');
          if (SINGLE_LINE.has(type)) value = value.replace(/[\r\n]/g, '');
          if (type === 'url' || type === 'email') value = value.trim();
          if (type === 'hidden' && inputName.toLowerCase() === '_charset_' && !value) value = 'UTF-8';
          const checked = attributes.has('checked');
          add({ kind: 'value', name: inputName, type, value, checkable, checked }, attributes);
        }
        break;
      }
      case 'button': {
        const type = (attributes.get('type') ?? 'submit').toLowerCase();
        if (disabled || type === 'reset' || type === 'button') break;
        button = { kind: 'button', attributes, text: '' };
        add(button, attributes);
        break;
      }
      case 'select': {
        closeOption();
        select = {
          kind: 'select',
          name: attributes.get('name') ?? '',
          multiple: attributes.has('multiple'),
          options: [],
        };
        if (!disabled && select.name) add(select, attributes);
        break;
      }
      case 'optgroup':
        closeOption();
        optgroupDisabled = disabled;
        break;
      case 'option':
        closeOption();
        if (select) option = { attributes, text: '', inDisabledGroup: optgroupDisabled };
        break;
      case 'textarea':
        textarea = { attributes, text: '' };
        break;
    }
  }
  closeOption();
  if (textarea) addTextarea(textarea.attributes, textarea.text);

  function addTextarea(attributes: ReadonlyMap<string, string>, text: string) {
    const textareaName = attributes.get('name');
    if (!textareaName || attributes.has('disabled')) return;
    // The parser drops one newline right after `<textarea>`.
    const value = text.startsWith('\n') ? text.slice(1) : text;
    add(
      { kind: 'value', name: textareaName, type: 'textarea', value, checkable: false, checked: false },
      attributes,
    );
  }

  const byId = new Map<string, FormBuilder>();
  for (const form of forms) {
    const id = form.attributes.get('id');
    if (id && !byId.has(id)) byId.set(id, form);
  }
  for (const { control, parent, formId } of owned) {
    const owner = formId !== undefined ? byId.get(formId) : parent;
    owner?.controls.push(control);
  }
  const base = resolve(baseHref ?? '', documentUrl) ?? documentUrl;
  return forms.map((form) => buildForm(form, documentUrl, base));
}

function toButton(
  control: Extract<Control, { kind: 'button' }>,
  documentUrl: string,
  base: string,
): HtmlFormButton {
  const { attributes } = control;
  const formAction = attributes.get('formaction');
  const formMethod = attributes.get('formmethod');
  const formEnctype = attributes.get('formenctype');
  return {
    name: attributes.get('name') ?? '',
    value: attributes.get('value') ?? '',
    text: collapseWhitespace(control.text),
    ...(formAction ? { formAction: resolveAction(formAction, documentUrl, base) } : {}),
    ...(formMethod !== undefined ? { formMethod: normaliseMethod(formMethod) } : {}),
    ...(formEnctype !== undefined ? { formEnctype: normaliseEnctype(formEnctype) } : {}),
  };
}

function buildForm(form: FormBuilder, documentUrl: string, base: string): HtmlForm {
  // A Map, so that a control named `__proto__` is a field like any other.
  const fields = new Map<string, string[]>();
  const controls: HtmlFormControl[] = [];
  const buttons: HtmlFormButton[] = [];
  const push = (name: string, value: string) => {
    const list = fields.get(name);
    if (list) list.push(value);
    else fields.set(name, [value]);
  };
  // Of several checked radios with one name, the last one parsed stays checked.
  const lastRadio = new Map<string, Control>();
  for (const control of form.controls) {
    if (control.kind === 'value' && control.type === 'radio' && control.checked)
      lastRadio.set(control.name, control);
  }
  for (const control of form.controls) {
    if (control.kind === 'button') {
      buttons.push(toButton(control, documentUrl, base));
    } else if (control.kind === 'select') {
      controls.push({ name: control.name, type: control.multiple ? 'select-multiple' : 'select-one' });
      for (const selected of selectedOptions(control)) push(control.name, selected.value);
    } else {
      controls.push({ name: control.name, type: control.type });
      if (!control.checkable) push(control.name, control.value);
      else if (control.type === 'checkbox' ? control.checked : lastRadio.get(control.name) === control) {
        push(control.name, control.value);
      }
    }
  }
  const id = form.attributes.get('id');
  const name = form.attributes.get('name');
  return {
    documentUrl,
    ...(id !== undefined ? { id } : {}),
    ...(name !== undefined ? { name } : {}),
    action: resolveAction(form.attributes.get('action') ?? '', documentUrl, base),
    method: normaliseMethod(form.attributes.get('method') ?? 'get'),
    enctype: normaliseEnctype(form.attributes.get('enctype') ?? ''),
    fields: Object.fromEntries(fields),
    buttons,
    controls,
  };
}

/** @see https://html.spec.whatwg.org/multipage/form-elements.html#selectedness-setting-algorithm */
function selectedOptions(select: Extract<Control, { kind: 'select' }>): Option[] {
  const chosen = select.multiple
    ? select.options.filter((option) => option.selected)
    : [
        select.options.findLast((option) => option.selected) ??
          select.options.find((option) => !option.disabled),
      ];
  return chosen.filter((option): option is Option => option !== undefined && !option.disabled);
}

/** An empty action submits to the page itself (not to the base URL). */
function resolveAction(action: string, documentUrl: string, base: string): string {
  if (!action.trim()) return documentUrl;
  return resolve(action.trim(), base) ?? action;
}

function resolve(href: string, base: string): string | undefined {
  if (!href) return undefined;
  try {
    return new URL(href, base).href;
  } catch {
    return undefined;
  }
}

function normaliseMethod(method: string): 'GET' | 'POST' {
  return method.trim().toLowerCase() === 'post' ? 'POST' : 'GET';
}

function normaliseEnctype(enctype: string): string {
  const lower = enctype.trim().toLowerCase();
  return ENCTYPES.includes(lower) ? lower : 'application/x-www-form-urlencoded';
}

function collapseWhitespace(text: string): string {
  return text.replace(/[\t\n\f\r ]+/g, ' ').trim();
}
