/**
 * Shared pieces of the KG source readers: locations (file:line), streaming csv and JSON-lines readers
 * that never stop at a bad record, and small text helpers for the Douban sources.
 *
 * Readers hand every unreadable record to `onBad(line, reason)` and go on; a file that cannot be opened
 * is a FilmkwError('INPUT') naming it.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { parse, type CsvError } from 'csv-parse';
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
 * Streams a csv file (RFC 4180, UTF-8, optional BOM, LF or CRLF, quotes relaxed inside unquoted
 * fields). Empty lines are skipped. A record the parser cannot read (e.g. an unclosed quote, which
 * swallows the rest of the file) is reported through `onBad` with its line; so is a record containing
 * invalid UTF-8 (U+FFFD after decoding). The header is the first record, returned like the others.
 */
export async function* readCsv(file: string, display: string, onBad: (line: number, reason: string) => void): AsyncGenerator<CsvRecord> {
  const stream = createReadStream(file);
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  try {
    await opened;
  } catch (err) {
    throw inputError(`kg import: cannot read ${display}: ${(err as Error).message}`, err);
  }
  const parser = stream.pipe(
    parse({
      bom: true,
      info: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_skip: (err: CsvError | undefined) => {
        if (!err) return undefined;
        const msg = err.message.replace(/ at line \d+.*$/s, '').replace(/:\s*$/, '');
        onBad(Number((err as unknown as { lines?: number }).lines ?? 0), `unreadable csv record (${msg})`);
        return undefined;
      },
    }),
  );
  stream.on('error', (err) => parser.destroy(err));
  for await (const rec of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    const fields = rec.record;
    let inner = 0;
    for (const f of fields) for (let i = f.indexOf('\n'); i >= 0; i = f.indexOf('\n', i + 1)) inner++;
    const line = rec.info.lines - inner;
    if (fields.some((f) => f.includes('\uFFFD'))) {
      onBad(line, 'invalid UTF-8');
      continue;
    }
    yield { fields, line };
  }
}

/**
 * Streams a JSON-lines file: one value per non-blank line (BOM and CR tolerated). A line that is not
 * valid JSON, not an object, or contains invalid UTF-8 is reported through `onBad` and skipped.
 */
export async function* readJsonLines(
  file: string,
  display: string,
  onBad: (line: number, reason: string) => void,
): AsyncGenerator<{ value: Record<string, unknown>; line: number }> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  try {
    await opened;
  } catch (err) {
    throw inputError(`kg import: cannot read ${display}: ${(err as Error).message}`, err);
  }
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
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      onBad(line, `unparsable JSON (${(err as Error).message.replace(/\s+/g, ' ').slice(0, 80)})`);
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      onBad(line, 'not a JSON object');
      continue;
    }
    yield { value: value as Record<string, unknown>, line };
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
