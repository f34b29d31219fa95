/**
 * JSON inputs beyond JSON lines (readers.ts): what a `.json` file holds, the elements of one JSON array
 * streamed one by one, and the check that stops a run whose text field no record has.
 *
 * - {@link peekFirstChar}: the first character that is not white space or a byte-order mark, with the
 *   stream handed back whole (what `.json` files and stdin without `--format` are sniffed by).
 * - {@link arrayElements}: the top-level elements of `[ … ]` as text, each with the line it starts on,
 *   in one pass over the decoded characters (string, escape and nesting state only). Hand-written rather
 *   than a streaming JSON library (stream-json): a record needs its line for error messages and a byte cap
 *   per element, which those parsers do not give; each element is then parsed by JSON.parse. Memory is
 *   bounded by the largest element (`maxRecordBytes`; a larger one becomes an error record without being
 *   kept); time is linear in the input.
 * - {@link FieldCheck}: holds back the records read until one has the text field; when none of the first
 *   {@link FIELD_CHECK_RECORDS} has it (or the input ends first), the run stops with one input error
 *   listing the lines it read, the fields the records do have and the likeliest one ("did you mean
 *   --text-field …").
 */
import { inputError } from '../errors.js';

/** Whether a UTF-16 code unit is white space or a byte-order mark before the first JSON character. */
const blank = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xfeff;

/**
 * The first character of a byte or string stream that is not white space or a BOM (null: none), and the
 * stream itself from its start. Bytes are looked at as ASCII (the UTF-8 BOM, EF BB BF, and zero bytes of
 * UTF-16 are skipped), so `{` and `[` are found in UTF-8, UTF-16 and the ASCII-compatible legacy encodings.
 */
export async function peekFirstChar<T extends Uint8Array | string>(source: AsyncIterable<T>): Promise<{ first: string | null; source: AsyncIterable<T> }> {
  const it = source[Symbol.asyncIterator]();
  const held: T[] = [];
  let first: string | null = null;
  let done = false;
  while (first === null && !done) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    held.push(r.value);
    first = firstChar(r.value);
  }
  async function* replay(): AsyncGenerator<T> {
    yield* held;
    if (done) return;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  }
  return { first, source: replay() };
}

/**
 * The first character of a readable stream that is not white space or a BOM (null: none), read without
 * consuming anything: what was read is pushed back (`unshift`), so the stream reads from its start after.
 * For stdin without `--format`.
 */
export async function peekStreamFirstChar(stream: NodeJS.ReadableStream & { unshift(chunk: Buffer | string): void; readableEnded?: boolean }): Promise<string | null> {
  const held: (Buffer | string)[] = [];
  let first: string | null = null;
  while (first === null) {
    const chunk = stream.read() as Buffer | string | null;
    if (chunk === null) {
      if (stream.readableEnded) break;
      await new Promise<void>((resolve) => {
        const done = () => {
          stream.off('readable', done);
          stream.off('end', done);
          resolve();
        };
        stream.on('readable', done);
        stream.on('end', done);
      });
      continue;
    }
    held.push(chunk);
    first = firstChar(chunk);
  }
  if (held.length > 0) stream.unshift(typeof held[0] === 'string' ? held.join('') : Buffer.concat(held as Buffer[]));
  return first;
}

function firstChar(chunk: Uint8Array | string): string | null {
  if (typeof chunk === 'string') {
    for (let i = 0; i < chunk.length; i++) if (!blank(chunk.charCodeAt(i))) return chunk[i]!;
    return null;
  }
  for (let i = 0; i < chunk.length; i++) {
    const b = chunk[i]!;
    if (blank(b) || b === 0 || b === 0xef || b === 0xbb || b === 0xbf || b === 0xff || b === 0xfe) continue;
    return String.fromCharCode(b);
  }
  return null;
}

/** One top-level element of a JSON array: its text, or why it could not be kept. */
export type ArrayElement = { line: number; text: string } | { line: number; error: string };

/**
 * The elements of one JSON array (module header). The input must start with `[` (after white space);
 * anything but white space after the closing `]` or an input that ends inside the array becomes an
 * error element at the line where it happens.
 */
