/**
 * Shared pieces of the KG source readers: locations (file:line), streaming csv and JSON-lines readers
 * that never stop at a bad record, and small text helpers for the Douban sources.
 *
 * Readers hand every unreadable record to `onBad(line, reason)` and go on; a file that cannot be opened
 * is a FilmkwError('INPUT') naming it.
 */
import { createReadStream, type ReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { parse, type CsvError, type InfoRecord } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { inputError } from '../../errors.js';

/** Where a record came from: the file (as given on the command line) and its 1-based line. */
export interface Loc {
  file: string;
  line: number;
}

export const fmtLoc = (loc: Loc): string => `${loc.file}:${loc.line}`;

/** Throws FilmkwError('INPUT') unless `path` is an existing file (or directory with `dir`). */
export async function requirePath(path: string, what: string, kind: 'file' | 'dir' | 'any' = 'file'): Promise<'file' | 'dir'> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw inputError(`${what}: ${path}: ${code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`, err);
  }
  const got = st.isDirectory() ? 'dir' : 'file';
  if (kind !== 'any' && got !== kind) throw inputError(`${what}: ${path}: is a ${got === 'dir' ? 'directory' : 'file'}, expected a ${kind === 'dir' ? 'directory' : 'file'}`);
  return got;
}

/** One csv record: its fields and the line it starts on. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/**
 * Longest csv record (csv-parse `max_record_size`, which counts the characters of the fields read and
 * the bytes of the field being read), as the tag reader's default `--max-record-bytes`: a longer record
 * is reported and skipped. It bounds what an unbalanced quote can swallow before the reader re-syncs
 * (see {@link readCsv}).
 */
export const MAX_CSV_RECORD_BYTES = 16 * 1024 * 1024;

const RECORD_DELIMITERS = ['\r\n', '\n', '\r'];

/** A record as csv-parse hands it to `on_record` with `raw: true`. */
type RawRecord = { record: string[]; raw: string };

/** Why csv-parse gave up on a record (`on_skip`), in words, without its "at line N" part. */
function csvErrorWhy(err: CsvError, maxBytes: number): string {
  if (err.code === 'CSV_QUOTE_NOT_CLOSED') return 'unclosed quote';
  if (err.code === 'CSV_MAX_RECORD_SIZE') return `longer than ${maxBytes} bytes, unbalanced quote?`;
  return err.message.replace(/ at line \d+.*$/s, '').replace(/:\s*$/, '');
}

const RUNS_INTO_NEXT_ROWS = 'unbalanced quote: a quoted field runs past the line end into the next rows';

/**
 * True when the raw text of a record spanning several lines has a quoted field whose closing quote is
 * followed by something else than a delimiter or a line end — `,"张三,,⏎,"李四",,`: the quote opened on
 * the first line was never closed and the opening quote of a later row closed it. csv-parse with
 * `relax_quotes` accepts that silently (it would merge the rows into one); the same text parsed again
 * without `relax_quotes` reports it as CSV_INVALID_CLOSING_QUOTE. (A quote inside an unquoted field,
 * `他说"好"`, is INVALID_OPENING_QUOTE there and stays allowed.)
 */
function quoteRunsIntoNextRow(raw: string): boolean {
  let bad = false;
  parseSync(raw, {
    record_delimiter: RECORD_DELIMITERS,
    relax_quotes: false,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (err: CsvError | undefined) => {
      if (err?.code === 'CSV_INVALID_CLOSING_QUOTE') bad = true;
      return undefined;
    },
  });
  return bad;
}

/**
 * Byte offset just after `n` more lines of `file` from byte `from` (a line ends at LF, CRLF or a lone
 * CR, as csv-parse's record delimiters here), or the file size when the file ends first.
 */
async function offsetAfterLines(file: string, from: number, n: number): Promise<number> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    let bufStart = from;
    let len = 0;
    let pos = from;
    let left = n;
    let afterCr = false; // the last line ended at a CR: a LF right after it belongs to that line end
    while (left > 0 || afterCr) {
      if (pos >= bufStart + len) {
        bufStart = pos;
        len = (await fh.read(buf, 0, buf.length, pos)).bytesRead;
        if (len === 0) return pos;
      }
      let i = pos - bufStart;
      if (afterCr) {
        afterCr = false;
        if (buf[i] === 0x0a) pos++;
        continue;
      }
      while (i < len && buf[i] !== 0x0a && buf[i] !== 0x0d) i++;
      pos = bufStart + i;
      if (i === len) continue; // the line goes on in the next block
      pos++;
      left--;
      afterCr = buf[i] === 0x0d;
    }
    return pos;
  } finally {
    await fh.close();
  }
}

