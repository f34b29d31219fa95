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
 *
 * One loading path: the text is parsed ({@link parseIdf}), packed into flat arrays ({@link packIdf}:
 * the words as UTF-16 code units with offsets, their values, an open-addressing FNV-1a hash table, as
 * the KG snapshot packs its name index) and looked up through one in-memory record per hash slot
 * ({@link idfTableFromPacked}, {@link SlotRecords}). The caller
 * passes the table to the pipeline (`createExtractor({ idf })`, `DocumentContext.idf`); with a
 * {@link DiskCache} the packed bytes are kept on disk, so a cold start reads ~7 MB of arrays instead
 * of parsing ~260k lines.
 */
import { readFileSync, statSync } from 'node:fs';
import { FilmkwError } from '../errors.js';
import { StringTable, unitPair } from '../kg/packed.js';
import { nodejiebaDefaultFiles } from '../lexicon/base.js';
import type { DiskCache } from '../lexicon/cache.js';
import { hashName, SlotTags } from '../util/hash.js';
import type { OptionRules } from '../util/option-rules.js';

export const IDF_PRIORS = ['off', 'multiply'] as const;

/** The IDF prior (group `prior` of the pipeline options). */
export interface PriorOptions {
  /**
   * `'off'` (the paper: graph scores only) or `'multiply'`: final score × idf(word) before the top K
   * (module header). Scores in the output are then the products.
   * @default 'off'
   */
  idf: (typeof IDF_PRIORS)[number];
}

export const DEFAULT_PRIOR_OPTIONS: Readonly<PriorOptions> = Object.freeze({ idf: 'off' });

export const PRIOR_OPTION_RULES: OptionRules<PriorOptions> = Object.freeze({ idf: { type: 'enum', values: IDF_PRIORS } });

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
  /**
   * `out[i] = weight(words[i])` for every i of `which` (optional: callers fall back to {@link weight}).
   * The packed table looks the words up side by side, so that their waits for memory overlap.
   */
  weights?(words: readonly string[], which: readonly number[], out: Float64Array): void;
}

/** A parsed IDF file: distinct words in first-appearance order, each with its value (the last line wins). */
export interface IdfEntries {
  readonly words: readonly string[];
  readonly values: Float64Array;
  /** The mean over the words (each counted with the value of its first line). */
  readonly unknown: number;
}

/**
 * Parse an IDF file: one `word idf` per line (space or tab separated); blank lines are skipped. A line
 * with a missing or non-numeric IDF is an INPUT error naming file:line.
 * @param name the file's display name in errors
 */
export function parseIdfEntries(content: string, name: string): IdfEntries {
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
  return { words: [...map.keys()], values: Float64Array.from(map.values()), unknown: sum / map.size };
}

/** Byte layout of a packed table: a header of 4 Int32 (count, code units, hash slots, {@link TAGGED}) and the mean. */
const HEADER_BYTES = 24;
/** The header's fourth Int32: the slots are tagged (util/hash.ts `SlotTags`; 0 was the untagged layout). */
const TAGGED = 1;

/**
 * Packs parsed entries into one byte array: header, values (Float64), word offsets (Int32, count + 1),
 * hash slots (Int32, a power of two ≥ 2 × count; -1 = empty; linear probing from FNV-1a of the word's
 * code units; each slot the word's index tagged with its hash, util/hash.ts `SlotTags`; the lookups read
 * {@link SlotRecords} made from these sections instead), the words' UTF-16 code units. Every section
 * starts at a multiple of 8 bytes.
 */
export function packIdf(e: IdfEntries): Uint8Array {
  const n = e.words.length;
  const table = StringTable.from(e.words);
  let cap = 8;
  while (cap < n * 2) cap *= 2;
  const slots = new Int32Array(cap).fill(-1);
  const mask = cap - 1;
  const tags = new SlotTags(n);
  for (let k = 0; k < n; k++) {
    const h = hashName(e.words[k]);
    let p = h & mask;
    while (slots[p] !== -1) p = (p + 1) & mask;
    slots[p] = k | tags.tagOf(h);
  }
  const at = sections(n, table.units.length, cap);
  const out = new Uint8Array(at.end);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, n, true);
  dv.setInt32(4, table.units.length, true);
  dv.setInt32(8, cap, true);
  dv.setInt32(12, TAGGED, true);
  dv.setFloat64(16, e.unknown, true);
  new Float64Array(out.buffer, at.values, n).set(e.values);
  new Int32Array(out.buffer, at.offsets, n + 1).set(table.offsets);
  new Int32Array(out.buffer, at.slots, cap).set(slots);
  new Uint16Array(out.buffer, at.units, table.units.length).set(table.units);
  return out;
}

