/**
 * The one CSV/TSV record reader of filmkw (tag inputs in readers.ts and the KG sources in kg/sources), with
 * error recovery. Fields are tokenised by csv-parse (RFC 4180, `relax_quotes`: a `"` inside an unquoted
 * field is a character, as in 他说"好"); this module adds what csv-parse cannot do by itself: every row
 * knows the physical line it starts on, and a broken row costs only that row.
 *
 * Input is physical lines (lines.ts: UTF-8 BOM removed, invalid UTF-8 flagged, runaway lines cut). csv-parse
 * is fed line by line; a row spans 1 + (line breaks inside its quoted fields) lines, which attributes every
 * row to its lines. Rules:
 * - a physical line that is blank (only white space) outside a quoted field is not a row;
 * - a quoted field spanning lines keeps its line breaks: `\n` by default (CRLF reads as LF), or the line
 *   end that was there with `anyLineEnd` (which also splits lines on a lone CR, as the KG sources need);
 * - a closing quote followed by something else than a delimiter or the line end makes the row an error
 *   row (`unexpected character … after a closing quote on line N`), when the row is one line;
 * - a quote that is never closed (end of input), a quoted field running over `maxRecordBytes`, a row
 *   spanning lines whose quoted field is "closed" by a quote with text after it (`1,"abc` then `2,"def",x`:
 *   the opening quote of line 2 closed the quote of line 1), or (with `expectedFields`) a row spanning lines
 *   whose field count differs from the header's: the row where the quote opened is the error row and the
 *   lines after it are read again, so one broken quote costs one row, not the rows it swallowed.
 *
 * TSV (IANA text/tab-separated-values): one row per non-blank line, split on TAB, no quoting.
 */
import { parse } from 'csv-parse';
import type { RawLine } from './lines.js';

/** Why a row could not be read. */
export type CsvErrorKind = 'too-long-line' | 'unclosed' | 'runaway' | 'runs-into-next-rows' | 'closing-quote';

/** A parsed row: fields, or an error, with the physical lines it spans. */
export type CsvRow =
  | { line: number; endLine: number; fields: string[]; invalidUtf8?: boolean }
  | { line: number; endLine: number; error: string; kind: CsvErrorKind };

/** Options of {@link parseCsvRows}. */
export interface CsvRowOptions {
  /** Field delimiter. @default ',' */
  delimiter?: string;
  /** Largest record (sum of its lines' bytes) before it is declared runaway. */
  maxRecordBytes: number;
  /** Field count of the header once known (a multi-line row with another count is re-synchronised). */
  expectedFields?: () => number | undefined;
  /** A lone CR also ends a line, and quoted line breaks keep their CRLF / CR / LF. @default false */
  anyLineEnd?: boolean;
}

/** Defaults of {@link CsvRowOptions} (frozen). */
export const CSV_ROW_DEFAULTS: Readonly<Required<Pick<CsvRowOptions, 'delimiter' | 'anyLineEnd'>>> = Object.freeze({ delimiter: ',', anyLineEnd: false });

/** A physical line with its line end, as fed to csv-parse. */
type Line = RawLine & { eol: string };

const isBlank = (s: string) => s.trim() === '';

/** Lines split on a lone CR too (renumbered), each with the line end it had. */
async function* withLineEnds(lines: AsyncIterable<RawLine>, anyLineEnd: boolean): AsyncGenerator<Line> {
  let n = 0;
  for await (const raw of lines) {
    if (!anyLineEnd) {
      yield { ...raw, eol: '\n' };
      continue;
    }
    const parts = raw.tooLong ? [raw.text] : raw.text.split('\r');
    for (let i = 0; i < parts.length; i++) {
      const last = i === parts.length - 1;
      const text = parts[i]!;
      const line: Line = { ...raw, line: ++n, text, bytes: parts.length === 1 ? raw.bytes : Buffer.byteLength(text), eol: last ? (raw.crlf ? '\r\n' : '\n') : '\r' };
      yield line;
    }
  }
}

