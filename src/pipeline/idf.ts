/**
 * IDF prior (an extension beyond 王芳 等 2022; option group `prior`, off in every paper preset).
 *
 * Graph rankings favour frequent generic words (传统, 中国, 文化, 时代 …) that TF-IDF pushes down, and on
 * film-dev nodejieba's TF-IDF beats plain TextRank. With `prior.idf: 'multiply'` the final score of each
 * candidate is multiplied by its inverse document frequency before the top K are taken:
 *
 *   score'(v_i) = S(v_i) · idf(v_i)
 *
 * The IDF table is nodejieba's bundled `idf.utf8` (the cppjieba `KeywordExtractor` table), read at run
 * time from the installed package (never copied into this repository). A word absent from the table
 * (KG entity names such as 百鸟朝凤, HMM-found names) gets the mean IDF of the table, which is what
 * cppjieba's KeywordExtractor does (`idfAverage_`). Measured on the paper's full model (eval/results/
 * film-dev/ANALYSIS.md §4): +0.048 [+0.032, +0.064] F1@5 on film-dev and +0.016 [+0.011, +0.021] on
 * csl-dev (paired 95% bootstrap intervals); it is part of the preset `filmkw`.
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { FilmkwError } from '../errors.js';
import { nodejiebaDefaultFiles } from '../lexicon/base.js';
import { cachedStrings } from '../lexicon/cache.js';
import { FNV_OFFSET, FNV_PRIME, hashUnits } from '../util/hash.js';

/** The IDF prior (group `prior` of the pipeline options). */
export interface PriorOptions {
  /**
   * `'off'` (the paper: graph scores only) or `'multiply'`: final score × idf(word) before the top K
   * (module header). Scores in the output are then the products.
   * @default 'off'
   */
  idf: 'off' | 'multiply';
}

/** An IDF table: word → idf, with the value used for words that are not in it. */
export interface IdfTable {
  /** Where the table came from (file name only, for `options`/results; never a machine path). */
  readonly source: string;
  /** Number of words in the table. */
  readonly size: number;
  /** IDF of words absent from the table (the table's mean). */
  readonly unknown: number;
  /** IDF of a word (the table's value, else {@link unknown}). */
  weight(word: string): number;
}

/**
 * Parse an IDF file: one `word idf` per line (space or tab separated); blank lines are skipped. A line
 * with a missing or non-numeric IDF is an INPUT error naming file:line.
 * @param name the file's display name in errors and in {@link IdfTable.source}
 */
export function parseIdf(content: string, name: string): IdfTable {
  const map = new Map<string, number>();
  let sum = 0;
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const cut = line.search(/\s/u);
    const word = cut < 0 ? line : line.slice(0, cut);
    const value = cut < 0 ? NaN : Number(line.slice(cut + 1).trim());
    if (!Number.isFinite(value)) throw new FilmkwError('INPUT', `idf: ${name}:${i + 1}: idf: expected "word idf", got ${JSON.stringify(line.slice(0, 60))}`);
    if (!map.has(word)) sum += value;
    map.set(word, value);
  }
  if (map.size === 0) throw new FilmkwError('INPUT', `idf: ${name}: no entries`);
  const unknown = sum / map.size;
  return Object.freeze({
    source: name,
    size: map.size,
    unknown,
    weight: (word: string) => map.get(word) ?? unknown,
  });
}


/** Whether a multi-byte UTF-8 sequence at b[p] is a character JS counts as whitespace (`\s`, `trim`). */
function isWideSpace(b: Uint8Array, p: number): boolean {
  const c = b[p];
  if (c === 0xc2) return b[p + 1] === 0xa0; // U+00A0
  if (c === 0xe1) return b[p + 1] === 0x9a && b[p + 2] === 0x80; // U+1680
  if (c === 0xe2) {
    const x = b[p + 1], y = b[p + 2];
    return (x === 0x80 && ((y >= 0x80 && y <= 0x8a) || y === 0xa8 || y === 0xa9 || y === 0xaf)) || (x === 0x81 && y === 0x9f); // U+2000–200A, 2028, 2029, 202F, 205F
  }
  if (c === 0xe3) return b[p + 1] === 0x80 && b[p + 2] === 0x80; // U+3000
  if (c === 0xef) return b[p + 1] === 0xbb && b[p + 2] === 0xbf; // U+FEFF
  return false;
}

