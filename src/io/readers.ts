/**
 * Streaming input readers for `filmkw tag`: JSON lines, CSV, TSV and plain text, from a file or stdin.
 *
 * Every reader yields, in input order, one {@link InputRecord} per record: a document
 * `{line, id, text}` or an error record `{line, id?, error}` for a record it cannot read. Nothing is
 * dropped and nothing is loaded whole: the input is read in chunks (lines.ts), so memory is bounded by
 * the longest record (capped by `maxRecordBytes`).
 *
 * Shared rules (lines.ts): a UTF-8 BOM at the start is removed; CRLF reads like LF; blank lines (only
 * white space) are not records; line numbers are physical 1-based lines (`sed -n Np` shows the record;
 * for a multi-line CSV row, the line it starts on). Invalid UTF-8 is replaced by U+FFFD and the record
 * is still a document (decision: a few bad bytes in a long review should not cost the whole review; the
 * number of such records is reported in {@link ReadStats.invalidUtf8}). A line longer than
 * `maxRecordBytes` becomes an error record without being buffered.
 *
 * Formats:
 * - `jsonl`: one JSON object per non-blank line. The text is the value at `textField` (a dotted path,
 *   default `text`; a key that itself contains dots is tried first); it may be a string or an array of
 *   strings, joined with "\n". The id is the value at `idField` (string or number, or a one-element array
 *   of one, as scraped data often has); without `idField` it is the record's own `id` field when that is
 *   a string or a number (as `filmkw eval` reads gold files), else the line number. Invalid JSON, a line
 *   that is not an object, a missing field or a field of the wrong type is an error record naming the
 *   field. The document context (`filmField`, `titleField`, dotted paths; also for `json`) is optional per
 *   record: a missing, null or blank value gives a document without it; a value of the wrong type (an
 *   object) is an error record naming the field.
 * - `csv`: RFC 4180 with a header row (csv.ts); `textField`/`idField`/`filmField`/`titleField` are column
 *   names (default text column `text`; a blank film or title cell: none). A column that is not in the header is an input error for the whole file (thrown, not
 *   a record per row).
 * - `tsv`: header row, TAB-separated, no quoting (csv.ts).
 * - `txt`: every non-blank line is a document; id = line number; no fields.
 * - `html`: saved web pages — a file, or a directory read recursively for `*.html`/`*.htm` in sorted
 *   path order (src/html/index.ts listHtmlPages). One record per page: id = the path relative to the
 *   directory (the file's base name for a single file), text = the main text (src/html/maintext.ts, the
 *   same text `filmkw html text` writes), `line` = the page's 1-based position. A bad page (empty, not
 *   HTML, wrong encoding, no main text, larger than `maxRecordBytes`) is an error record. stdin is one
 *   page (id `stdin`). No fields.
 */
import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import { inputError, usageError } from '../errors.js';
import iconv from 'iconv-lite';
import { DEFAULT_MAX_RECORD_BYTES, splitLines, type RawLine } from './lines.js';
import { parseCsvRows, parseTsvRows, type CsvRow } from './csv.js';
import { arrayElements, FieldCheck, peekFirstChar } from './json.js';
import { HTML_PAGE, readCapped, walkFiles, type WalkedFile } from '../util/files.js';

