/**
 * Shared pieces of the segmentation backends: the alignment of a tagger's words and tags to UTF-16
 * offsets of the input, and the index that finds the user dictionary's compounds (words a jieba token
 * cannot hold, see src/lexicon/user-dict.ts `isHoldableWord`) in a text. The user-dictionary format and
 * parser are in src/lexicon/user-dict.ts.
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

/** The compounds that start with one UTF-16 code unit: by their second code unit (longest first), and the one-unit compound. */
interface FirstUnitSlot {
  readonly bySecond: Map<number, Compound[]>;
  single: Compound | null;
}

/**
 * Index of compounds for {@link findCompounds}: a table over the first UTF-16 code unit (most text
 * positions are rejected by one array read), then a bit set over hashed (first, second) unit pairs (a
 * clear bit: no compound starts with that pair, so the map is not consulted; about nine in ten of the
 * positions that pass the first test on the bench corpora), then the candidates by their second code
 * unit, longest first. Small-integer keys only (a two-unit key as one number would leave V8's
 * small-integer range).
 */
export interface CompoundIndex {
  readonly size: number;
  readonly slots: readonly (FirstUnitSlot | null)[];
  /** Bit {@link pairBit}(c0, c1) is set for the first two units of every compound of ≥ 2 units. */
  readonly pairs: Uint32Array;
}

/** A 20-bit hash of two code units (the bit of {@link CompoundIndex.pairs}). */
function pairBit(c0: number, c1: number): number {
  return (Math.imul(c0, 0x9e3779b1) ^ Math.imul(c1, 0x85ebca6b)) >>> 12;
}

export function buildCompoundIndex(compounds: readonly Compound[]): CompoundIndex {
  const slots: (FirstUnitSlot | null)[] = new Array<FirstUnitSlot | null>(0x10000).fill(null);
  const pairs = new Uint32Array(1 << 15);
  let size = 0;
  for (const c of compounds) {
    if (c.word.length === 0) continue;
    const c0 = c.word.charCodeAt(0);
    const slot = (slots[c0] ??= { bySecond: new Map(), single: null });
    size++;
    if (c.word.length === 1) {
      slot.single = c;
      continue;
    }
    const c1 = c.word.charCodeAt(1);
    const bit = pairBit(c0, c1);
    pairs[bit >>> 5] |= 1 << (bit & 31);
    let list = slot.bySecond.get(c1);
    if (!list) slot.bySecond.set(c1, (list = []));
    list.push(c);
  }
  for (const slot of slots) {
    if (slot) for (const list of slot.bySecond.values()) list.sort((a, b) => b.word.length - a.word.length || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  }
  return { size, slots, pairs };
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
      const list = (pairs[bit >>> 5] & (1 << (bit & 31))) === 0 ? undefined : slot.bySecond.get(c1);
      if (list !== undefined) {
        for (const c of list) {
          if (text.startsWith(c.word, i)) {
            found = c;
            break;
          }
        }
      }
    }
    found ??= slot.single;
    if (found !== null) {
      out.push({ start: i, end: i + found.word.length, tag: found.tag });
      i += found.word.length - 1;
    }
  }
  return out;
}