/**
 * Streams a csv file with csv-parse (RFC 4180, UTF-8, optional BOM, LF, CRLF or CR line ends, quotes
 * relaxed inside unquoted fields, any number of fields). Empty lines are skipped. Each record comes with
 * the line it starts on. A header is the first record, returned like the others; with `header: true`
 * the file has one, and when the first record cannot be read (see below) that is a FilmkwError('INPUT')
 * naming file:line and why, instead of taking the next row as the header.
 *
 * A record that cannot be read is reported through `onBad` with the line it starts on (the reason says
 * `unreadable csv record (…)`), and the reader re-syncs: csv-parse starts again at the line after that
 * start, so the rows a broken record swallowed are read again and only its first line is lost. Broken:
 * - an unclosed quote (csv-parse finds it at the end of the file);
 * - a record longer than `maxRecordBytes` (a runaway quote, found before the end of the file);
 * - a record spanning several lines (a quoted field with a line break) whose quoted field is closed by a
 *   quote with text after it ({@link quoteRunsIntoNextRow}): an unbalanced quote that ran into the next
 *   rows and was closed by the opening quote of one of them.
 * A quoted field with line breaks inside that is closed properly is one record, as RFC 4180 says, even
 * when the quote was meant to be closed earlier (`a,"b⏎c,d⏎e,5"` is valid csv: two fields); readers see
 * its wrong number of fields. A record containing invalid UTF-8 (U+FFFD after decoding) is reported as
 * `invalid UTF-8` and skipped.
 */
export async function* readCsv(
  file: string,
  display: string,
  onBad: (line: number, reason: string) => void,
  opts: { maxRecordBytes?: number; header?: boolean } = {},
): AsyncGenerator<CsvRecord> {
  const maxBytes = opts.maxRecordBytes ?? MAX_CSV_RECORD_BYTES;
  let base = 0; // byte offset where the current csv-parse run starts
  let baseLine = 0; // lines of the file before it
  let header = opts.header === true; // the header is still to come
  for (;;) {
    const queue: CsvRecord[] = [];
    // end of the last record taken in this run, relative to `base`: bytes, its last line, empty lines so
    // far. Lines are counted here from the raw text: csv-parse's `info.lines` counts a CRLF inside a
    // quoted field as two lines.
    let last = { bytes: 0, line: 0, empty: 0 };
    let broken: { line: number; lines: number; why: string } | null = null;
    let failure: Error | null = null;
    const parser = parse({
      bom: base === 0,
      raw: true,
      record_delimiter: RECORD_DELIMITERS,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      max_record_size: maxBytes,
      // records are taken here, synchronously, with their position; nothing is pushed downstream
      on_record: (r: string[], info: InfoRecord) => {
        if (broken) return null;
        const rec = r as unknown as RawRecord; // with `raw: true` csv-parse hands { record, raw }
        const empties = info.empty_lines - last.empty;
        const start = last.line + 1 + empties;
        // raw = the empty lines before the record (the first character of each line end), the record,
        // the first character of its record delimiter (none at the end of the file)
        const body = rec.raw.slice(empties, /[\r\n]$/.test(rec.raw) ? -1 : undefined);
        const inner = body.match(/\r\n|\r|\n/g)?.length ?? 0;
        if (inner > 0 && quoteRunsIntoNextRow(rec.raw)) {
          broken = { line: start, lines: empties + 1, why: RUNS_INTO_NEXT_ROWS };
          return null;
        }
        last = { bytes: info.bytes, line: start + inner, empty: info.empty_lines };
        queue.push({ fields: rec.record, line: baseLine + start });
        return null;
      },
      on_skip: (err: CsvError | undefined) => {
        if (broken || !err) return undefined;
        const empties = Number(err.empty_lines ?? last.empty) - last.empty;
        broken = { line: last.line + 1 + empties, lines: empties + 1, why: csvErrorWhy(err, maxBytes) };
        return undefined;
      },
    });
    parser.on('error', (err) => (failure ??= err));
    const stream = createReadStream(file, { start: base });
    await opened(stream, display);
    const drain = function* (): Generator<CsvRecord> {
      for (let rec = queue.shift(); rec; rec = queue.shift()) {
        const invalid = rec.fields.some((f) => f.includes('\uFFFD'));
        if (header && invalid) throw inputError(`kg import: ${display}:${rec.line}: unreadable header (invalid UTF-8)`);
        header = false;
        if (invalid) {
          onBad(rec.line, 'invalid UTF-8');
          continue;
        }
        yield rec;
      }
    };
    try {
      for await (const chunk of stream) {
        parser.write(chunk); // synchronous: on_record / on_skip have run when it returns
        if (failure) throw failure;
        yield* drain();
        if (broken) break;
      }
      if (!broken) {
        await new Promise<void>((resolve) => parser.end(() => resolve()));
        if (failure) throw failure;
        yield* drain();
      }
    } finally {
      stream.destroy();
      parser.destroy();
    }
    if (!broken) return;
    const { line: rel, lines, why } = broken as { line: number; lines: number; why: string };
    const line = baseLine + rel;
    if (header) throw inputError(`kg import: ${display}:${line}: unreadable header (${why})`);
    onBad(line, `unreadable csv record (${why}; the lines after it are read again)`);
    // csv-parse again from the line after the broken record's first line
    base = await offsetAfterLines(file, base + last.bytes, lines);
    baseLine = line;
  }
}

