/**
 * The corpus statistics in memory (corpus-stats.ts): flat arrays packed into one byte array, as the IDF
 * table is packed (idf.ts), so that a loaded table is a few typed-array views and a cached table costs
 * a file read, not a parse of ~100k lines. Surfaces are UTF-16 code units with offsets (kg/packed.ts
 * StringTable) found through an open-addressing FNV-1a table; per-film counts are one list per surface
 * (offsets, film, count); documents are their 64-bit text hashes, sorted, searched by halving.
 *
 * Layout: 12 Int32 of sizes, then the sections, each at a multiple of 8 bytes: df, spread, per-film
 * offsets, films, counts, hash slots, surface offsets, film documents, film-key offsets, document hashes
 * (high and low halves), document films, surface units, film-key units, and the header as JSON (with the
 * content hash).
 */
import { FilmkwError } from '../errors.js';
import { StringTable, unitPair } from '../kg/packed.js';
import { hashName, hashUnits, SlotTags } from '../util/hash.js';

/** The statistics of one corpus (corpus-stats.ts, module header). Indices: surfaces k, films j. */
export interface CorpusStats {
  /** Where it came from (a file name, or `self`; never a machine path). */
  readonly source: string;
  /** sha256 hex of the table's text (recorded in a model trained with it). */
  readonly contentHash: string;
  /** Documents counted, and films with at least one document. */
  readonly docs: number;
  readonly films: number;
  /** The surface's index, -1 when its df is below the table's minimum. */
  word(surface: string): number;
  df(k: number): number;
  spread(k: number): number;
  /** A film's index by key (corpus-stats.ts `filmKey`), -1 when the corpus has no document of it. */
  filmIndex(key: string): number;
  filmDocs(j: number): number;
  /** Documents of film j that have surface k (0 when not kept: films of one document). */
  filmDf(k: number, j: number): number;
  /**
   * `out[i] = word(surfaces[i])` for every i, the lookups side by side ({@link corpusStatsOf}), and the
   * counts of each surface found fetched for the reads of df, spread and filmDf that follow.
   */
  wordsOf(surfaces: readonly string[], out: Int32Array): void;
  /** `out[i] = filmDf(words[i], j)` for i < `count` (0 where words[i] < 0), the searches side by side. */
  filmDfs(words: Int32Array, count: number, j: number, out: Int32Array): void;
  /** The film index of a document of the table by its text hash (corpus-stats.ts `textHash`), -1 without a film, -2 when not in the table. */
  docFilm(hash: string): number;
}

/** The table's header (line 1). */
export interface CorpusStatsHeader {
  readonly format: string;
  readonly version: number;
  readonly docs: number;
  readonly films: number;
  readonly minDf: number;
  readonly [key: string]: unknown;
}

/** A table's arrays (module header); `docHi`/`docLo` sorted together, ascending. */
export interface CorpusTable {
  readonly header: CorpusStatsHeader;
  readonly contentHash: string;
  readonly words: StringTable;
  readonly slots: Int32Array;
  readonly df: Int32Array;
  readonly spread: Int32Array;
  readonly perOffsets: Int32Array;
  readonly perFilm: Int32Array;
  readonly perCount: Int32Array;
  readonly filmKeys: StringTable;
  readonly filmDocs: Int32Array;
  readonly docHi: Uint32Array;
  readonly docLo: Uint32Array;
  readonly docFilm: Int32Array;
}

/** The hash slots of a string table (a power of two ≥ 2 × its size and ≥ 8; -1 empty; linear probing). */
export function hashSlots(words: readonly string[]): Int32Array {
  let cap = 8;
  while (cap < 2 * words.length) cap *= 2;
  const slots = new Int32Array(cap).fill(-1);
  const mask = cap - 1;
  for (let k = 0; k < words.length; k++) {
    let p = hashName(words[k]) & mask;
    while (slots[p] !== -1) p = (p + 1) & mask;
    slots[p] = k;
  }
  return slots;
}

/** The two 32-bit halves of a 16-hex-digit document hash. */
export function hashHalves(hex: string): [number, number] {
  return [parseInt(hex.slice(0, 8), 16) >>> 0, parseInt(hex.slice(8, 16), 16) >>> 0];
}

const HEADER_INTS = 12;
const align8 = (x: number): number => (x + 7) & ~7;

interface Sizes {
  n: number;
  wordUnits: number;
  cap: number;
  films: number;
  filmUnits: number;
  docs: number;
  per: number;
  json: number;
}