const align8 = (x: number): number => (x + 7) & ~7;

function sections(n: number, units: number, cap: number): { values: number; offsets: number; slots: number; units: number; end: number } {
  const values = HEADER_BYTES;
  const offsets = values + 8 * n;
  const slots = align8(offsets + 4 * (n + 1));
  const unitsAt = align8(slots + 4 * cap);
  return { values, offsets, slots, units: unitsAt, end: unitsAt + 2 * units };
}

/**
 * The table over packed bytes ({@link packIdf}): the slots and the words' units are read in place, and
 * one record per hash slot is kept in memory ({@link SlotRecords}). Throws FilmkwError INPUT when the bytes
 * are not such a table.
 */
export function idfTableFromPacked(packed: Uint8Array, source: string): IdfTable {
  // typed-array views need aligned offsets: a buffer that is not 8-aligned is copied once
  const bytes = packed.byteOffset % 8 === 0 ? packed : new Uint8Array(packed.buffer.slice(packed.byteOffset, packed.byteOffset + packed.byteLength));
  const bad = (why: string) => new FilmkwError('INPUT', `idf: packed table ${source}: ${why}`);
  if (bytes.byteLength < HEADER_BYTES) throw bad('too short');
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = dv.getInt32(0, true), unitCount = dv.getInt32(4, true), cap = dv.getInt32(8, true);
  const unknown = dv.getFloat64(16, true);
  if (n < 1 || unitCount < 0 || cap < 2 * n || (cap & (cap - 1)) !== 0 || dv.getInt32(12, true) !== TAGGED) throw bad('bad header');
  const at = sections(n, unitCount, cap);
  if (at.end !== bytes.byteLength) throw bad(`${bytes.byteLength} bytes, the header says ${at.end}`);
  const base = bytes.byteOffset;
  const values = new Float64Array(bytes.buffer, base + at.values, n);
  const words = new StringTable(new Uint16Array(bytes.buffer, base + at.units, unitCount), new Int32Array(bytes.buffer, base + at.offsets, n + 1));
  const slots = new Int32Array(bytes.buffer, base + at.slots, cap);
  const reason = words.check();
  if (reason) throw bad(reason);
  const records = new SlotRecords(words, values, slots, new SlotTags(n).keyMask, unknown);
  const mask = cap - 1;
  // weights(): the hash of every word and a load of the record of its first slot, then the lookups
  // proper; the first pass makes independent loads (the records are megabytes: a lookup alone waits for
  // memory), the second finds their cache lines loaded
  let hashes = new Int32Array(64);
  let touched = 0;
  return Object.freeze({
    source,
    size: n,
    unknown,
    weight: (word: string): number => records.find(word, hashName(word)),
    weights(list: readonly string[], which: readonly number[], out: Float64Array): void {
      const m = which.length;
      if (hashes.length < m) hashes = new Int32Array(2 * m);
      for (let j = 0; j < m; j++) {
        const h = hashName(list[which[j]]);
        hashes[j] = h;
        touched += records.fields[4 * (h & mask) + S_LEN];
      }
      for (let j = 0; j < m; j++) out[which[j]] = records.find(list[which[j]], hashes[j]);
      // keep the loads above (their sum is never read)
      if (touched > 1e300) touched = 0;
    },
  });
}

/** A slot's record ({@link SlotRecords}) as 4 Int32: the value (Float64) in the first two, then these two. */
const S_U01 = 2;
const S_LEN = 3;
/** The length part of a record's {@link S_LEN} field when the word is empty or too long for it (compared in the string table). */
const LONG = 0xffff;
/** The {@link S_LEN} field of a record not made yet. */
const UNMADE = 0;
/** The {@link S_LEN} field of an empty slot (length 0 and unit 1: no word's). */
const EMPTY = 1;

/** Code unit 2 (0 past the end) and the length as one Int32 ({@link LONG} for the empty word and from LONG units on). */
const unit2Len = (unit: (i: number) => number, len: number): number => (len > 2 ? unit(2) : 0) | ((len === 0 || len >= LONG ? LONG : len) << 16);

/**
 * The table's hash slots as records of 16 bytes, in the slots' order (slot p at 16p): the value of the
 * slot's word, its first three code units and its length (the rest of a longer word stays in the string
 * table), or "empty". Kept in memory beside the packed table (whose layout is unchanged, as corpus-pack.ts
 * `surfaceRecords`): in the packed sections a lookup reads the slot, then the word's offsets, units and
 * value, each in an array megabytes away, and waits for memory (and for the address translation) once
 * per array; over the records it reads one record for most words. A record is made when a lookup first
 * reaches its slot ({@link UNMADE}), so that a load allocates the records but touches none of their
 * pages: a process pays for the records of the slots it reaches.
 */
