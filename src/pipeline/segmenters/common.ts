/**
 * Shared pieces of the segmentation backends: the alignment of a tagger's words and tags to UTF-16
 * offsets of the input, and the index that finds the user dictionary's compounds (words a jieba token
 * cannot hold, see src/lexicon/user-dict.ts `isHoldableWord`) in a text, and the hashing of UTF-16 units
 * that this index and the tag cache's store (word-tags.ts) share. The user-dictionary format and parser
 * are in src/lexicon/user-dict.ts.
 */
import type { Compound } from '../../lexicon/user-dict.js';
import { FNV_OFFSET, FNV_PRIME, hashName } from '../../util/hash.js';


/** A tagger's raw output: the words in order and their tags (`tags[i]` is the tag of `words[i]`). */
export interface TaggedWords {
  readonly words: readonly string[];
  readonly tags: readonly string[];
}

/** Output token of the segmenter (re-declared here to avoid an import cycle; identical to segment.ts `Token`). */
export interface AlignedToken {
  word: string;
  tag: string;
  start: number;
  end: number;
}

/**
 * Attach UTF-16 offsets to a tagger's output and append the tokens to `out`. `text` is the original input;
 * `safe` is the string given to the native code (same length: lone surrogates replaced by U+FFFD);
 * `offset` is where `text` starts in the document (added to every offset). Every token's `word` is set
 * to `text.slice(start, end)`, so the invariant holds even where `safe` differs from `text`. Characters
 * the native code dropped (none observed for either backend) are skipped, never invented.
 */
export function alignTokens(
  text: string,
  safe: string,
  raw: TaggedWords,
  backend: string,
  out: AlignedToken[] = [],
  offset = 0,
): AlignedToken[] {
  const same = text === safe;
  const { words, tags } = raw;
  let cursor = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === '') continue;
    let start = cursor;
    if (!safe.startsWith(word, cursor)) {
      start = safe.indexOf(word, cursor);
      if (start < 0) {
        throw new Error(
          `segment: ${backend} returned the token ${JSON.stringify(word)} that is not in the input after offset ${cursor} (please report)`,
        );
      }
    }
    const end = start + word.length;
    out.push({ word: same ? word : text.slice(start, end), tag: tags[i], start: start + offset, end: end + offset });
    cursor = end;
  }
  return out;
}

/**
 * Index of compounds for {@link findCompounds}, small so that it stays in the CPU's caches between the
 * native cuts: a bit set over the first UTF-16 code unit (8 KB; most text positions are rejected by one
 * read), then a bit set over hashed (first, second) unit pairs (8 KB too; a clear bit: no compound starts
 * with the pair; most of the positions that pass the first test on the bench corpora), then an
 * open-addressed table of the pairs that start compounds, giving the distinct lengths of those compounds; a compound of one of those lengths is looked up by the hash of the
 * text's units ({@link unitsHash}) in a second open-addressed table and confirmed unit by unit. So a
 * position costs a probe per distinct length, never a comparison per compound (a pair such as 克里 starts
 * hundreds of names). Compounds of one unit (rare) have their own bit set and map.
 */
export interface CompoundIndex {
  readonly size: number;
  /** Bit c is set when some compound starts with the unit c. */
  readonly firsts: Uint32Array;
  /** Bit c is set when the unit c alone is a compound (then in `singles`). */
  readonly singleBits: Uint32Array;
  readonly singles: ReadonlyMap<number, Compound>;
  /** Bit {@link pairBit}(c0, c1) is set for the first two units of every compound of ≥ 2 units. */
  readonly pairBits: Uint32Array;
  /** Slot s: `pairs[2s]` the key (first unit << 16 | second unit), `pairs[2s + 1]` where its lengths are in `lengths` + 1 (0: empty). */
  readonly pairs: Int32Array;
  /** At a pair's place: the number of its distinct lengths, then the lengths, shortest first. */
  readonly lengths: Int32Array;
  /** Slot s: `byHash[2s]` the hash of a compound of ≥ 2 units, `byHash[2s + 1]` its index in `compounds` + 1 (0: empty). */
  readonly byHash: Int32Array;
  readonly compounds: readonly Compound[];
}

/** The project's FNV-1a (util/hash.ts) one UTF-16 unit at a time, as a signed 32-bit value (the offset basis is {@link UNITS_HASH_START}). */
export function unitsHashStep(h: number, unit: number): number {
  return Math.imul(h ^ unit, FNV_PRIME);
}

export const UNITS_HASH_START = FNV_OFFSET | 0;

/** util/hash.ts `hashName` of a word as a signed 32-bit value: the same as {@link unitsHashStep} over its units. */
export function unitsHash(word: string): number {
  return hashName(word) | 0;
}

/** First slot of a hash in an open-addressed table of `mask + 1` slots (multiplicative hashing, the high half folded into the low bits). */
export function firstSlot(h: number, mask: number): number {
  const m = Math.imul(h, 0x9e3779b1);
  return (m ^ (m >>> 16)) & mask;
}

/** An open-addressed table (linear probing, at most half full) of int keys → value + 1, interleaved as `[key, value + 1]` per slot. */
function keyTable(entries: readonly (readonly [key: number, value: number])[]): Int32Array {
  let slots = 16;
  while (slots < 2 * entries.length) slots *= 2;
  const cells = new Int32Array(2 * slots);
  for (const [key, value] of entries) {
    let s = firstSlot(key, slots - 1);
    while (cells[2 * s + 1] !== 0) s = (s + 1) & (slots - 1);
    cells[2 * s] = key;
    cells[2 * s + 1] = value + 1;
  }
  return cells;
}