/**
 * `s` with the characters a terminal does not show (controls, format characters such as U+FEFF and
 * zero-width spaces, other spaces than U+0020) written as U+XXXX, so that a reason names them.
 */
export function visible(s: string): string {
  return s.replace(/[\p{Cc}\p{Cf}\p{Z}]/gu, (c) => (c === ' ' ? c : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`));
}

/** Wait until a read stream is open; a file that cannot be opened is an INPUT error naming it. */
async function opened(stream: ReadStream, display: string): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
  } catch (err) {
    throw inputError(`kg import: cannot read ${display}: ${(err as Error).message}`, err);
  }
}

/**
 * Streams a JSON-lines file: one value per non-blank line (a BOM at the start of the file and CR
 * tolerated). A line that is not valid JSON (a BOM at the start of a later line included), not an
 * object, or contains invalid UTF-8 is reported through `onBad` and skipped; invisible characters in
 * the reason are named (U+FEFF).
 */
export async function* readJsonLines(
  file: string,
  display: string,
  onBad: (line: number, reason: string) => void,
): AsyncGenerator<{ value: Record<string, unknown>; line: number }> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  await opened(stream, display);
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  for await (let text of rl) {
    line++;
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') continue;
    if (text.includes('\uFFFD')) {
      onBad(line, 'invalid UTF-8');
      continue;
    }
    if (text.charCodeAt(0) === 0xfeff) {
      // a BOM that is not at the start of the file: files with a BOM were joined; the line is skipped
      onBad(line, 'unparsable JSON (the line starts with a byte-order mark, U+FEFF)');
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      let msg = (err as Error).message;
      const at = /at position (\d+)/.exec(msg);
      const c = at ? text[Number(at[1])] : undefined;
      if (c !== undefined && c !== ' ' && visible(c) !== c) msg += `: ${visible(c)}`;
      onBad(line, `unparsable JSON (${visible(msg.replace(/[\t\r\n ]+/g, ' ')).slice(0, 120)})`);
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      onBad(line, 'not a JSON object');
      continue;
    }
    // No prototype: a record's keys are untyped input (`value.constructor` must be undefined, not Object).
    yield { value: Object.setPrototypeOf(value, null) as Record<string, unknown>, line };
  }
}

/** The display name of a file inside a source directory: `<dir basename>/<file>`. */
export const displayName = (dir: string, file: string): string => `${basename(dir.replace(/[\\/]+$/, '')) || dir}/${file}`;

/** Splits a list field on any of the separators, trims, drops empty items. */
export function splitList(s: string | undefined | null, sep: RegExp): string[] {
  if (!s) return [];
  return s
    .split(sep)
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Decodes the few HTML entities the scraped sources contain (`&amp;`, `&#39;`, `&#x27;` …). */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    const lower = e.toLowerCase();
    if (lower in ENTITIES) return ENTITIES[lower];
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return m;
  });
}

/**
 * Region / note markers Douban appends to alternative titles, e.g. `神隐少女(台)`, `再战击情(港)`,
 * `我的愚蠢丈夫(豆友译名)`: removed so that the alias is the title itself.
 */
const REGION_SUFFIX = /\s*[(（](?:台|港|澳|日|英|美|韩|法|德|新|马|新马|大陆|内地|台湾|香港|澳门|中国大陆|豆友译名|暂译|原名|译名)[)）]\s*$/u;

export function stripRegionSuffix(s: string): string {
  return s.replace(REGION_SUFFIX, '').trim();
}

/** Douban subject id from a movie URL (`…/subject/25746375/`), or undefined. */
export function subjectIdFromUrl(url: string | undefined | null): string | undefined {
  const m = /\/subject\/(\d+)/.exec(url ?? '');
  return m ? m[1] : undefined;
}

/** Douban celebrity id from a href (`/celebrity/1014716/`), or undefined. */
export function celebrityIdFromHref(href: unknown): string | undefined {
  if (typeof href !== 'string') return undefined;
  const m = /\/celebrity\/(\d+)/.exec(href);
  return m ? m[1] : undefined;
}