export class SlotRecords {
  /** The records' values: slot p's at 2p. */
  readonly value: Float64Array;
  /** The records' other fields: slot p's at 4p + 2 and 4p + 3. */
  readonly fields: Int32Array;
  private readonly mask: number;

  /** @param slots the packed hash slots (word index in the bits of `keyMask`, -1 = empty) */
  constructor(
    readonly words: StringTable,
    private readonly values: Float64Array,
    private readonly slots: Int32Array,
    private readonly keyMask: number,
    private readonly unknown: number,
  ) {
    const buffer = new ArrayBuffer(16 * slots.length);
    this.value = new Float64Array(buffer);
    this.fields = new Int32Array(buffer);
    this.mask = slots.length - 1;
  }

  /** The value of word `s` of hash h (linear probing from h's slot), else the unknown value. */
  find(s: string, h: number): number {
    const { fields, mask } = this;
    const len = s.length;
    const unit = (i: number): number => s.charCodeAt(i);
    const f01 = unitPair(unit, len, 0);
    const f2 = unit2Len(unit, len);
    for (let p = h & mask; ; p = (p + 1) & mask) {
      let g = fields[4 * p + S_LEN];
      if (g === UNMADE) g = this.make(p);
      if (g === EMPTY) return this.unknown;
      if (g !== f2 || fields[4 * p + S_U01] !== f01) continue;
      if (g >>> 16 === LONG ? this.words.equals(this.slots[p] & this.keyMask, s) : len <= 3 || this.sameTail(p, s)) return this.value[2 * p];
    }
  }

  /** Whether the word of slot p has the units of `s` from the fourth on (the lengths are equal, below {@link LONG}). */
  private sameTail(p: number, s: string): boolean {
    const u = this.words.units;
    const a = this.words.offsets[this.slots[p] & this.keyMask];
    for (let i = 3; i < s.length; i++) if (u[a + i] !== s.charCodeAt(i)) return false;
    return true;
  }

  private make(p: number): number {
    const x = this.slots[p];
    if (x < 0) return (this.fields[4 * p + S_LEN] = EMPTY);
    const k = x & this.keyMask;
    const { offsets, units } = this.words;
    const a = offsets[k];
    const len = offsets[k + 1] - a;
    const unit = (i: number): number => units[a + i];
    this.value[2 * p] = this.values[k];
    this.fields[4 * p + S_U01] = unitPair(unit, len, 0);
    return (this.fields[4 * p + S_LEN] = unit2Len(unit, len));
  }
}

/** An IDF table from the text of a table file (parsed and packed; see module header). */
export function parseIdf(content: string, name: string): IdfTable {
  return idfTableFromPacked(packIdf(parseIdfEntries(content, name)), name);
}

/** Where an IDF table is read from. */
export interface LoadIdfOptions {
  /** Keep the packed table in this cache (the CLI passes its cache; a library caller only when it asks). */
  cache?: DiskCache | null;
}

const BUNDLED_NAME = 'nodejieba idf.utf8';

/**
 * nodejieba's bundled idf.utf8 (read from the installed package at run time): parsed and packed, or the
 * packed bytes from the cache (keyed by the file's size and modification time, nodejieba's version, and
 * the source of this module and of util/hash.ts). Each call loads the table anew: a caller that builds
 * many extractors loads it once and passes it to each.
 */
export function loadBundledIdf(opts: LoadIdfOptions = {}): IdfTable {
  const path = nodejiebaDefaultFiles().idfDict;
  const read = (): Buffer => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new FilmkwError('INPUT', `idf: cannot read nodejieba's idf.utf8 (${(err as Error).message})`, { cause: err });
    }
  };
  const pack = (): Uint8Array => packIdf(parseIdfEntries(read().toString('utf8'), BUNDLED_NAME));
  if (!opts.cache) return idfTableFromPacked(pack(), BUNDLED_NAME);
  let stamp: { size: number; mtimeMs: number };
  try {
    const st = statSync(path);
    stamp = { size: st.size, mtimeMs: Math.trunc(st.mtimeMs) };
  } catch (err) {
    throw new FilmkwError('INPUT', `idf: cannot read nodejieba's idf.utf8 (${(err as Error).message})`, { cause: err });
  }
  const { value } = opts.cache.bytes('idf-table', 'none', { table: BUNDLED_NAME, ...stamp }, pack, [import.meta.url, new URL('../util/hash.js', import.meta.url).href]);
  return idfTableFromPacked(value, BUNDLED_NAME);
}