/** Byte offsets of the sections (module header). */
function sections(z: Sizes) {
  let at = HEADER_INTS * 4;
  const take = (bytes: number): number => {
    const start = align8(at);
    at = start + bytes;
    return start;
  };
  const s = {
    df: take(4 * z.n),
    spread: take(4 * z.n),
    perOffsets: take(4 * (z.n + 1)),
    perFilm: take(4 * z.per),
    perCount: take(4 * z.per),
    slots: take(4 * z.cap),
    wordOffsets: take(4 * (z.n + 1)),
    filmDocs: take(4 * z.films),
    filmOffsets: take(4 * (z.films + 1)),
    docHi: take(4 * z.docs),
    docLo: take(4 * z.docs),
    docFilm: take(4 * z.docs),
    wordUnits: take(2 * z.wordUnits),
    filmUnits: take(2 * z.filmUnits),
    json: take(z.json),
  };
  return { ...s, end: at };
}

/** The table as one byte array (module header). */
export function packCorpusTable(t: CorpusTable): Uint8Array {
  const json = Buffer.from(JSON.stringify({ header: t.header, contentHash: t.contentHash }), 'utf8');
  const z: Sizes = { n: t.df.length, wordUnits: t.words.units.length, cap: t.slots.length, films: t.filmDocs.length, filmUnits: t.filmKeys.units.length, docs: t.docHi.length, per: t.perFilm.length, json: json.length };
  const at = sections(z);
  const out = new Uint8Array(at.end);
  new Int32Array(out.buffer, 0, HEADER_INTS).set([z.n, z.wordUnits, z.cap, z.films, z.filmUnits, z.docs, z.per, z.json]);
  const put = (offset: number, a: Int32Array | Uint32Array | Uint16Array) => new Uint8Array(out.buffer, offset, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  put(at.df, t.df);
  put(at.spread, t.spread);
  put(at.perOffsets, t.perOffsets);
  put(at.perFilm, t.perFilm);
  put(at.perCount, t.perCount);
  put(at.slots, t.slots);
  put(at.wordOffsets, t.words.offsets);
  put(at.filmDocs, t.filmDocs);
  put(at.filmOffsets, t.filmKeys.offsets);
  put(at.docHi, t.docHi);
  put(at.docLo, t.docLo);
  put(at.docFilm, t.docFilm);
  put(at.wordUnits, t.words.units);
  put(at.filmUnits, t.filmKeys.units);
  out.set(json, at.json);
  return out;
}

/** The table over packed bytes (views, nothing decoded but the header); INPUT error when the bytes are not one. */
export function unpackCorpusTable(packed: Uint8Array, source: string): CorpusTable {
  const bytes = packed.byteOffset % 8 === 0 ? packed : new Uint8Array(packed.buffer.slice(packed.byteOffset, packed.byteOffset + packed.byteLength));
  const bad = (why: string) => new FilmkwError('INPUT', `corpus statistics: packed table ${source}: ${why}`);
  if (bytes.byteLength < HEADER_INTS * 4) throw bad('too short');
  const [n, wordUnits, cap, films, filmUnits, docs, per, json] = new Int32Array(bytes.buffer, bytes.byteOffset, HEADER_INTS);
  const z: Sizes = { n, wordUnits, cap, films, filmUnits, docs, per, json };
  if (Object.values(z).some((v) => v < 0) || cap < 2 * n || (cap & (cap - 1)) !== 0) throw bad('bad sizes');
  const at = sections(z);
  if (at.end !== bytes.byteLength) throw bad(`${bytes.byteLength} bytes, the sizes say ${at.end}`);
  const b = bytes.buffer;
  const o = bytes.byteOffset;
  const i32 = (offset: number, length: number) => new Int32Array(b, o + offset, length);
  const meta = JSON.parse(Buffer.from(b, o + at.json, json).toString('utf8')) as { header: CorpusStatsHeader; contentHash: string };
  const table: CorpusTable = {
    header: meta.header,
    contentHash: meta.contentHash,
    words: new StringTable(new Uint16Array(b, o + at.wordUnits, wordUnits), i32(at.wordOffsets, n + 1)),
    slots: i32(at.slots, cap),
    df: i32(at.df, n),
    spread: i32(at.spread, n),
    perOffsets: i32(at.perOffsets, n + 1),
    perFilm: i32(at.perFilm, per),
    perCount: i32(at.perCount, per),
    filmKeys: new StringTable(new Uint16Array(b, o + at.filmUnits, filmUnits), i32(at.filmOffsets, films + 1)),
    filmDocs: i32(at.filmDocs, films),
    docHi: new Uint32Array(b, o + at.docHi, docs),
    docLo: new Uint32Array(b, o + at.docLo, docs),
    docFilm: i32(at.docFilm, docs),
  };
  for (const [name, t] of [['surfaces', table.words], ['film keys', table.filmKeys]] as const) {
    const why = t.check();
    if (why) throw bad(`${name}: ${why}`);
  }
  return table;
}

/**
 * Where film j is in `films[a, b)`, a word's films in increasing index order (the table's text stores
 * steps ≥ 1, corpus-stats.ts), or -1. A common word has thousands of films spread over the indices and
 * the re-ranker asks for every candidate, so the search starts where j would be were they evenly spread
 * and widens by doubling steps from there ({@link lowerBoundNear}): its reads fall near one place, not a
 * dozen far apart in a large table as halving the whole list makes them.
 */
export function filmSlot(films: Int32Array, a: number, b: number, j: number): number {
  if (a >= b || j < films[a] || j > films[b - 1]) return -1;
  const at = lowerBoundNear(films, a, b, j, guessSlot(films, a, b, j));
  return films[at] === j ? at : -1;
}

/** Where film j would be in `films[a, b)` were they evenly spread ({@link filmSlot}), clamped to the list (a when it is empty). */
function guessSlot(films: Int32Array, a: number, b: number, j: number): number {
  if (b - a < 2) return a;
  const first = films[a];
  const span = films[b - 1] - first;
  const at = span === 0 ? a : a + Math.floor(((j - first) * (b - 1 - a)) / span);
  return Math.min(b - 1, Math.max(a, at));
}

/** The first index of `xs[a, b)` (increasing) whose value is ≥ j, known to exist, searched from `guess` outwards. */
function lowerBoundNear(xs: Int32Array, a: number, b: number, j: number, guess: number): number {
  let lo: number;
  let hi: number;
  let step = 1;
  if (xs[guess] < j) {
    // to the right: every index before lo holds a value < j
    lo = guess + 1;
    hi = Math.min(b, lo + step);
    while (hi < b && xs[hi - 1] < j) {
      lo = hi;
      step *= 2;
      hi = Math.min(b, lo + step);
    }
  } else {
    // to the left: xs[hi] ≥ j
    hi = guess;
    lo = Math.max(a, hi - step);
    while (lo > a && xs[lo] >= j) {
      hi = lo;
      step *= 2;
      lo = Math.max(a, hi - step);
    }
  }
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (xs[m] < j) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** The fields of a surface's record ({@link surfaceRecords}): 8 Int32 per surface. */
const R_LEN = 0;
const R_U01 = 1;
const R_U23 = 2;
const R_DF = 3;
const R_SPREAD = 4;
const R_PER = 5;
const R_PER_END = 6;
const R_UNITS = 7;
const R_SIZE = 8;

/**
 * What a lookup of surface k reads, in one place (8 Int32 at 8k, 32 bytes): its length, its first four
 * code units (the rest stay in the string table), df, spread, its range of per-film counts, where its
 * units start. Made in memory when the table is loaded (the file's layout is unchanged): the file's
 * sections keep each of these in a different array, up to megabytes apart, and a lookup that reads them
 * one by one waits for memory (and for the address translation) once per array.
 */
export function surfaceRecords(t: CorpusTable): Int32Array {
  const { offsets, units } = t.words;
  const n = t.df.length;
  const r = new Int32Array(n * R_SIZE);
  for (let k = 0; k < n; k++) {
    const e = k * R_SIZE;
    const a = offsets[k];
    const len = offsets[k + 1] - a;
    const unit = (i: number): number => units[a + i];
    r[e + R_LEN] = len;
    r[e + R_U01] = unitPair(unit, len, 0);
    r[e + R_U23] = unitPair(unit, len, 2);
    r[e + R_DF] = t.df[k];
    r[e + R_SPREAD] = t.spread[k];
    r[e + R_PER] = t.perOffsets[k];
    r[e + R_PER_END] = t.perOffsets[k + 1];
    r[e + R_UNITS] = a;
  }
  return r;
}

/** Whether surface k of the records `r` (units: the string table's) is `s`. */
export function sameSurface(r: Int32Array, units: Uint16Array, k: number, s: string): boolean {
  const e = k * R_SIZE;
  const len = r[e + R_LEN];
  if (len !== s.length) return false;
  const unit = (i: number): number => s.charCodeAt(i);
  if (r[e + R_U01] !== unitPair(unit, len, 0) || r[e + R_U23] !== unitPair(unit, len, 2)) return false;
  const a = r[e + R_UNITS];
  for (let i = 4; i < len; i++) if (units[a + i] !== s.charCodeAt(i)) return false;
  return true;
}

/** The table's hash slots tagged (util/hash.ts `SlotTags`): a copy, same places; a probe reads a record only where the tag matches. */
function taggedSlots(t: CorpusTable, tags: SlotTags): Int32Array {
  const slots = t.slots.slice();
  const { offsets, units } = t.words;
  for (let p = 0; p < slots.length; p++) {
    const k = slots[p];
    if (k >= 0) slots[p] = k | tags.tagOf(hashUnits(units, offsets[k], offsets[k + 1]));
  }
  return slots;
}

/**
 * The lookups of a table (corpus-stats.ts CorpusStats), over tagged slots and the surfaces' records
 * ({@link taggedSlots}, {@link surfaceRecords}). The re-ranker asks for a document's candidates together
 * (`wordsOf`, `filmDfs`): one lookup alone waits for memory several times in a row (its slot, its record,
 * its films), so each batch makes one kind of load for every surface before the next kind (as idf.ts
 * `weights`), and their waits overlap; the last pass finds the cache lines loaded and gives what the
 * one-at-a-time lookup gives.
 */
export function corpusStatsOf(t: CorpusTable, source: string): CorpusStats & { readonly header: CorpusStatsHeader } {
  const mask = t.slots.length - 1;
  const filmIndex = new Map<string, number>();
  for (let j = 0; j < t.filmDocs.length; j++) filmIndex.set(t.filmKeys.get(j), j);
  const { perFilm, perCount, filmDocs, docHi, docLo, docFilm } = t;
  const units = t.words.units;
  const tags = new SlotTags(t.df.length);
  const { keyMask, tagMask } = tags;
  const slots = taggedSlots(t, tags);
  const r = surfaceRecords(t);
  const find = (s: string, h: number): number => {
    const tag = tags.tagOf(h);
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const x = slots[p];
      if (x < 0) return -1;
      if ((x & tagMask) === tag && sameSurface(r, units, x & keyMask, s)) return x & keyMask;
    }
  };
  const filmAt = (k: number, j: number): number => filmSlot(perFilm, r[k * R_SIZE + R_PER], r[k * R_SIZE + R_PER_END], j);
  let hashes = new Int32Array(64);
  // the loads made ahead, summed in each call (int32) and kept here (never read: it keeps them from being dropped)
  let touched = 0;
  return Object.freeze({
    source,
    contentHash: t.contentHash,
    header: t.header,
    docs: docHi.length,
    films: filmDocs.length,
    word: (s: string): number => find(s, hashName(s)),
    df: (k: number) => r[k * R_SIZE + R_DF],
    spread: (k: number) => r[k * R_SIZE + R_SPREAD],
    filmIndex: (key: string) => filmIndex.get(key) ?? -1,
    filmDocs: (j: number) => filmDocs[j],
    filmDf(k: number, j: number): number {
      const at = filmAt(k, j);
      return at < 0 ? 0 : perCount[at];
    },
    wordsOf(list: readonly string[], out: Int32Array): void {
      const m = list.length;
      if (hashes.length < m) hashes = new Int32Array(2 * m);
      let sum = 0;
      for (let i = 0; i < m; i++) {
        const h = hashName(list[i]);
        hashes[i] = h;
        sum = (sum + slots[h & mask]) | 0;
      }
      for (let i = 0; i < m; i++) {
        const h = hashes[i];
        const tag = tags.tagOf(h);
        for (let p = h & mask, x = slots[p]; x >= 0; p = (p + 1) & mask, x = slots[p]) {
          if ((x & tagMask) !== tag) continue;
          sum = (sum + r[(x & keyMask) * R_SIZE]) | 0;
          break;
        }
      }
      for (let i = 0; i < m; i++) out[i] = find(list[i], hashes[i]);
      touched = (touched + sum) | 0;
    },
    filmDfs(list: Int32Array, m: number, j: number, out: Int32Array): void {
      let sum = 0;
      for (let i = 0; i < m; i++) {
        const e = list[i] * R_SIZE;
        if (e >= 0 && r[e + R_PER] < r[e + R_PER_END]) sum = (sum + perFilm[r[e + R_PER]] + perFilm[r[e + R_PER_END] - 1]) | 0;
      }
      for (let i = 0; i < m; i++) {
        const e = list[i] * R_SIZE;
        if (e >= 0 && r[e + R_PER] < r[e + R_PER_END]) sum = (sum + perFilm[guessSlot(perFilm, r[e + R_PER], r[e + R_PER_END], j)]) | 0;
      }
      for (let i = 0; i < m; i++) {
        out[i] = list[i] < 0 ? -1 : filmAt(list[i], j);
        if (out[i] >= 0) sum = (sum + perCount[out[i]]) | 0;
      }
      for (let i = 0; i < m; i++) out[i] = out[i] < 0 ? 0 : perCount[out[i]];
      touched = (touched + sum) | 0;
    },
    docFilm(hash: string): number {
      if (hash.length !== 16) return -2;
      const [hi, lo] = hashHalves(hash);
      let a = 0;
      let b = docHi.length;
      while (a < b) {
        const m = (a + b) >>> 1;
        if (docHi[m] < hi || (docHi[m] === hi && docLo[m] < lo)) a = m + 1;
        else b = m;
      }
      return a < docHi.length && docHi[a] === hi && docLo[a] === lo ? docFilm[a] : -2;
    },
  });
}