const hasBit = (bits: Uint32Array, k: number): boolean => (bits[k >>> 5] & (1 << (k & 31))) !== 0;
const setBit = (bits: Uint32Array, k: number): void => {
  bits[k >>> 5] |= 1 << (k & 31);
};

/** A 16-bit hash of two code units (the bit of {@link CompoundIndex.pairBits}). */
function pairBit(c0: number, c1: number): number {
  return (Math.imul(c0, 0x9e3779b1) ^ Math.imul(c1, 0x85ebca6b)) >>> 16;
}

/** The key of the pair of units that starts a word. */
const pairKey = (c0: number, c1: number): number => (c0 << 16) | c1;

export function buildCompoundIndex(compounds: readonly Compound[]): CompoundIndex {
  const firsts = new Uint32Array(0x10000 >>> 5);
  const singleBits = new Uint32Array(0x10000 >>> 5);
  const singles = new Map<number, Compound>();
  const pairBits = new Uint32Array(1 << 11);
  const byPair = new Map<number, Set<number>>();
  const kept: Compound[] = [];
  const seen = new Set<string>();
  for (const c of compounds) {
    if (c.word.length === 0 || seen.has(c.word)) continue; // a word given twice: the first, as a stable longest-first sort keeps it
    seen.add(c.word);
    const c0 = c.word.charCodeAt(0);
    setBit(firsts, c0);
    if (c.word.length === 1) {
      setBit(singleBits, c0);
      singles.set(c0, c);
      continue;
    }
    kept.push(c);
    const c1 = c.word.charCodeAt(1);
    setBit(pairBits, pairBit(c0, c1));
    const key = pairKey(c0, c1);
    if (!byPair.has(key)) byPair.set(key, new Set());
    byPair.get(key)!.add(c.word.length);
  }
  const lengths: number[] = [];
  const places: [number, number][] = [];
  for (const [key, set] of byPair) {
    places.push([key, lengths.length]);
    lengths.push(set.size, ...[...set].sort((x, y) => x - y));
  }
  const byHash = keyTable(kept.map((c, k) => [unitsHash(c.word), k]));
  return { size: seen.size, firsts, singleBits, singles, pairBits, pairs: keyTable(places), lengths: Int32Array.from(lengths), byHash, compounds: kept };
}

/** Where the lengths of the compounds starting with the pair `key` are in `index.lengths`, -1 when none does. */
function lengthsOf(key: number, index: CompoundIndex): number {
  const { pairs } = index;
  const mask = (pairs.length >>> 1) - 1;
  for (let s = firstSlot(key, mask); pairs[2 * s + 1] !== 0; s = (s + 1) & mask) if (pairs[2 * s] === key) return pairs[2 * s + 1] - 1;
  return -1;
}

/** The compound of `length` units at `i` in `text` whose units hash to `h`, if any. */
function compoundAt(text: string, i: number, length: number, h: number, index: CompoundIndex): Compound | null {
  const { byHash, compounds } = index;
  const mask = (byHash.length >>> 1) - 1;
  for (let s = firstSlot(h, mask); byHash[2 * s + 1] !== 0; s = (s + 1) & mask) {
    if (byHash[2 * s] !== h) continue;
    const c = compounds[byHash[2 * s + 1] - 1];
    if (c.word.length === length && text.startsWith(c.word, i)) return c;
  }
  return null;
}

/** The longest compound at `i` of ≥ 2 units: one hash over the text's units, a probe per length that the pair's compounds have. */
function longestAt(text: string, i: number, index: CompoundIndex): Compound | null {
  if (i + 1 >= text.length) return null;
  const c0 = text.charCodeAt(i);
  const c1 = text.charCodeAt(i + 1);
  const at = hasBit(index.pairBits, pairBit(c0, c1)) ? lengthsOf(pairKey(c0, c1), index) : -1;
  if (at < 0) return null;
  const { lengths } = index;
  let found: Compound | null = null;
  let h = UNITS_HASH_START;
  let k = 0;
  for (let j = at + 1; j <= at + lengths[at]; j++) {
    const length = lengths[j];
    if (i + length > text.length) break;
    for (; k < length; k++) h = unitsHashStep(h, text.charCodeAt(i + k));
    found = compoundAt(text, i, length, h, index) ?? found;
  }
  return found;
}

/** An occurrence of a compound in a text: `text.slice(start, end) === compound.word`. */
export interface CompoundMatch {
  readonly start: number;
  readonly end: number;
  readonly tag: string;
}

/**
 * Occurrences of compounds in `text`, scanning left to right, longest compound first at each position,
 * never overlapping. The segmenter treats them as hard token boundaries: the text between two
 * occurrences is tagged on its own, so a backend's HMM cannot glue a compound's first character to the
 * preceding one (nodejieba: 我看了本·金斯利 → 了本/·/金斯利 when tagged as one string).
 */
export function findCompounds(text: string, index: CompoundIndex): CompoundMatch[] {
  const out: CompoundMatch[] = [];
  if (index.size === 0) return out;
  const { firsts, singleBits } = index;
  for (let i = 0; i < text.length; i++) {
    const c0 = text.charCodeAt(i);
    if (!hasBit(firsts, c0)) continue;
    let found = longestAt(text, i, index);
    if (found === null && hasBit(singleBits, c0)) found = index.singles.get(c0)!;
    if (found !== null) {
      out.push({ start: i, end: i + found.word.length, tag: found.tag });
      i += found.word.length - 1;
    }
  }
  return out;
}