/** A byte of a plain number: digits, `.`, `e`, `E`, `+`, `-`. */
const isNumberByte = (c: number): boolean => (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;

/**
 * The whole table as a hash index over its raw bytes, for a table in the plain form nodejieba's is in:
 * valid UTF-8, every non-blank line `word value` with one ASCII space, no other whitespace, the value
 * digits/./e/+/- only (an optional BOM first). Weights, size and mean are then exactly {@link parseIdf}'s
 * (the last line of a repeated word wins; the mean counts each word's first line), in ~1/10 of its time
 * and without a 260k-entry Map of strings. Null when the table is not in that form: parse it instead.
 */
export function indexIdf(content: Uint8Array, name: string): IdfTable | null {
  const b = asBuffer(content);
  if (!isUtf8(b)) return null;
  const n = b.length;
  let lines = 1;
  for (let p = b.indexOf(0x0a); p >= 0; p = b.indexOf(0x0a, p + 1)) lines++;
  const wordStart = new Int32Array(lines);
  const wordEnd = new Int32Array(lines);
  const values = new Float64Array(lines);
  let cap = 8;
  while (cap < lines * 2) cap *= 2;
  const slots = new Int32Array(cap).fill(-1);
  const mask = cap - 1;
  const same = (k: number, from: number, to: number): boolean => {
    const a = wordStart[k];
    if (wordEnd[k] - a !== to - from) return false;
    for (let i = 0; i < to - from; i++) if (b[a + i] !== b[from + i]) return false;
    return true;
  };
  let count = 0;
  let size = 0;
  let sum = 0;
  let pos = n >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  while (pos <= n) {
    let end = b.indexOf(0x0a, pos);
    if (end < 0) end = n;
    if (end > pos) {
      let h = FNV_OFFSET;
      let p = pos;
      for (; p < end; p++) {
        const c = b[p];
        if (c === 0x20) break;
        if ((c >= 0x09 && c <= 0x0d) || (c >= 0xc2 && isWideSpace(b, p))) return null;
        h = Math.imul(h ^ c, FNV_PRIME);
      }
      if (p === pos || p + 1 >= end) return null; // no word, or no value
      for (let q = p + 1; q < end; q++) if (!isNumberByte(b[q])) return null;
      const value = Number(b.toString('latin1', p + 1, end));
      if (!Number.isFinite(value)) return null;
      let slot = (h >>> 0) & mask;
      for (;;) {
        const k = slots[slot];
        if (k < 0) {
          wordStart[count] = pos;
          wordEnd[count] = p;
          values[count] = value;
          slots[slot] = count++;
          size++;
          sum += value;
          break;
        }
        if (same(k, pos, p)) {
          values[k] = value; // the last line of a repeated word wins, as in parseIdf
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    pos = end + 1;
  }
  if (size === 0) return null;
  const unknown = sum / size;
  let scratch = Buffer.alloc(256);
  // words seen before are answered from a memo (a Map hit is several times cheaper than encoding the
  // word and probing the byte index); bounded, cleared when full
  const memo = new Map<string, number>();
  const lookup = (word: string): number => {
    if (word === '' || !(word as string & { isWellFormed(): boolean }).isWellFormed()) return unknown;
    if (scratch.length < word.length * 3) scratch = Buffer.alloc(word.length * 3);
    const len = scratch.write(word, 'utf8');
    for (let slot = hashUnits(scratch, 0, len) & mask; ; slot = (slot + 1) & mask) {
      const k = slots[slot];
      if (k < 0) return unknown;
      const a = wordStart[k];
      if (wordEnd[k] - a !== len) continue;
      let eq = true;
      for (let i = 0; i < len && eq; i++) if (b[a + i] !== scratch[i]) eq = false;
      if (eq) return values[k];
    }
  };
  return Object.freeze({
    source: name,
    size,
    unknown,
    weight(word: string): number {
      let v = memo.get(word);
      if (v === undefined) {
        v = lookup(word);
        if (memo.size >= 200_000) memo.clear();
        memo.set(word, v);
      }
      return v;
    },
  });
}

/** Lookups answered by scanning the raw table before the full table is built (see {@link loadBundledIdf}). */
export const LAZY_IDF_LOOKUPS = 64;

/** A printable, non-space ASCII byte (never part of a whitespace character). */
const isAsciiWord = (b: number): boolean => b > 0x20 && b < 0x7f;

const asBuffer = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/**
 * The IDF of `word` in the raw table (its UTF-8 bytes) exactly as {@link parseIdf} would give it (the last
 * line whose first field is the word; `undefined` when none), found by searching the bytes instead of
 * decoding and parsing ~6 MB: each hit's line alone is decoded and read as parseIdf reads a line.
 * The table must be valid UTF-8 (nodejieba's is): a word parseIdf would decode from invalid bytes (with
 * U+FFFD in it) is not found here.
 */
export function scanIdf(content: Uint8Array, word: string): number | undefined {
  // parseIdf never yields such a word (fields split at whitespace; decoded text has no lone surrogate)
  if (word === '' || /\s/u.test(word) || !(word as string & { isWellFormed(): boolean }).isWellFormed()) return undefined;
  const bytes = asBuffer(content);
  const needle = Buffer.from(word, 'utf8');
  let at = bytes.length - needle.length;
  while (at >= 0) {
    const p = bytes.lastIndexOf(needle, at);
    if (p < 0) return undefined;
    at = p - 1;
    // cheap rejections: a printable ASCII byte right before or after the hit is not a field boundary
    // (11 inside 2011, 电 inside a longer word ending in ASCII); anything else is decided on the line
    if (p > 0 && isAsciiWord(bytes[p - 1])) continue;
    const after = p + needle.length;
    if (after < bytes.length && isAsciiWord(bytes[after])) continue;
    const start = p === 0 ? 0 : bytes.lastIndexOf(0x0a, p - 1) + 1;
    at = start - 1; // the line's first field is not the word: no other hit on this line can be
    let end = bytes.indexOf(0x0a, p);
    if (end < 0) end = bytes.length;
    const line = bytes.toString('utf8', start, end).trim();
    const cut = line.search(/\s/u);
    if (cut < 0 || line.slice(0, cut) !== word) continue;
    const value = Number(line.slice(cut + 1).trim());
    return Number.isFinite(value) ? value : undefined;
  }
  return undefined;
}

/**
 * An IDF table over the raw bytes of a table file that defers decoding and parsing: the first
 * {@link LAZY_IDF_LOOKUPS} distinct words are looked up by searching the bytes (a cold start tags one
 * short text with a few dozen lookups instead of decoding 6 MB and parsing ~260k lines, ~0.35 s), after
 * that the table is indexed once ({@link indexIdf}; parsed instead when not in plain form). Values are
 * those of {@link parseIdf} either way; `unknown` (the mean) comes from `mean()` until then.
 */
export function lazyIdfTable(content: Uint8Array, name: string, mean: () => number): IdfTable {
  let full: IdfTable | null = null;
  let unknown: number | undefined;
  const memo = new Map<string, number>();
  const build = (): IdfTable => (full ??= indexIdf(content, name) ?? parseIdf(asBuffer(content).toString('utf8'), name));
  return Object.freeze({
    source: name,
    get size() {
      return build().size;
    },
    get unknown() {
      return full ? full.unknown : (unknown ??= mean());
    },
    weight(word: string): number {
      if (full) return full.weight(word);
      const known = memo.get(word);
      if (known !== undefined) return known;
      if (memo.size >= LAZY_IDF_LOOKUPS) return build().weight(word);
      const value = scanIdf(content, word) ?? (unknown ??= mean());
      memo.set(word, value);
      return value;
    },
  });
}

let bundled: IdfTable | undefined;

/**
 * nodejieba's bundled idf.utf8, loaded once per process, parsed lazily ({@link lazyIdfTable}); its mean
 * (the IDF of unknown words) is kept in the on-disk cache of src/lexicon/cache.ts (keyed by nodejieba's
 * version and this module's source), so a cold start never parses the whole table.
 */
export function loadBundledIdf(): IdfTable {
  if (bundled) return bundled;
  const path = nodejiebaDefaultFiles().idfDict;
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (err) {
    throw new FilmkwError('INPUT', `idf: cannot read nodejieba's idf.utf8 (${(err as Error).message})`, { cause: err });
  }
  const name = 'nodejieba idf.utf8';
  const mean = (): number => Number(cachedStrings('idf-mean', 'none', { table: name }, () => [String((indexIdf(content, name) ?? parseIdf(content.toString('utf8'), name)).unknown)]).values[0]);
  bundled = lazyIdfTable(content, name, mean);
  return bundled;
}