/**
 * The first closing quote of `text` (a row's lines joined by `\n`) followed by something else than the
 * delimiter or a line end: the character and its line (1-based in `text`), or null. csv-parse with
 * `relax_quotes` reads such a field as text (`"a"b` → `"a"b`), and a quote opened on one line can be
 * "closed" by the opening quote of a later row; its strict mode would also reject the literal quotes of
 * unquoted fields (他说"好"), which are allowed, so this one check is done here.
 */
function closingQuoteProblem(text: string, delimiter: string): { char: string; line: number } | null {
  if (!text.includes('"')) return null;
  let line = 1;
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      // a quoted field: up to its closing quote (`""` is a quote)
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q === -1) return null; // not closed: csv-parse reports that
        for (let k = text.indexOf('\n', j); k !== -1 && k < q; k = text.indexOf('\n', k + 1)) line++;
        if (text[q + 1] === '"') {
          j = q + 2;
          continue;
        }
        const c = text[q + 1];
        if (c !== undefined && c !== delimiter && c !== '\n') return { char: String.fromCodePoint(text.codePointAt(q + 1)!), line };
        i = q + 1;
        break;
      }
    } else {
      // an unquoted field: quotes inside are characters
      while (i < text.length && text[i] !== delimiter && text[i] !== '\n') i++;
    }
    if (text[i] === '\n') line++;
    i++; // the delimiter or line end
  }
  return null;
}

const closingQuoteMessage = (p: { char: string; line: number }, start: number) => `unexpected character ${JSON.stringify(p.char)} after a closing quote on line ${start + p.line - 1}`;

/**
 * Parse CSV rows from physical lines (see module header). The header is not treated specially here (it
 * is the first row). Rows, error rows included, come in input order.
 */