export const INPUT_FORMATS = ['jsonl', 'json', 'csv', 'tsv', 'txt', 'html'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/**
 * A document or an error record, with its 1-based physical line. A document may carry its context
 * (`filmField`, `titleField`): the film it is about and its title, absent when the record has none.
 */
export type InputRecord = { line: number; id: string; text: string; film?: string; title?: string } | { line: number; id?: string; error: string };

/** Options of {@link readRecords}. */
export interface ReaderOptions {
  format: InputFormat;
  /** Field path (jsonl) or column name (csv/tsv) of the text. @default 'text' */
  textField?: string;
  /** Field path / column name of the id; absent: the line number is the id. */
  idField?: string;
  /**
   * Field path / column name of the film each text is about (a Douban id, a Douban subject URL or a film
   * name; a string or a number); absent: none. A record without a value has no film (not an error).
   */
  filmField?: string;
  /** Field path / column name of each text's title (a string or an array of strings, joined); absent: none. */
  titleField?: string;
  /**
   * `txt` and `jsonl`: called with the line of each record whose id is its line number because the input
   * gave it none (every txt record; a jsonl record without its own id, or unreadable, without --id-field).
   */
  onLineId?: (line: number) => void;
  /** Largest line (and CSV record) in bytes; longer ones become error records. @default DEFAULT_MAX_RECORD_BYTES (16777216) */
  maxRecordBytes?: number;
  /** Progress: bytes read so far. */
  onBytes?: (bytes: number) => void;
  /** `json`: told once what the input holds (`tag: x.json: one JSON array; one record per element`). */
  onNote?: (message: string) => void;
  /** Statistics filled while reading. */
  stats?: ReadStats;
  /**
   * Character encoding of the input (an iconv-lite name: `gbk`, `gb18030`, `utf-16le`, `big5`…).
   * Absent: UTF-8, or UTF-16 LE/BE when the input starts with its byte-order mark.
   */
  encoding?: string;
}

/** Counters filled by a reader as it goes. */
export interface ReadStats {
  /** Records whose text had invalid UTF-8 (replaced by U+FFFD). */
  invalidUtf8: number;
  /** Records read (documents and error records), to tell what share was invalid. */
  records?: number;
  /** The encoding the input was decoded from (`utf-8`, or a BOM-detected / given one). */
  encoding?: string;
  /** `txt` and `jsonl`: physical lines read so far, blank ones included (after decoding). */
  lines?: number;
}

/** Share of records with invalid UTF-8 above which the input is reported as probably not UTF-8. */
export const INVALID_SHARE_WARNING = 0.1;

/**
 * The warning for an input whose records are largely invalid UTF-8 (likely another encoding), or
 * undefined. Only for inputs read as UTF-8 with at least 3 bad records.
 */
export function encodingWarning(stats: ReadStats, cmd = 'tag'): string | undefined {
  const n = stats.records ?? 0;
  if (n === 0 || stats.invalidUtf8 < 3 || stats.invalidUtf8 / n < INVALID_SHARE_WARNING || (stats.encoding ?? 'utf-8') !== 'utf-8') return undefined;
  const pct = Math.round((100 * stats.invalidUtf8) / n);
  return `${cmd}: WARNING: ${stats.invalidUtf8} of ${n} records (${pct}%) are not valid UTF-8: the input is probably in another encoding (GBK, GB18030, Big5, UTF-16 without a byte-order mark…) and its text was tagged as garbage; pass --encoding <name> (e.g. --encoding gbk)`;
}

/** Checks an encoding name (iconv-lite); usage error otherwise. */
export function checkEncoding(name: string): string {
  const n = name.trim().toLowerCase();
  if (!iconv.encodingExists(n)) throw usageError(`tag: unknown --encoding ${JSON.stringify(name)} (an iconv-lite name such as utf-8, gbk, gb18030, big5, utf-16le, utf-16be, shift_jis)`);
  return n;
}

/**
 * Bytes → UTF-8: the input as it comes when it is UTF-8 (the line splitter decodes it and counts invalid
 * bytes); else decoded with iconv-lite from `encoding`, or from the UTF-16 encoding its BOM names.
 */
async function* toUtf8(source: AsyncIterable<Uint8Array | string>, encoding: string | undefined, stats: ReadStats | undefined): AsyncGenerator<Uint8Array | string> {
  type Decoder = { write(b: Buffer): string; end(): string | undefined };
  let decoder: Decoder | null = null;
  let first = true;
  let head: Buffer | null = null; // the first bytes, until two are there to look for a BOM (any chunking)
  for await (const raw of source) {
    if (typeof raw === 'string') {
      yield raw;
      continue;
    }
    let chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    if (first) {
      head = head ? Buffer.concat([head, chunk]) : Buffer.from(chunk);
      if (head.length < 2) continue;
      chunk = head;
      head = null;
      first = false;
      let enc = encoding;
      if (enc === undefined) {
        if (chunk.length >= 2 && chunk[0] === 0xff && chunk[1] === 0xfe) enc = 'utf-16le';
        else if (chunk.length >= 2 && chunk[0] === 0xfe && chunk[1] === 0xff) enc = 'utf-16be';
      }
      if (stats) stats.encoding = enc ?? 'utf-8';
      if (enc !== undefined && enc !== 'utf-8' && enc !== 'utf8') decoder = iconv.getDecoder(enc) as unknown as Decoder; // strips the BOM
    }
    if (decoder) {
      const s = decoder.write(chunk);
      if (s) yield s;
    } else yield chunk;
  }
  if (head) yield head; // a one-byte input
  const rest = decoder?.end();
  if (rest) yield rest;
}

/** Default text field / column. */
export const DEFAULT_TEXT_FIELD = 'text';

/** jsonl: the field used as the id when it is present and no `idField` is given. */
export const DEFAULT_ID_FIELD = 'id';

/** Format implied by a file extension, or undefined. */
export function inferFormat(path: string): InputFormat | undefined {
  const ext = extname(path).toLowerCase();
  switch (ext) {
    case '.jsonl':
    case '.ndjson':
      return 'jsonl';
    case '.json':
      return 'json';
    case '.csv':
      return 'csv';
    case '.tsv':
    case '.tab':
      return 'tsv';
    case '.txt':
    case '.text':
      return 'txt';
    case '.html':
    case '.htm':
      return 'html';
    default:
      return undefined;
  }
}

/**
 * The format of a folder given as INPUT: `html` when it holds saved pages (`*.html`, `*.htm`, at any
 * depth); else a usage error naming the kinds of file it holds and one to give instead.
 */
export function folderFormat(dir: string, cmd = 'tag'): InputFormat {
  let files: WalkedFile[];
  try {
    files = walkFiles(dir);
  } catch (err) {
    throw inputError(`${cmd}: ${dir}: cannot read the directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, err);
  }
  if (files.some((f) => HTML_PAGE.test(f.rel))) return 'html';
  const byExt = new Map<string, WalkedFile[]>();
  for (const f of files) {
    if (f.problem) continue;
    const ext = extname(f.rel).toLowerCase() || '(no extension)';
    byExt.set(ext, [...(byExt.get(ext) ?? []), f]);
  }
  const held = [...byExt.entries()].map(([ext, fs]) => `${fs.length} ${ext}`).join(', ');
  const order: InputFormat[] = ['jsonl', 'json', 'csv', 'tsv', 'txt'];
  const visible = files.filter((f) => !f.problem && !f.rel.split('/').some((part) => part.startsWith('.')));
  const readable = order.map((fmt) => visible.find((f) => inferFormat(f.rel) === fmt)).find((f) => f !== undefined);
  throw usageError(
    `${cmd}: ${dir} is a folder without web pages (.html, .htm), the only kind of file a folder input is read for; it holds ${held || 'no files'}${readable ? `: give one file as INPUT (e.g. ${cmd} ${readable.path})` : ''}`,
  );
}

/** Check a format name; usage error listing the valid ones. */
export function checkFormat(name: string): InputFormat {
  const f = name.trim().toLowerCase();
  if ((INPUT_FORMATS as readonly string[]).includes(f)) return f as InputFormat;
  throw usageError(`tag: unknown --format ${JSON.stringify(name)} (valid: ${INPUT_FORMATS.join(', ')})`);
}

/** A byte source: a file path, '-' for stdin, or any byte stream. */
export type ByteSource = string | AsyncIterable<Uint8Array | string>;

function openSource(source: ByteSource): AsyncIterable<Uint8Array | string> {
  if (typeof source !== 'string') return source;
  if (source === '-') return process.stdin;
  return createReadStream(source, { highWaterMark: 256 * 1024 });
}

/** Stream the records of an input (see module header). Throws FilmkwError('INPUT') for file-level problems. */
export async function* readRecords(source: ByteSource, opts: ReaderOptions): AsyncGenerator<InputRecord> {
  const max = opts.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const name = typeof source === 'string' ? (source === '-' ? 'stdin' : source) : 'input';
  if (opts.format === 'html') {
    if (opts.encoding !== undefined) throw usageError('tag: --encoding does not apply to --format html (pages are decoded from their BOM, HTTP-equiv or meta charset)');
    yield* htmlRecords(source, opts, max);
    return;
  }
  if (opts.stats) {
    // count every record for the invalid-UTF-8 share (see encodingWarning)
    const stats = opts.stats;
    for await (const r of readTextRecords(source, opts, max, name)) {
      stats.records = (stats.records ?? 0) + 1;
      yield r;
    }
    return;
  }
  yield* readTextRecords(source, opts, max, name);
}

async function* readTextRecords(source: ByteSource, opts: ReaderOptions, max: number, name: string): AsyncGenerator<InputRecord> {
  let bytes: AsyncIterable<Uint8Array | string>;
  try {
    bytes = toUtf8(openSource(source), opts.encoding, opts.stats);
  } catch (err) {
    throw inputError(`tag: cannot read ${name}: ${(err as Error).message}`, err);
  }
  const lines = (b: AsyncIterable<Uint8Array | string>) => splitLines(b, { maxLineBytes: max, onBytes: opts.onBytes });
  const stats = opts.stats;
  const countInvalid = (raw: RawLine) => {
    if (raw.invalidUtf8 && stats) stats.invalidUtf8++;
  };
  try {
    switch (opts.format) {
      case 'txt':
        if (opts.textField !== undefined || opts.idField !== undefined || hasContextFields(opts)) throw usageError('tag: --text-field, --id-field, --film-field and --title-field do not apply to --format txt (a record is a line; its id is the line number)');
        for await (const raw of lines(bytes)) {
          if (stats) stats.lines = raw.line;
          if (raw.tooLong) {
            opts.onLineId?.(raw.line);
            yield { line: raw.line, id: String(raw.line), error: tooLongMessage(raw, max) };
          } else if (raw.text.trim() !== '') {
            countInvalid(raw);
            opts.onLineId?.(raw.line);
            yield { line: raw.line, id: String(raw.line), text: raw.text };
          }
        }
        return;
      case 'jsonl':
        yield* jsonlRecords(lines(bytes), opts, max, name, countInvalid);
        return;
      case 'json': {
        // JSON lines or one JSON array: told by the first character
        const peek = await peekFirstChar(bytes);
        if (peek.first === '[') {
          opts.onNote?.(`tag: ${name}: one JSON array; one record per element`);
          yield* arrayRecords(decodeChars(peek.source, opts.onBytes), opts, max, name);
        } else {
          yield* jsonlRecords(lines(peek.source), opts, max, name, countInvalid, () => opts.onNote?.(`tag: ${name}: JSON lines; one record per line`));
        }
        return;
      }
      case 'csv':
      case 'tsv': {
        const header: { fields?: number } = {};
        const rows =
          opts.format === 'csv'
            ? parseCsvRows(lines(bytes), { maxRecordBytes: max, expectedFields: () => header.fields })
            : parseTsvRows(lines(bytes), { maxRecordBytes: max });
        yield* tableRecords(rows, opts, name, stats, header);
        return;
      }
      default:
        throw usageError(`tag: unknown format ${JSON.stringify(opts.format)} (valid: ${INPUT_FORMATS.join(', ')})`);
    }
  } catch (err) {
    if (isNodeFsError(err)) throw inputError(`tag: cannot read ${name}: ${(err as Error).message}`, err);
    throw err;
  }
}

/** The input line a record starts on (the field check names the lines it read). */
const recordLine = (r: InputRecord): number => r.line;

/**
 * `jsonl` (and a `.json` file of JSON lines): one object per non-blank line, through the text-field
 * check (json.ts FieldCheck). `fromJson` (a `.json` file, called once its first line is read as JSON): a
 * `.json` file whose first record is not one line of JSON holds one value over several lines, which is
 * neither format: an input error.
 */
async function* jsonlRecords(lines: AsyncIterable<RawLine>, opts: ReaderOptions, max: number, name: string, countInvalid: (raw: RawLine) => void, fromJson?: () => void): AsyncGenerator<InputRecord> {
  const textField = opts.textField ?? DEFAULT_TEXT_FIELD;
  const check = new FieldCheck<InputRecord>(textField, { source: name, cmd: 'tag', fieldWasGiven: opts.textField !== undefined, lineOf: recordLine });
  let first = fromJson !== undefined;
  for await (const raw of lines) {
    if (opts.stats) opts.stats.lines = raw.line;
    if (raw.tooLong) {
      yield* check.push(errorRecord(raw.line, opts.idField, tooLongMessage(raw, max), opts.onLineId), null, false);
      continue;
    }
    if (raw.text.trim() === '') continue;
    const parsed = parseObject(raw.text);
    if (first) {
      if ('error' in parsed && parsed.error.startsWith('invalid JSON')) throw inputError(`tag: ${name}:${raw.line}: holds one JSON value over several lines, neither JSON lines (one object per line) nor a JSON array of records (${parsed.error})`);
      fromJson!();
      first = false;
    }
    if ('error' in parsed) {
      yield* check.push(errorRecord(raw.line, opts.idField, parsed.error, opts.onLineId), null, false);
      continue;
    }
    const rec = objectRecord(parsed.object, raw.line, String(raw.line), textField, opts.idField, opts.onLineId, opts);
    if ('text' in rec) countInvalid(raw);
    yield* check.push(rec, parsed.object, getPath(parsed.object, textField) !== undefined);
  }
  yield* check.end();
}

/** One JSON array (json.ts arrayElements): one record per element; the default id is its position (1, 2, …). */
async function* arrayRecords(chars: AsyncIterable<string>, opts: ReaderOptions, max: number, name: string): AsyncGenerator<InputRecord> {
  const textField = opts.textField ?? DEFAULT_TEXT_FIELD;
  const check = new FieldCheck<InputRecord>(textField, { source: name, cmd: 'tag', fieldWasGiven: opts.textField !== undefined, lineOf: recordLine });
  let index = 0;
  for await (const el of arrayElements(chars, max)) {
    index++;
    const parsed = 'error' in el ? el : parseObject(el.text, 'element');
    if ('error' in parsed) {
      yield* check.push(opts.idField !== undefined ? { line: el.line, error: parsed.error } : { line: el.line, id: String(index), error: parsed.error }, null, false);
      continue;
    }
    const rec = objectRecord(parsed.object, el.line, String(index), textField, opts.idField, undefined, opts);
    if (opts.stats && 'text' in rec && rec.text.includes('\uFFFD')) opts.stats.invalidUtf8++;
    yield* check.push(rec, parsed.object, getPath(parsed.object, textField) !== undefined);
  }
  yield* check.end();
}

/** Bytes (UTF-8) or decoded strings → strings, counting the bytes read. A UTF-8 BOM is dropped. */
async function* decodeChars(source: AsyncIterable<Uint8Array | string>, onBytes?: (bytes: number) => void): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let read = 0;
  for await (const chunk of source) {
    if (typeof chunk === 'string') {
      yield chunk;
      continue;
    }
    read += chunk.byteLength;
    onBytes?.(read);
    yield decoder.decode(chunk, { stream: true });
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** `html` format: one record per saved page (see module header). The HTML modules load only here. */
async function* htmlRecords(source: ByteSource, opts: ReaderOptions, max: number): AsyncGenerator<InputRecord> {
  if (opts.textField !== undefined || opts.idField !== undefined || hasContextFields(opts)) throw usageError('tag: --text-field, --id-field, --film-field and --title-field do not apply to --format html (a record is a page; its id is its path)');
  const html = await import('../html/index.js');
  const toRecord = (line: number, id: string, bytes: Uint8Array): InputRecord => {
    if (bytes.byteLength > max) return { line, id, error: `page is larger than ${max} bytes (${bytes.byteLength} bytes); record skipped` };
    const r = html.htmlBytesToRecord(bytes, id);
    return 'error' in r ? { line, id, error: r.error } : { line, id, text: r.text };
  };
  let read = 0;
  if (typeof source !== 'string' || source === '-') {
    const chunks: Buffer[] = [];
    for await (const c of openSource(source)) {
      const b = typeof c === 'string' ? Buffer.from(c) : Buffer.from(c.buffer, c.byteOffset, c.byteLength);
      chunks.push(b);
      read += b.byteLength;
      opts.onBytes?.(read);
      if (read > max) {
        // the page is refused; the rest of stdin is not read (a page that never ends, `< /dev/zero`)
        yield { line: 1, id: 'stdin', error: `page is larger than ${max} bytes (more than ${max} bytes read); record skipped` };
        return;
      }
    }
    const all = Buffer.concat(chunks);
    yield toRecord(1, 'stdin', new Uint8Array(all.buffer, all.byteOffset, all.byteLength));
    return;
  }
  const pages = await html.listHtmlPages(source, 'tag');
  if (pages.length === 0) throw inputError(`tag: ${source}: no web pages (.html, .htm) in this folder to read as --format html`);
  for (let i = 0; i < pages.length; i++) {
    const p = pages[i]!;
    if (p.problem) {
      yield { line: i + 1, id: p.id, error: `skipped: ${p.problem}` };
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = await readCapped(p.path, max);
    } catch (err) {
      const m = (err as Error).message;
      yield { line: i + 1, id: p.id, error: m.startsWith('larger than the cap of') ? `page is ${m.replace('the cap of ', '')}; record skipped` : `cannot read ${p.id}: ${m}` };
      continue;
    }
    read += bytes.byteLength;
    opts.onBytes?.(read);
    yield toRecord(i + 1, p.id, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }
}

function isNodeFsError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/u.test(code) && typeof (err as NodeJS.ErrnoException).syscall === 'string';
}

function tooLongMessage(raw: RawLine, max: number): string {
  return `line is longer than ${max} bytes (${raw.bytes} bytes); record skipped`;
}

function errorRecord(line: number, idField: string | undefined, error: string, onLineId?: (line: number) => void): InputRecord {
  if (idField !== undefined) return { line, error };
  onLineId?.(line);
  return { line, id: String(line), error };
}

/** Value at a dotted path; a key that contains the dots literally wins. */
export function getPath(obj: unknown, path: string): unknown {
  if (obj === null || typeof obj !== 'object') return undefined;
  const o = obj as Record<string, unknown>;
  if (Object.prototype.hasOwnProperty.call(o, path)) return o[path];
  if (!path.includes('.')) return undefined;
  let cur: unknown = obj;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** Text of a field value: string, or array of strings joined with "\n"; else an error message. */
export function textValue(v: unknown, field: string): { text: string } | { error: string } {
  if (typeof v === 'string') return { text: v };
  if (v === undefined) return { error: `field "${field}" is missing` };
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if (typeof v[i] !== 'string') return { error: `field "${field}" is an array with ${typeName(v[i])} at index ${i}; expected a string or an array of strings` };
    }
    return { text: v.join('\n') };
  }
  return { error: `field "${field}" is ${typeName(v)}; expected a string or an array of strings` };
}

/** Id of a field value: string or finite number, or a one-element array of one; else an error message. */
export function idValue(v: unknown, field: string): { id: string } | { error: string } {
  if (typeof v === 'string') return { id: v };
  if (typeof v === 'number' && Number.isFinite(v)) return { id: String(v) };
  if (v === undefined) return { error: `id field "${field}" is missing` };
  if (Array.isArray(v) && v.length === 1 && (typeof v[0] === 'string' || (typeof v[0] === 'number' && Number.isFinite(v[0])))) return { id: String(v[0]) };
  return { error: `id field "${field}" is ${typeName(v)}; expected a string or a number` };
}

/** A line or an array element parsed as a JSON object, or why it is not one. */
function parseObject(text: string, what: 'line' | 'element' = 'line'): { object: Record<string, unknown> } | { error: string } {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (err) {
    return { error: `invalid JSON: ${(err as Error).message}` };
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return { error: `${what} is ${typeName(obj)}, not a JSON object` };
  return { object: obj as Record<string, unknown> };
}

/**
 * The record of one JSON object: its text at `textField`, its id at `idField`, else its own `id` (string
 * or number, as `eval` reads it), else `fallbackId` (the line number; for a JSON array, the position).
 */
function objectRecord(obj: Record<string, unknown>, line: number, fallbackId: string, textField: string, idField: string | undefined, onLineId?: (line: number) => void, opts?: ReaderOptions): InputRecord {
  let id: string | undefined;
  if (idField !== undefined) {
    const r = idValue(getPath(obj, idField), idField);
    if ('error' in r) return { line, error: r.error };
    id = r.id;
  } else {
    const own = Object.prototype.hasOwnProperty.call(obj, DEFAULT_ID_FIELD) ? idValue(obj[DEFAULT_ID_FIELD], DEFAULT_ID_FIELD) : null;
    if (own && 'id' in own) id = own.id;
    else {
      id = fallbackId;
      onLineId?.(line);
    }
  }
  const t = textValue(getPath(obj, textField), textField);
  if ('error' in t) return { line, id, error: t.error };
  if (!opts || !hasContextFields(opts)) return { line, id, text: t.text };
  const context = contextOf((field) => getPath(obj, field), opts);
  if ('error' in context) return { line, id, error: context.error };
  return { line, id, text: t.text, ...context };
}

const hasContextFields = (opts: ReaderOptions): boolean => opts.filmField !== undefined || opts.titleField !== undefined;

/** A film value (string or finite number, or a one-element array of one); blank or absent: none; else an error message. */
export function filmValue(v: unknown, field: string): { film?: string } | { error: string } {
  if (v === undefined || v === null) return {};
  const r = idValue(v, field);
  if ('error' in r) return { error: `film field "${field}" is ${typeName(v)}; expected a string or a number (a Douban id or a film name)` };
  return r.id.trim() === '' ? {} : { film: r.id };
}

/** A title value (string or array of strings, joined); blank or absent: none; else an error message. */
export function titleValue(v: unknown, field: string): { title?: string } | { error: string } {
  if (v === undefined || v === null) return {};
  const r = textValue(v, field);
  if ('error' in r) return { error: r.error.replace(/^field /u, 'title field ') };
  return r.text.trim() === '' ? {} : { title: r.text };
}

/** The context fields of a record (ReaderOptions `filmField`, `titleField`), or the first error. */
function contextOf(get: (field: string) => unknown, opts: ReaderOptions): { film?: string; title?: string } | { error: string } {
  const film = opts.filmField === undefined ? {} : filmValue(get(opts.filmField), opts.filmField);
  if ('error' in film) return film;
  const title = opts.titleField === undefined ? {} : titleValue(get(opts.titleField), opts.titleField);
  if ('error' in title) return title;
  return { ...film, ...title };
}

function columnIndex(header: string[], name: string, what: string, source: string, headerLine: number): number {
  let i = header.indexOf(name);
  if (i === -1) i = header.findIndex((h) => h.trim() === name.trim());
  if (i === -1) {
    const shown = header.map((h) => JSON.stringify(h)).join(', ');
    throw inputError(`tag: ${source}:${headerLine}: no ${what} column "${name}" in the header (columns: ${shown}); pass --${what}-field`);
  }
  return i;
}

async function* tableRecords(
  rows: AsyncIterable<CsvRow>,
  opts: ReaderOptions,
  source: string,
  stats: ReadStats | undefined,
  headerInfo: { fields?: number } = {},
): AsyncGenerator<InputRecord> {
  let header: string[] | null = null;
  let headerLine = 0;
  let textIdx = -1;
  let idIdx = -1;
  let filmIdx = -1;
  let titleIdx = -1;
  for await (const row of rows) {
    if (header === null) {
      if ('error' in row) throw inputError(`tag: ${source}:${row.line}: cannot read the header row: ${row.error}`);
      header = row.fields;
      headerInfo.fields = header.length;
      headerLine = row.line;
      textIdx = columnIndex(header, opts.textField ?? DEFAULT_TEXT_FIELD, 'text', source, headerLine);
      if (opts.idField !== undefined) idIdx = columnIndex(header, opts.idField, 'id', source, headerLine);
      if (opts.filmField !== undefined) filmIdx = columnIndex(header, opts.filmField, 'film', source, headerLine);
      if (opts.titleField !== undefined) titleIdx = columnIndex(header, opts.titleField, 'title', source, headerLine);
      continue;
    }
    if ('error' in row) {
      yield errorRecord(row.line, opts.idField, row.error);
      continue;
    }
    const f = row.fields;
    const id = idIdx === -1 ? String(row.line) : f.length > idIdx ? f[idIdx] : undefined;
    if (f.length !== header.length) {
      yield id === undefined ? { line: row.line, error: `${f.length} fields, header has ${header.length}` } : { line: row.line, id, error: `${f.length} fields, header has ${header.length}` };
      continue;
    }
    if (stats && row.invalidUtf8) stats.invalidUtf8++;
    const film = filmIdx >= 0 && f[filmIdx].trim() !== '' ? { film: f[filmIdx] } : {};
    const title = titleIdx >= 0 && f[titleIdx].trim() !== '' ? { title: f[titleIdx] } : {};
    yield { line: row.line, id: id!, text: f[textIdx], ...film, ...title };
  }
}
