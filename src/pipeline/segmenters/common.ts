/**
 * Shared pieces of the segmentation backends: the alignment of a tagger's words and tags to UTF-16
 * offsets of the input, and the index that finds the user dictionary's compounds (words a jieba token
 * cannot hold, see src/lexicon/user-dict.ts `isHoldableWord`) in a text, and the hashing of UTF-16 units
 * that this index and the tag cache's store (word-tags.ts) share. The user-dictionary format and parser
 * are in src/lexicon/user-dict.ts.
 */
import type { Compound } from '../../lexicon/user-dict.js';


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

/** The compounds that start with one UTF-16 code unit: the lengths of those of ≥ 2 units by their second unit, and the one-unit compound. */
interface FirstUnitSlot {
  /** Second unit → the distinct lengths of the compounds that start with the two units, shortest first. */
  readonly bySecond: Map<number, Int32Array>;
  single: Compound | null;
}

/**
 * Index of compounds for {@link findCompounds}: a table over the first UTF-16 code unit (most text
 * positions are rejected by one array read), then a bit set over hashed (first, second) unit pairs (a
 * clear bit: no compound starts with that pair, so the map is not consulted; about nine in ten of the
 * positions that pass the first test on the bench corpora), then the lengths of the compounds that start
 * with the pair; a compound of one of those lengths is looked up by the hash of the text's units
 * ({@link unitsHash}) in an open-addressed table and confirmed unit by unit. So a position costs a probe
 * per distinct length, never a comparison per compound (a pair such as 克里 starts hundreds of names).
 * Small-integer keys only (a two-unit key as one number would leave V8's small-integer range).
 */
export interface CompoundIndex {
  readonly size: number;
  readonly slots: readonly (FirstUnitSlot | null)[];
  /** Bit {@link pairBit}(c0, c1) is set for the first two units of every compound of ≥ 2 units. */
  readonly pairs: Uint32Array;
  /** Slot s: `byHash[2s]` the hash of a compound of ≥ 2 units, `byHash[2s + 1]` its index in `compounds` + 1 (0: empty). */
  readonly byHash: Int32Array;
  readonly compounds: readonly Compound[];
}

/** A 20-bit hash of two code units (the bit of {@link CompoundIndex.pairs}). */
function pairBit(c0: number, c1: number): number {
  return (Math.imul(c0, 0x9e3779b1) ^ Math.imul(c1, 0x85ebca6b)) >>> 12;
}

/** 32-bit FNV-1a, one UTF-16 unit at a time (the offset basis is {@link UNITS_HASH_START}). */
export function unitsHashStep(h: number, unit: number): number {
  return Math.imul(h ^ unit, 0x01000193);
}

export const UNITS_HASH_START = 0x811c9dc5 | 0;

/** {@link unitsHashStep} over the units of a word. */
export function unitsHash(word: string): number {
  let h = UNITS_HASH_START;
  for (let i = 0; i < word.length; i++) h = unitsHashStep(h, word.charCodeAt(i));
  return h;
}

/** The slot mask of an open-addressed table for `count` keys (at most half full). */
function maskFor(count: number): number {
  let slots = 16;
  while (slots < 2 * count) slots *= 2;
  return slots - 1;
}

/** First slot of a hash in an open-addressed table of `mask + 1` slots (multiplicative hashing, the high half folded into the low bits). */
export function firstSlot(h: number, mask: number): number {
  const m = Math.imul(h, 0x9e3779b1);
  return (m ^ (m >>> 16)) & mask;
}

export function buildCompoundIndex(compounds: readonly Compound[]): CompoundIndex {
  const slots: (FirstUnitSlot | null)[] = new Array<FirstUnitSlot | null>(0x10000).fill(null);
  const pairs = new Uint32Array(1 << 15);
  const lengths = new Map<FirstUnitSlot, Map<number, Set<number>>>(); // the slots' bySecond, being collected
  const kept: Compound[] = [];
  const seen = new Set<string>();
  for (const c of compounds) {
    if (c.word.length === 0 || seen.has(c.word)) continue; // a word given twice: the first, as a stable longest-first sort keeps it
    seen.add(c.word);
    const c0 = c.word.charCodeAt(0);
    const slot = (slots[c0] ??= { bySecond: new Map(), single: null });
    if (c.word.length === 1) {
      slot.single = c;
      continue;
    }
    kept.push(c);
    const c1 = c.word.charCodeAt(1);
    const bit = pairBit(c0, c1);
    pairs[bit >>> 5] |= 1 << (bit & 31);
    if (!lengths.has(slot)) lengths.set(slot, new Map());
    const bySecond = lengths.get(slot)!;
    if (!bySecond.has(c1)) bySecond.set(c1, new Set());
    bySecond.get(c1)!.add(c.word.length);
  }
  for (const [slot, bySecond] of lengths) for (const [c1, set] of bySecond) slot.bySecond.set(c1, Int32Array.from(set).sort());
  return { size: seen.size, slots, pairs, byHash: hashTable(kept), compounds: kept };
}

/** The open-addressed hash → compound table of {@link CompoundIndex.byHash}. */
function hashTable(compounds: readonly Compound[]): Int32Array {
  const mask = maskFor(compounds.length);
  const cells = new Int32Array(2 * (mask + 1));
  compounds.forEach((c, k) => {
    const h = unitsHash(c.word);
    let s = firstSlot(h, mask);
    while (cells[2 * s + 1] !== 0) s = (s + 1) & mask;
    cells[2 * s] = h;
    cells[2 * s + 1] = k + 1;
  });
  return cells;
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

/** The longest compound at `i` among those of the given lengths (shortest first): one hash over the units, a probe per length. */
function longestAt(text: string, i: number, lengths: Int32Array, index: CompoundIndex): Compound | null {
  let found: Compound | null = null;
  let h = UNITS_HASH_START;
  let k = 0;
  for (const length of lengths) {
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
  const { slots, pairs } = index;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c0 = text.charCodeAt(i);
    const slot = slots[c0];
    if (slot === null) continue;
    let found: Compound | null = null;
    if (i + 1 < n) {
      const c1 = text.charCodeAt(i + 1);
      const bit = pairBit(c0, c1);
      const lengths = (pairs[bit >>> 5] & (1 << (bit & 31))) === 0 ? undefined : slot.bySecond.get(c1);
      if (lengths !== undefined) found = longestAt(text, i, lengths, index);
    }
    found ??= slot.single;
    if (found !== null) {
      out.push({ start: i, end: i + found.word.length, tag: found.tag });
      i += found.word.length - 1;
    }
  }
  return out;
}