export async function* arrayElements(chars: AsyncIterable<string>, maxBytes: number): AsyncGenerator<ArrayElement> {
  let line = 1;
  let state = 'before' as 'before' | 'between' | 'in' | 'after';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let parts: string[] = [];
  let start = 0; // the element's first character in the current chunk
  let bytes = 0; // UTF-8 bytes of the element so far
  let elementLine = 0;
  let tooLarge = false;
  const keep = (s: string) => {
    if (tooLarge) return;
    bytes += Buffer.byteLength(s);
    if (bytes > maxBytes) {
      tooLarge = true;
      parts = [];
    } else parts.push(s);
  };
  const finish = (chunk: string, end: number): ArrayElement => {
    keep(chunk.slice(start, end));
    const el: ArrayElement = tooLarge ? { line: elementLine, error: `array element is larger than ${maxBytes} bytes; record skipped` } : { line: elementLine, text: parts.join('').trimEnd() };
    parts = [];
    bytes = 0;
    tooLarge = false;
    state = 'between';
    return el;
  };
  for await (const chunk of chars) {
    start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (state === 'in') {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 0x5c) escaped = true;
          else if (c === 0x22) inString = false;
        } else if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          if (depth === 0) {
            // `]` ending the array right after a bare value (a number, true …)
            yield finish(chunk, i);
            state = 'after';
          } else if (--depth === 0) yield finish(chunk, i + 1);
        } else if (c === 0x2c && depth === 0) yield finish(chunk, i);
      } else if (!blank(c)) {
        if (state === 'before') {
          if (c !== 0x5b) {
            yield { line, error: 'not a JSON array: the input does not start with [' };
            return;
          }
          state = 'between';
        } else if (state === 'between') {
          if (c === 0x5d) state = 'after';
          else if (c !== 0x2c) {
            state = 'in';
            start = i;
            elementLine = line;
            depth = c === 0x7b || c === 0x5b ? 1 : 0;
            inString = c === 0x22;
          }
        } else {
          yield { line, error: 'unexpected text after the end of the JSON array' };
          return;
        }
      }
      if (c === 0x0a) line++;
    }
    if (state === 'in') keep(chunk.slice(start));
  }
  if (state === 'in') yield { line: elementLine, error: 'the input ends inside the JSON array (no closing ])' };
  else if (state === 'between') yield { line, error: 'the input ends inside the JSON array (no closing ])' };
}

/** Records held back by {@link FieldCheck} at most before it decides. */
export const FIELD_CHECK_RECORDS = 100;

/** Fields listed at most in the error message. */
const FIELDS_SHOWN = 30;

/** Per field: records that have it, and characters of its string values (the text is the longest). */
interface FieldSeen {
  records: number;
  chars: number;
}

/**
 * The text-field check of a JSON input (module header). Feed every record with the object it was read
 * from (null: not an object); `push` and `end` return the records to pass on now, in order.
 */
export class FieldCheck<R> {
  private held: R[] = [];
  private settled = false;
  private objects = 0;
  private readonly fields = new Map<string, FieldSeen>();
  constructor(
    private readonly field: string,
    private readonly what: { source: string; cmd: string; fieldWasGiven: boolean; lineOf?: (record: R) => number },
  ) {}

  push(record: R, object: Record<string, unknown> | null, hasField: boolean): R[] {
    if (this.settled) return [record];
    if (hasField) {
      this.settled = true;
      const out = [...this.held, record];
      this.held = [];
      return out;
    }
    this.held.push(record);
    if (object) {
      this.objects++;
      this.note(object);
    }
    if (this.held.length >= FIELD_CHECK_RECORDS) this.fail(false);
    return [];
  }

  /** At the end of the input: the records held, or the error when none had the field. */
  end(): R[] {
    if (!this.settled && this.objects > 0) this.fail(true);
    const out = this.held;
    this.held = [];
    return out;
  }

  private note(o: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(o)) {
      let f = this.fields.get(k);
      if (!f) {
        if (this.fields.size >= 200) continue;
        this.fields.set(k, (f = { records: 0, chars: 0 }));
      }
      f.records++;
      if (typeof v === 'string') f.chars += v.length;
      else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') f.chars += x.length;
    }
  }

  private fail(ended: boolean): never {
    const n = this.held.length;
    const lines = this.what.lineOf ? this.held.map(this.what.lineOf) : [];
    const where = lines.length === 0 ? '' : lines.length === 1 ? ` (line ${lines[0]})` : ` (lines ${lines[0]}–${lines[lines.length - 1]})`;
    const which = n === 1 && ended ? `its only record${where} has` : `none of ${ended ? 'its' : 'the first'} ${n} records${where} has`;
    const names = [...this.fields.keys()];
    const shown = names.slice(0, FIELDS_SHOWN).map((k) => JSON.stringify(k)).join(', ') + (names.length > FIELDS_SHOWN ? `, … (${names.length} in all)` : '');
    const guess = likelyTextField(this.field, this.fields);
    const given = this.what.fieldWasGiven ? `--text-field ${this.field}` : `the default text field "${this.field}"`;
    throw inputError(
      `${this.what.cmd}: ${this.what.source}: ${which} ${given} (fields: ${shown || 'none'})${guess ? `; did you mean --text-field ${guess}?` : ''}`,
    );
  }
}

/**
 * The field a user most likely meant: one whose name is within two edits of the given one, else the one
 * with the most text (strings and arrays of strings, the summed length), when it has any.
 */
function likelyTextField(given: string, fields: Map<string, FieldSeen>): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of fields.keys()) {
    const d = editDistance(given.toLowerCase(), name.toLowerCase(), bestDistance);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  if (best !== undefined) return best;
  let most = 0;
  for (const [name, f] of fields) {
    if (f.chars > most) {
      most = f.chars;
      best = name;
    }
  }
  return best;
}

/** Levenshtein distance, or `cap` when it is at least `cap` (short names only: O(|a|·|b|)). */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap || a.length > 64 || b.length > 64) return cap;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return Math.min(prev[b.length]!, cap);
}
