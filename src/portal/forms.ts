import type { SafeHtml } from './html.js';
import { html } from './html.js';

// Form pieces: the CSRF field every POST form carries, and labelled fields whose inline error is
// tied to the input with aria-describedby and aria-invalid.

/** The hidden `_csrf` input; the plugin refuses a POST without the session's token. */
export function csrfField(view: { readonly csrfToken: string }): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${view.csrfToken}" />`;
}

export interface FieldOptions {
  readonly name: string;
  readonly label: string;
  readonly value?: string;
  readonly type?: 'text' | 'email' | 'password' | 'number' | 'tel' | 'url' | 'search' | 'date';
  readonly error?: string;
  readonly hint?: string;
  readonly required?: boolean;
  readonly autocomplete?: string;
  /** Extra attributes such as min, max, step, inputmode (values are escaped). */
  readonly attributes?: Readonly<Record<string, string | number>>;
}

function fieldId(name: string): string {
  return `field-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

function describedBy(id: string, options: { error?: string; hint?: string }): SafeHtml {
  const ids = [
    options.hint === undefined ? undefined : `${id}-hint`,
    options.error === undefined ? undefined : `${id}-error`,
  ].filter((x) => x !== undefined);
  return ids.length === 0 ? html`` : html` aria-describedby="${ids.join(' ')}"`;
}

function notes(id: string, options: { error?: string; hint?: string }): SafeHtml {
  return html`${options.hint === undefined ? '' : html`<p class="hint" id="${id}-hint">${options.hint}</p>`}${
    options.error === undefined
      ? ''
      : html`<p class="error" id="${id}-error" role="alert">${options.error}</p>`
  }`;
}

export function textField(options: FieldOptions): SafeHtml {
  const id = fieldId(options.name);
  const extra = Object.entries(options.attributes ?? {}).map(
    ([name, value]) => html` ${name}="${String(value)}"`,
  );
  return html`<div class="field${options.error === undefined ? '' : ' has-error'}">
    <label for="${id}">${options.label}</label>
    <input
      id="${id}"
      name="${options.name}"
      type="${options.type ?? 'text'}"
      value="${options.value ?? ''}"
      ${
        options.required === true ? html` required` : ''
      }${options.autocomplete === undefined ? '' : html` autocomplete="${options.autocomplete}"`}${
        options.error === undefined ? '' : html` aria-invalid="true"`
      }${describedBy(id, options)}${extra}
    />
    ${notes(id, options)}
  </div>`;
}

export interface SelectOptions {
  readonly name: string;
  readonly label: string;
  readonly options: readonly (string | { value: string; label: string })[];
  readonly value?: string;
  readonly error?: string;
  readonly hint?: string;
}

export function selectField(options: SelectOptions): SafeHtml {
  const id = fieldId(options.name);
  const items = options.options.map((o) => {
    const item = typeof o === 'string' ? { value: o, label: o } : o;
    return html`<option
      value="${item.value}"
      ${item.value === options.value ? html` selected` : ''}
    >
      ${item.label}
    </option>`;
  });
  return html`<div class="field${options.error === undefined ? '' : ' has-error'}">
    <label for="${id}">${options.label}</label>
    <select
      id="${id}"
      name="${options.name}"
      ${options.error === undefined ? '' : html` aria-invalid="true"`}${describedBy(id, options)}
    >
      ${items}
    </select>
    ${notes(id, options)}
  </div>`;
}

/** A form-level error (one not tied to a field). */
export function formError(message: string | undefined): SafeHtml {
  return message === undefined
    ? html``
    : html`<p class="error form-error" role="alert">${message}</p>`;
}

/** A small POST form with one button (remove, resend, rotate); `confirm` asks first with JS. */
export function actionForm(
  view: { readonly csrfToken: string },
  action: string,
  label: string,
  options: { confirm?: string; fields?: Readonly<Record<string, string>>; danger?: boolean } = {},
): SafeHtml {
  const hidden = Object.entries(options.fields ?? {}).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  );
  return html`<form
    method="post"
    action="${action}"
    class="inline"
    ${options.confirm === undefined ? '' : html` data-confirm="${options.confirm}"`}
  >
    ${csrfField(view)}${hidden}<button
      type="submit"
      ${options.danger === true ? html` class="danger"` : ''}
    >
      ${label}
    </button>
  </form>`;
}

/** A field of a posted form as text ('' when absent; the first value when repeated). */
export function formValue(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value = (body as Record<string, unknown>)[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return '';
}
