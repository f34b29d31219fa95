/**
 * `filmkw html records`: list / result page → one JSON record per data record (seed 002).
 *
 * Pages are decoded, then the record blocks are found either on the rendered layout (src/html/vips.ts
 * through headless Chromium, src/html/render.ts) or, when no browser is there, by DOM similarity
 * (src/html/structural.ts). Each record block becomes fields: Douban film fields when it links a
 * `/subject/<id>/` (src/html/douban-fields.ts), else a generic record (first link, text).
 *
 * Decoding is src/html/decode.ts. Never throws for a bad page: empty, not HTML, undecodable or wrong declared encoding give an error
 * record `{id, error}` (id = the page's path, as `html text` writes; `error` one line of text); a truncated page keeps its complete records and marks them.
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileKind, walkFiles } from '../util/files.js';
import type { Element } from 'domhandler';
import { FilmkwError, inputError } from '../errors.js';

export { decodeHtml };
import { decodeHtml } from './decode.js';
import { NESTING_DEFAULTS } from './depth.js';
import { PAGE_READ_DEFAULTS, readPage } from './read.js';
import { doubanListRecord, type FilmRecord } from './douban-fields.js';
import { findRecordsStructural, parseHtml, parseHtmlCapped, textOf, type StructuralOptions } from './structural.js';

export type RecordsMode = 'auto' | 'rendered' | 'structural';

/** Where Debian's chromium lives (the only browser we drive; never a download). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const chromiumAvailable = (path = CHROMIUM_PATH): boolean => existsSync(path);

export interface PageRecord extends Partial<FilmRecord> {
  file: string;
  mode: 'rendered' | 'structural';
  /** 1-based position of the record on the page. */
  n: number;
  kind: 'douban-movie' | 'generic';
  title?: string;
  url?: string;
  text: string;
  warning?: string;
}

/** A page that cannot be read: the documented `{id, error}` shape of every error record. */
export interface PageError {
  id: string;
  error: string;
}

