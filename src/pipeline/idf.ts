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
import { readFileSync } from 'node:fs';
import { FilmkwError } from '../errors.js';
import { nodejiebaDefaultFiles } from './segmenters/nodejieba.js';
import { cachedStrings } from '../kg/dict-cache.js';

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
 * that the table is decoded and parsed once. Values are those of {@link parseIdf} either way; `unknown`
 * (the mean) comes from `mean()` until the table is parsed.
 */
export function lazyIdfTable(content: Uint8Array, name: string, mean: () => number): IdfTable {
  let full: IdfTable | null = null;
  let unknown: number | undefined;
  const memo = new Map<string, number>();
  const build = (): IdfTable => (full ??= parseIdf(asBuffer(content).toString('utf8'), name));
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
 * (the IDF of unknown words) is kept in the on-disk cache of src/kg/dict-cache.ts (keyed by nodejieba's
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
  const mean = (): number => Number(cachedStrings('idf-mean', 'none', { table: name }, () => [String(parseIdf(content.toString('utf8'), name).unknown)]).values[0]);
  bundled = lazyIdfTable(content, name, mean);
  return bundled;
}
