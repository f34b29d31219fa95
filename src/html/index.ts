/**
 * Web ingestion, public entry points. Main text (seed 000, src/html/maintext.ts): {@link htmlToRecord}
 * turns one saved page into the record `filmkw tag` reads; {@link listHtmlPages} lists the pages of a
 * file or directory in a deterministic order. List-page records (seed 002) live in src/html/records.ts.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileKind, HTML_PAGE, walkFiles } from '../util/files.js';
import { readPage, type PageReadOptions } from './read.js';
import { FilmkwError, inputError } from '../errors.js';
import { mainTextOfBytes, type MainTextOptions } from './maintext.js';

export { decodeHtml, DECODE_DEFAULTS, type DecodedHtml } from './decode.js';
export { NESTING_DEFAULTS } from './depth.js';
export { PAGE_MAX_BYTES_RANGE, PAGE_READ_DEFAULTS, readPage, type PageReadOptions } from './read.js';
export { extractMainText, mainTextOfBytes, MAINTEXT_DEFAULTS, type MainText, type MainTextOptions } from './maintext.js';

/** One page as a text record (JSONL line of `filmkw html text`). */
export interface HtmlTextRecord {
  id: string;
  url?: string;
  title: string;
  text: string;
  author?: string;
  date?: string;
  /**
   * What the decoder noticed on a page that still has main text: no `</body>`/`</html>` at the end (the
   * page may be truncated and the text incomplete), a declared charset that does not fit the bytes, a
   * few undecodable bytes. Absent when there is nothing to say.
   */
  warning?: string;
}

/** A page that could not be read or has no main text. */
export interface HtmlErrorRecord {
  id: string;
  error: string;
}

/**
 * One page → `{id, url?, title, text, author?, date?, warning?}`, or `{id, error}` for a bad page (unreadable,
 * empty, not HTML, wrong encoding, no main text / truncated). Never throws for a page problem.
 * `src` is a file path or the page bytes; `id` defaults to the path.
 */
export async function htmlToRecord(src: string | Uint8Array, id?: string, opts: MainTextOptions & PageReadOptions = {}): Promise<HtmlTextRecord | HtmlErrorRecord> {
  const rid = id ?? (typeof src === 'string' ? src : 'page');
  let bytes: Uint8Array;
  if (typeof src === 'string') {
    try {
      bytes = await readPage(src, rid, 'html', opts);
    } catch (err) {
      if (err instanceof FilmkwError) return { id: rid, error: err.message };
      return { id: rid, error: `html: ${rid}: cannot read: ${(err as Error).message}` };
    }
  } else bytes = src;
  return htmlBytesToRecord(bytes, rid, opts);
}

/** Synchronous form of {@link htmlToRecord} for bytes already read. */
export function htmlBytesToRecord(bytes: Uint8Array, id: string, opts: MainTextOptions = {}): HtmlTextRecord | HtmlErrorRecord {
  try {
    const r = mainTextOfBytes(bytes, { ...opts, path: id });
    const rec: HtmlTextRecord = { id, ...(r.url ? { url: r.url } : {}), title: r.title, text: r.text };
    if (r.author) rec.author = r.author;
    if (r.date) rec.date = r.date;
    if (r.warnings.length) rec.warning = r.warnings.map((w) => w.replace(/^html: [^:]*: /, '')).join('; ');
    return rec;
  } catch (err) {
    if (err instanceof FilmkwError) return { id, error: err.message };
    return { id, error: `html: ${id}: ${(err as Error).message}` };
  }
}

/**
 * The pages of a path: the file itself (id = its base name), or every `*.html`/`*.htm` file under a
 * directory, recursively, sorted by relative path (id = that path, `/`-separated). Throws INPUT when the
 * path does not exist or is neither a file, a directory nor a pipe (`/dev/zero`); `cmd` prefixes the message.
 */
export async function listHtmlPages(path: string, cmd = 'html'): Promise<{ path: string; id: string; problem?: string }[]> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw inputError(`${cmd}: ${path}: ${code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`, err);
  }
  if (!st.isDirectory()) {
    if (!st.isFile() && !st.isFIFO()) throw inputError(`${cmd}: ${path}: not an HTML file, a directory of pages or a pipe (${fileKind(st)})`);
    return [{ path, id: basename(path) }];
  }
  // symlinked directories are followed (each real directory once); a symlink loop, a dangling link or an
  // unreadable directory comes back with its `problem`, which the callers turn into an error record
  let out: { path: string; id: string; problem?: string }[];
  try {
    out = walkFiles(path, { filter: (name) => HTML_PAGE.test(name) }).map((f) => (f.problem ? { path: f.path, id: f.rel, problem: f.problem } : { path: f.path, id: f.rel }));
  } catch (err) {
    throw inputError(`${cmd}: ${path}: cannot read the directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, err);
  }
  out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return out;
}