/** One line of an error message: no ANSI colour codes, no call log after the first line (Playwright's). */
export const oneLineMessage = (m: string): string =>
  m
    .replace(/\u001b\[[0-9;]*[A-Za-z]/gu, '')
    .split('\n')[0]!
    .trim();

export interface PageEmpty {
  file: string;
  mode: 'rendered' | 'structural';
  n: 0;
  empty: true;
  reason: string;
}

export type RecordsLine = PageRecord | PageError | PageEmpty;

export interface PageResult {
  file: string;
  mode: 'rendered' | 'structural';
  lines: RecordsLine[];
  /** Records found (0 for error / empty pages). */
  records: number;
  ms: number;
}

/** Finds record blocks on a page (rendered mode): implemented in src/html/render.ts. */
export interface RecordRenderer {
  /** Returns the outer HTML of each record block, in page order. */
  recordBlocks(html: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface RecordsOptions {
  /** `auto`: rendered when {@link CHROMIUM_PATH} exists, else structural. @default 'auto' */
  mode: RecordsMode;
  /** Overrides of {@link STRUCTURAL_DEFAULTS} for the structural finder. @default {} */
  structural: Partial<StructuralOptions>;
  /** Text kept per generic record, characters. @default 400 */
  maxText: number;
  /** Largest page read, bytes (src/html/read.ts; the crawler's cap). @default 5242880 */
  maxBytes: number;
}

export const RECORDS_DEFAULTS: Readonly<RecordsOptions> = Object.freeze({ mode: 'auto', structural: Object.freeze({}), maxText: 400, maxBytes: PAGE_READ_DEFAULTS.maxBytes });

/** Turns one record element into its output line. */
export function recordLine(el: Element, file: string, mode: PageRecord['mode'], n: number, maxText: number): PageRecord {
  const text = textOf(el);
  const film = doubanListRecord(el);
  if (film && film.title) {
    const { subjectId, url, title, ...rest } = film;
    const out: PageRecord = { file, mode, n, kind: 'douban-movie', subjectId, url, title, ...rest, text: text.slice(0, maxText) };
    if (subjectId === undefined) delete out.subjectId;
    return out;
  }
  const out: PageRecord = { file, mode, n, kind: 'generic', text: text.slice(0, maxText) };
  const a = findFirstLink(el);
  if (a) {
    const t = textOf(a);
    if (t) out.title = t;
    if (a.attribs.href) out.url = a.attribs.href;
  }
  return out;
}

function findFirstLink(el: Element): Element | undefined {
  if (el.name === 'a' && el.attribs.href) return el;
  for (const c of el.children) {
    if (c.type === 'tag' || c.type === 'script' || c.type === 'style') {
      const f = findFirstLink(c as Element);
      if (f) return f;
    }
  }
  return undefined;
}

/** A page without `</body>` or `</html>` in its last 4 KB. */
export function looksTruncated(html: string): boolean {
  const tail = html.slice(-4096);
  return !/<\/(?:body|html)\s*>/i.test(tail);
}

/** Extracts the records of one decoded page. */
export async function recordsOfHtml(
  html: string,
  file: string,
  opts: Partial<RecordsOptions> & { renderer?: RecordRenderer | null } = {},
): Promise<RecordsLine[]> {
  const o = { ...RECORDS_DEFAULTS, ...opts };
  const truncated = looksTruncated(html);
  let els: Element[];
  let mode: PageRecord['mode'];
  let dropped = 0;
  if (opts.renderer) {
    mode = 'rendered';
    const blocks = await opts.renderer.recordBlocks(html);
    els = blocks.map((b) => {
      const d = parseHtml(b);
      return d.children.find((c): c is Element => c.type === 'tag') as Element;
    }).filter((e) => e !== undefined);
  } else {
    mode = 'structural';
    const { doc, depth } = parseHtmlCapped(html);
    dropped = depth.dropped;
    els = findRecordsStructural(doc, o.structural).records;
  }
  if (els.length === 0) {
    return [{ file, mode, n: 0, empty: true, reason: truncated ? 'no record blocks (page truncated)' : 'no group of similar record blocks' }];
  }
  return els.map((e, i) => {
    const r = recordLine(e, file, mode, i + 1, o.maxText);
    const warnings = [];
    if (truncated) warnings.push('page truncated (no </body> or </html>): later records may be missing');
    if (dropped) warnings.push(`elements nested deeper than ${NESTING_DEFAULTS.maxDepth} levels: ${dropped} start tag(s) below that depth ignored, their text kept`);
    if (warnings.length) r.warning = warnings.join('; ');
    return r;
  });
}

/** Reads, decodes and extracts one page file; bad pages give an error line. */
export async function recordsOfFile(path: string, display: string, opts: Partial<RecordsOptions> & { renderer?: RecordRenderer | null } = {}): Promise<PageResult> {
  const t0 = performance.now();
  const mode: PageResult['mode'] = opts.renderer ? 'rendered' : 'structural';
  let lines: RecordsLine[];
  try {
    const bytes = await readPage(path, display, 'html records', { maxBytes: opts.maxBytes ?? RECORDS_DEFAULTS.maxBytes, flag: '--max-bytes' });
    const { html } = decodeHtml(bytes, { path: display });
    lines = await recordsOfHtml(html, display, opts);
  } catch (err) {
    if (err instanceof FilmkwError) lines = [{ id: display, error: oneLineMessage(err.message) }];
    else lines = [{ id: display, error: `html records: ${display}: ${oneLineMessage((err as Error).message)}` }];
  }
  const records = lines.filter((l) => 'kind' in l).length;
  return { file: display, mode, lines, records, ms: performance.now() - t0 };
}

/** The page files of a path: the file itself, or the *.html / *.htm files under a directory (recursive, sorted). */
export async function listPages(path: string): Promise<{ path: string; display: string; problem?: string }[]> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    throw inputError(`html records: ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`, err);
  }
  if (!st.isDirectory()) {
    if (!st.isFile() && !st.isFIFO()) throw inputError(`html records: ${path}: not an HTML file, a directory of pages or a pipe (${fileKind(st)})`);
    return [{ path, display: basename(path) }];
  }
  // a symlink loop, a dangling link or an unreadable directory is listed with its problem (an error line
  // or a skip with the reason for the caller), never an exception that ends the run
  try {
    return walkFiles(path, { filter: (name) => /\.html?$/i.test(name) }).map((f) => (f.problem ? { path: f.path, display: f.rel, problem: f.problem } : { path: f.path, display: f.rel }));
  } catch (err) {
    throw inputError(`html records: ${path}: cannot read the directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, err);
  }
}

/** Chooses the mode; `note` explains a fallback (for stderr). */
export function resolveMode(mode: RecordsMode, chromiumPath = CHROMIUM_PATH): { mode: 'rendered' | 'structural'; note?: string } {
  if (mode === 'structural') return { mode };
  if (chromiumAvailable(chromiumPath)) return { mode: 'rendered' };
  if (mode === 'rendered') throw inputError(`html records: --mode rendered needs Debian's chromium at ${chromiumPath} (apt-get install chromium)`);
  return { mode: 'structural', note: `html records: ${chromiumPath} not found, using the structural mode (DOM similarity, no layout); install Debian's chromium for the rendered mode` };
}