export async function* parseCsvRows(lines: AsyncIterable<RawLine>, opts: CsvRowOptions): AsyncGenerator<CsvRow> {
  const delimiter = opts.delimiter ?? CSV_ROW_DEFAULTS.delimiter;
  const source = withLineEnds(lines, (opts.anyLineEnd ?? CSV_ROW_DEFAULTS.anyLineEnd) === true)[Symbol.asyncIterator]();
  const pending: Line[] = []; // lines to read again after a recovery
  const nextLine = async (): Promise<Line | null> => {
    if (pending.length > 0) return pending.shift()!;
    const r = await source.next();
    return r.done ? null : r.value;
  };

  let held: Line[] = []; // lines fed to the parser and not yet attributed to a row
  let heldBytes = 0;
  const out: CsvRow[] = [];
  let broken: { error: string; kind: CsvErrorKind } | null = null; // the row at held[0] must be re-synchronised
  const newParser = () =>
    parse({
      delimiter,
      record_delimiter: '\n',
      relax_quotes: true,
      relax_column_count: true,
      skip_records_with_error: true,
      // rows are taken here, synchronously, with their lines; nothing is pushed downstream
      on_record: (rec: string[]) => {
        take(rec);
        return null;
      },
      // the only error left with these options is CSV_QUOTE_NOT_CLOSED at the end: the unclosed row stays in `held`
      on_skip: () => undefined,
    });
  let parser = newParser();
  parser.on('error', () => undefined);

  // Abandon the row starting at held[0]: one error row, its other lines (and `rest`) read again.
  const recover = (error: string, kind: CsvErrorKind, rest: Line[] = held.slice(1)) => {
    out.push({ line: held[0]!.line, endLine: held[0]!.line, error, kind });
    pending.unshift(...rest);
    held = [];
    heldBytes = 0;
  };

  // A row from csv-parse: attribute its lines (1 + the line breaks inside its fields), check it, queue it.
  function take(fields: string[]): void {
    if (broken) return;
    let span = 1;
    for (const f of fields) for (let i = f.indexOf('\n'); i !== -1; i = f.indexOf('\n', i + 1)) span++;
    const mine = held.slice(0, span);
    const first = mine[0]!;
    const last = mine[mine.length - 1]!;
    const problem = closingQuoteProblem(mine.map((l) => l.text).join('\n'), delimiter);
    if (span > 1) {
      const expected = opts.expectedFields?.();
      if (problem || (expected !== undefined && fields.length !== expected)) {
        // a quote opened on `first` swallowed later lines: report that row, read the others again
        const why = problem ? closingQuoteMessage(problem, first.line) : `${fields.length} fields, header has ${expected}`;
        broken = { error: `quote opened on line ${first.line} is not closed on its line and the row is malformed (${why}); row skipped, the lines after it are read again`, kind: 'runs-into-next-rows' };
        return;
      }
    }
    held.splice(0, span);
    for (const l of mine) heldBytes -= l.bytes;
    if (span === 1 && isBlank(first.text)) return;
    if (problem) {
      out.push({ line: first.line, endLine: last.line, error: closingQuoteMessage(problem, first.line), kind: 'closing-quote' });
      return;
    }
    if (opts.anyLineEnd && span > 1) {
      let k = 0;
      fields = fields.map((f) => f.replace(/\n/g, () => mine[k++]!.eol));
    }
    const row: CsvRow = { line: first.line, endLine: last.line, fields };
    if (mine.some((l) => l.invalidUtf8)) row.invalidUtf8 = true;
    out.push(row);
  }

  // After csv-parse ran: a malformed multi-line row drops the parser and starts again after its first line.
  const resync = () => {
    if (!broken) return;
    parser.destroy();
    recover(broken.error, broken.kind);
    broken = null;
    parser = newParser();
    parser.on('error', () => undefined);
  };

  // End the parser: the row it holds back comes out; an unclosed quoted field is left in `held`.
  const flush = async (): Promise<void> => {
    const p = parser;
    await new Promise<void>((resolve) => p.end(() => resolve()));
    if (broken) resync();
    else {
      parser = newParser();
      parser.on('error', () => undefined);
    }
  };

  const feed = (l: Line) => {
    held.push(l);
    heldBytes += l.bytes;
    parser.write(l.text + '\n'); // synchronous: on_record has run when it returns
    resync();
  };

  for (;;) {
    const raw = await nextLine();
    if (raw === null || raw.tooLong || (held.length > 0 && heldBytes + raw.bytes > opts.maxRecordBytes)) {
      // the end, a runaway line, or a row growing over the limit: settle what the parser holds first
      const after = pending.length; // lines to read after `raw`
      await flush();
      yield* out.splice(0);
      if (pending.length > after) {
        // a malformed row was re-synchronised: its lines come before `raw`
        if (raw !== null) pending.splice(pending.length - after, 0, raw);
        continue;
      }
      if (held.length > 0 && raw !== null && !raw.tooLong && heldBytes + raw.bytes <= opts.maxRecordBytes) {
        // the parser had held back a finished row: the open quoted field is within the limit, go on with it
        pending.unshift(...held, raw);
        held = [];
        heldBytes = 0;
        continue;
      }
      if (held.length > 0) {
        // an unclosed quoted field
        const start = held[0]!.line;
        if (raw === null) recover(`quote opened on line ${start} is never closed; row skipped`, 'unclosed');
        else recover(`quoted field opened on line ${start} runs over ${opts.maxRecordBytes} bytes (unbalanced quote?); row skipped`, 'runaway', [...held.slice(1), raw]);
        yield* out.splice(0);
        continue;
      }
      if (raw === null) break;
      if (raw.tooLong) {
        yield { line: raw.line, endLine: raw.line, error: `line is longer than ${opts.maxRecordBytes} bytes (${raw.bytes} bytes); row skipped`, kind: 'too-long-line' };
        continue;
      }
    }
    feed(raw);
    yield* out.splice(0);
  }
}

/** Parse TSV rows (one per non-blank line, split on TAB, no quoting). */
export async function* parseTsvRows(lines: AsyncIterable<RawLine>, opts: { maxRecordBytes: number }): AsyncGenerator<CsvRow> {
  for await (const raw of lines) {
    if (raw.tooLong) {
      yield { line: raw.line, endLine: raw.line, error: `line is longer than ${opts.maxRecordBytes} bytes (${raw.bytes} bytes); row skipped`, kind: 'too-long-line' };
      continue;
    }
    if (isBlank(raw.text)) continue;
    const row: CsvRow = { line: raw.line, endLine: raw.line, fields: raw.text.split('\t') };
    if (raw.invalidUtf8) row.invalidUtf8 = true;
    yield row;
  }
}
