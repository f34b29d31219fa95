/**
 * Shared pieces of the KG source readers: locations (file:line), streaming csv (over src/io/csv.ts) and JSON-lines readers
 * that never stop at a bad record, and small text helpers for the Douban sources.
 *
 * Readers hand every unreadable record to `onBad(line, reason)` and go on; a file that cannot be opened
 * is a FilmkwError('INPUT') naming it.
 */
import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { parseCsvRows, type CsvErrorKind } from '../../io/csv.js';
import { DEFAULT_MAX_RECORD_BYTES, splitLines } from '../../io/lines.js';
import { inputError } from '../../errors.js';
import { stripRegionTags } from '../aliases.js';

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

/** Why a csv row could not be read, in the words of the import report. */
function csvWhy(kind: CsvErrorKind, error: string, maxBytes: number): string {
  switch (kind) {
    case 'unclosed':
      return 'unclosed quote';
    case 'runaway':
    case 'too-long-line':
      return `longer than ${maxBytes} bytes, unbalanced quote?`;
    case 'runs-into-next-rows':
      return 'unbalanced quote: a quoted field runs past the line end into the next rows';
    default:
      return error;
  }
}

/**
 * Streams a csv file through the project's csv reader (src/io/csv.ts: csv-parse with re-sync; UTF-8,
 * optional BOM, LF, CRLF or lone CR line ends, quotes relaxed inside unquoted fields, any number of fields,
 * quoted line breaks kept as they are). Blank lines are skipped. Each record comes with the line it starts
 * on. A header is the first record, returned like the others; with `header: true` the file has one, and
 * when the first record cannot be read that is a FilmkwError('INPUT') naming file:line and why, instead
 * of taking the next row as the header.
 *
 * A record that cannot be read (an unclosed quote, a record longer than `maxRecordBytes`, a quoted field
 * running into the next rows, a closing quote followed by text) is reported through `onBad` with the line
 * it starts on (`unreadable csv record (…)`), and the lines after that first line are read again, so a
 * broken record costs only its own row. A record containing invalid UTF-8 is reported as `invalid UTF-8`
 * and skipped.
 */
export async function* readCsv(
  file: string,
  display: string,
  onBad: (line: number, reason: string) => void,
  opts: { maxRecordBytes?: number; header?: boolean } = {},
): AsyncGenerator<CsvRecord> {
  const maxBytes = opts.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  let header = opts.header === true; // the header is still to come
  const stream = createReadStream(file, { highWaterMark: 256 * 1024 });
  await opened(stream, display);
  try {
    for await (const row of parseCsvRows(splitLines(stream, { maxLineBytes: maxBytes }), { maxRecordBytes: maxBytes, anyLineEnd: true })) {
      if ('error' in row) {
        const why = csvWhy(row.kind, row.error, maxBytes);
        if (header) throw inputError(`kg import: ${display}:${row.line}: unreadable header (${why})`);
        onBad(row.line, row.kind === 'closing-quote' ? `unreadable csv record (${why})` : `unreadable csv record (${why}; the lines after it are read again)`);
        continue;
      }
      const invalid = row.fields.some((f) => f.includes('\uFFFD'));
      if (header && invalid) throw inputError(`kg import: ${display}:${row.line}: unreadable header (invalid UTF-8)`);
      header = false;
      if (invalid) {
        onBad(row.line, 'invalid UTF-8');
        continue;
      }
      yield { fields: row.fields, line: row.line };
    }
  } finally {
    stream.destroy();
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
 * Region / note markers Douban appends to alternative titles, e.g. `神隐少女(台)`, `国定杀戮日(台/港)`,
 * `我的愚蠢丈夫(豆友译名)`: removed so that the alias is the title itself (src/kg/aliases.ts `stripRegionTags`).
 */
export const stripRegionSuffix = stripRegionTags;

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
