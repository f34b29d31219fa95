/**
 * Streaming CSV (RFC 4180) and TSV record parsers over physical lines (lines.ts), with recovery.
 *
 * Why not csv-parse: it cannot recover from an unclosed quote (everything after it becomes one error, the
 * rest of the file is lost), and its line counter counts lone CRs and reports where a record ends. Here
 * every record knows the physical line it starts on, and a bad row costs only that row.
 *
 * CSV rules:
 * - fields separated by `,`; a field that starts with `"` is quoted: `""` is a quote, and it may span
 *   lines (the line break inside is kept as `\n`; CRLF inside a quoted field therefore reads as LF);
 * - a `"` inside an unquoted field is kept as a literal character (common in Chinese text: 他说"好");
 * - a character other than `,` or the line end right after a closing quote makes the row an error
 *   record (`unexpected character after closing quote`); parsing continues after that row;
 * - a quote that is never closed (end of input), or a quoted field running over `maxRecordBytes`, makes
 *   the row where it opened an error record, and parsing restarts on the next physical line: the rows
 *   after it are read normally (the lines it swallowed are re-read, at most `maxRecordBytes` of them);
 * - a quoted field that spans lines and is followed by garbage (`1,"abc` then `2,"def",x`: the quote of line 1
 *   is "closed" by the opening quote of line 2), or a row spanning lines whose field count differs from the
 *   header's, is taken for an unbalanced quote too: the row where it opened is the error record and the
 *   lines after it are re-read, so one broken quote costs one record, not the records it swallowed;
 * - a physical line that is blank (only white space) outside a quoted field is not a row.
 *
 * TSV rules (IANA text/tab-separated-values): one row per non-blank line, fields separated by TAB, no
 * quoting and no escapes (quotes are ordinary characters).
 *
 * Both: the first row is the header; a row whose field count differs from the header's is an error
 * record (`N fields, header has M`).
 */
import type { RawLine } from './lines.js';

/** A parsed row: fields, or an error, with the physical line it starts on. */
export type CsvRow =
  | { line: number; endLine: number; fields: string[] }
  | { line: number; endLine: number; error: string };

/** Options of {@link parseCsvRows}. */
export interface CsvRowOptions {
  /** Field delimiter. @default ',' */
  delimiter?: string;
  /** Largest record (sum of its lines' bytes) before it is declared runaway. @default 16 MiB */
  maxRecordBytes: number;
  /** Field count of the header once known (a multi-line row with another count is re-synchronised). */
  expectedFields?: () => number | undefined;
}

const isBlank = (s: string) => s.trim() === '';

/**
 * Parse CSV rows from physical lines. The header is not treated specially here (it is the first row).
 * Error rows are yielded in place (ordered by start line).
 */
