// DOM helpers: every piece of user or server text goes in as a text node (never as HTML).
type Child = Node | string | number | null | undefined | false;

/** Create an element with attributes (strings; `class` included) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | undefined> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, v);
  append(el, ...children);
  return el;
}

export function append(el: Element | DocumentFragment, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'number' ? String(c) : c);
  }
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el as T;
}

export function clear(el: Element): void {
  el.replaceChildren();
}

/** Error of an API call: the server's message and the request field it names. */
export class ApiError extends Error {
  constructor(message: string, readonly field?: string) {
    super(message);
  }
}

/** Call the JSON API; a non-2xx answer becomes an ApiError with the server's message. */
export async function api<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, body === undefined ? {} : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  let data: unknown;
  try {
    data = await res.json();
  } catch {
    throw new ApiError(`${path}: the server answered ${res.status} without JSON`);
  }
  if (!res.ok) {
    const e = data as { error?: string; field?: string };
    throw new ApiError(e.error ?? `${path}: HTTP ${res.status}`, e.field);
  }
  return data as T;
}

const FIELD_INPUTS: Record<string, string> = { text: 'text', preset: 'preset', topK: 'topk', options: 'options', gold: 'gold', 'presets[0]': 'preset-a', 'presets[1]': 'preset-b', 'presets[2]': 'preset-c', 'presets[3]': 'preset-d', q: 'kg-query', name: 'kg-query' };

/** Show an error in the page (and mark the input of the field it names); null clears it. */
export function showError(err: unknown): void {
  const box = byId('error');
  for (const el of document.querySelectorAll('.invalid')) el.classList.remove('invalid');
  if (err === null) {
    box.hidden = true;
    clear(box);
    return;
  }
  const message = err instanceof Error ? err.message : String(err);
  const field = err instanceof ApiError ? err.field : undefined;
  box.replaceChildren(field ? `${field}: ${message}` : message);
  box.hidden = false;
  const input = field ? FIELD_INPUTS[field] : undefined;
  if (input) document.getElementById(input)?.classList.add('invalid');
}

/** Kind class of a keyword/node: its entity kind, `phrase` (multi-token) or `word`. */
export function kindOf(k: { kind?: string; explain?: { phrase?: unknown } }, phrase = false): string {
  return k.kind ?? (phrase || k.explain?.phrase ? 'phrase' : 'word');
}

export const KIND_COLOURS: Record<string, string> = {
  Movie: '#d9480f',
  Person: '#1971c2',
  Character: '#2b8a3e',
  Genre: '#9c36b5',
  phrase: '#b35c00',
  word: '#868e96',
};

export function chip(text: string, kind: string): HTMLElement {
  return h('span', { class: `chip kind-${kind}` }, text);
}

export const fmt = (x: number | undefined): string => (x === undefined ? '–' : Number.isInteger(x) ? String(x) : Math.abs(x) >= 100 ? x.toFixed(1) : Math.abs(x) >= 1 ? x.toFixed(3) : x.toPrecision(3));

/**
 * Run `work` as a busy step: the `buttons` disabled, `progress` shown with `label` and the seconds so far
 * (an indeterminate bar: one request has no steps to count), the element `dim` marked as out of date
 * until the work ends. Everything is restored however the work ends.
 */
export async function busy<T>(what: { buttons: readonly string[]; progress: HTMLElement; label: string; dim?: HTMLElement }, work: () => Promise<T>): Promise<T> {
  const buttons = what.buttons.map((id) => byId<HTMLButtonElement>(id));
  for (const b of buttons) b.disabled = true;
  const t0 = performance.now();
  const text = h('span', {}, `${what.label}…`);
  what.progress.replaceChildren(h('progress', {}), ' ', text);
  what.progress.hidden = false;
  what.dim?.classList.add('stale');
  const timer = setInterval(() => (text.textContent = `${what.label}… ${Math.round((performance.now() - t0) / 1000)} s`), 1000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    for (const b of buttons) b.disabled = false;
    what.progress.hidden = true;
    what.progress.replaceChildren();
    what.dim?.classList.remove('stale');
  }
}

/**
 * The latest of a kind of request: `start()` returns a ticket, `current(ticket)` whether no newer request
 * started since. An answer that arrives after a newer request started is dropped, so a view never shows
 * the answer to an input it no longer has.
 */
export class Latest {
  private n = 0;
  start(): number {
    return ++this.n;
  }
  current(ticket: number): boolean {
    return ticket === this.n;
  }
}