export async function* parseCsvRows(lines: AsyncIterable<RawLine>, opts: CsvRowOptions): AsyncGenerator<CsvRow> {
  const delim = opts.delimiter ?? ',';
  const pending: RawLine[] = []; // lines to re-read after a recovery (in order; shifted from the front)
  const iterator = lines[Symbol.asyncIterator]();

  // State of the record being built.
  let fields: string[] = [];
  let field = '';
  let inRecord = false;
  let quoted = false; // inside a quoted field
  let afterQuote = false; // just after a closing quote
  let problem: string | null = null;
  let startLine = 0;
  let recordBytes = 0;
  let held: RawLine[] = []; // lines of the current record (for recovery)

  const reset = () => {
    fields = [];
    field = '';
    inRecord = false;
    quoted = false;
    afterQuote = false;
    problem = null;
    recordBytes = 0;
    held = [];
  };

  const nextLine = async (): Promise<RawLine | null> => {
    if (pending.length > 0) return pending.shift()!;
    const r = await iterator.next();
    return r.done ? null : r.value;
  };

  // Abandon the current (quoted, runaway or unclosed) record: one error row, then re-read its later lines.
  const recover = (reason: string): CsvRow => {
    const row: CsvRow = { line: startLine, endLine: startLine, error: reason };
    const rest = held.slice(1);
    reset();
    pending.unshift(...rest);
    return row;
  };

  for (;;) {
    const raw = await nextLine();
    if (raw === null) {
      if (!inRecord) break;
      // End of input inside a quoted field: the row is an error, then re-read what the quote swallowed.
      yield recover(`quote opened on line ${startLine} is never closed; row skipped`);
      continue;
    }
    if (!inRecord) {
      if (raw.tooLong) {
        yield { line: raw.line, endLine: raw.line, error: `line is longer than ${opts.maxRecordBytes} bytes (${raw.bytes} bytes); row skipped` };
        continue;
      }
      if (isBlank(raw.text)) continue;
      inRecord = true;
      startLine = raw.line;
    } else if (raw.tooLong || recordBytes + raw.bytes > opts.maxRecordBytes) {
      // Only reachable inside a quoted field spanning lines.
      held.push(raw);
      yield recover(`quoted field opened on line ${startLine} runs over ${opts.maxRecordBytes} bytes (unbalanced quote?); row skipped`);
      continue;
    }
    held.push(raw);
    recordBytes += raw.bytes;
    const text = raw.text;
    let i = 0;
    const n = text.length;
    while (i < n) {
      const c = text[i];
      if (quoted) {
        const q = text.indexOf('"', i);
        if (q === -1) {
          field += text.slice(i);
          i = n;
          break;
        }
        field += text.slice(i, q);
        if (text[q + 1] === '"') {
          field += '"';
          i = q + 2;
        } else {
          quoted = false;
          afterQuote = true;
          i = q + 1;
        }
        continue;
      }
      if (c === delim) {
        fields.push(field);
        field = '';
        afterQuote = false;
        i++;
        continue;
      }
      if (afterQuote) {
        // RFC 4180 allows only a delimiter or the line end after a closing quote.
        problem ??= `unexpected character ${JSON.stringify(c)} after a closing quote on line ${raw.line}`;
        afterQuote = false;
      }
      if (c === '"' && field === '' && !fieldStartedUnquoted(text, i, delim)) {
        quoted = true;
        i++;
        continue;
      }
      // Unquoted run up to the next delimiter (quotes inside are literal).
      const d = text.indexOf(delim, i);
      const stop = d === -1 ? n : d;
      field += text.slice(i, stop);
      i = stop;
    }
    if (quoted) {
      field += '\n';
      continue; // the record goes on on the next line
    }
    fields.push(field);
    if (held.length > 1) {
      const expected = opts.expectedFields?.();
      if (problem || (expected !== undefined && fields.length !== expected)) {
        // A quote opened on startLine swallowed later lines: report that row, re-read the others.
        yield recover(`quote opened on line ${startLine} is not closed on its line and the row is malformed (${problem ?? `${fields.length} fields, header has ${expected}`}); row skipped, the lines after it are read again`);
        continue;
      }
    }
    const row: CsvRow = problem ? { line: startLine, endLine: raw.line, error: problem } : { line: startLine, endLine: raw.line, fields };
    reset();
    yield row;
  }
}

/**
 * A quote opens a quoted field only at the very start of the field. `field === ''` alone is not enough:
 * in `a,x"y` the field before `"` is "x", but in `a,""` it is empty — so check that the previous
 * character is the delimiter or the line start.
 */
function fieldStartedUnquoted(text: string, i: number, delim: string): boolean {
  return i > 0 && text[i - 1] !== delim;
}

/** Parse TSV rows (one per non-blank line, split on TAB, no quoting). */
export async function* parseTsvRows(lines: AsyncIterable<RawLine>, opts: { maxRecordBytes: number }): AsyncGenerator<CsvRow> {
  for await (const raw of lines) {
    if (raw.tooLong) {
      yield { line: raw.line, endLine: raw.line, error: `line is longer than ${opts.maxRecordBytes} bytes (${raw.bytes} bytes); row skipped` };
      continue;
    }
    if (isBlank(raw.text)) continue;
    yield { line: raw.line, endLine: raw.line, fields: raw.text.split('\t') };
  }
}
