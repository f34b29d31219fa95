/**
 * The store behind the tag cache (tag-cache.ts `TagCache`): word → tag id, in typed arrays.
 *
 * Why not a Map: napi hands back a fresh string for every token, so a Map keyed by the word hashes each
 * token's string anew (V8 keeps a string's hash on the string, and these strings are new), and a Map per
 * first code unit reads several objects far apart per lookup. Here a word of one UTF-16 unit is an index,
 * a word of two units an int key (its two units), and a longer word a 32-bit hash of its units that is
 * confirmed against the stored word; the two tables are open-addressed (linear probing) with each slot's
 * key and tag id side by side, so a lookup mostly reads one cache line. A hash equal for two words costs a
 * probe more, never a wrong tag: a long word matches only its own stored string.
 */

import { firstSlot, unitsHash } from './common.js';

/** Slots of a table when created or emptied; it doubles when more than three quarters full. */
const INITIAL_SLOTS = 1 << 12;

/**
 * Open-addressed int key → tag id + 1 (0: empty slot), doubling when more than three quarters full (a
 * lookup probes about two slots, mostly in one cache line, and the table is half the size it would be at
 * half full); `words` confirms a hashed long word.
 */
class KeyTable {
  /** Slot s: `cells[2s]` the key, `cells[2s + 1]` the tag id + 1. */
  private cells = new Int32Array(2 * INITIAL_SLOTS);
  private words: (string | undefined)[] | null;
  private mask = INITIAL_SLOTS - 1;
  private count = 0;

  /** `confirmWords`: keys are hashes, so the stored word must equal the word looked up. */
  constructor(private readonly confirmWords: boolean) {
    this.words = confirmWords ? new Array<string | undefined>(INITIAL_SLOTS).fill(undefined) : null;
  }

  /** Tag id + 1 of the key (and word), 0 when absent. */
  get(key: number, word: string): number {
    const cells = this.cells;
    for (let s = firstSlot(key, this.mask); ; s = (s + 1) & this.mask) {
      const id = cells[2 * s + 1];
      if (id === 0) return 0;
      if (cells[2 * s] === key && (this.words === null || this.words[s] === word)) return id;
    }
  }

  /** Adds a key (and word) not in the table. */
  add(key: number, word: string, id: number): void {
    if (4 * (this.count + 1) > 3 * (this.mask + 1)) this.grow();
    this.count++;
    let s = firstSlot(key, this.mask);
    while (this.cells[2 * s + 1] !== 0) s = (s + 1) & this.mask;
    this.cells[2 * s] = key;
    this.cells[2 * s + 1] = id;
    if (this.words !== null) this.words[s] = word;
  }

  clear(): void {
    this.cells = new Int32Array(2 * INITIAL_SLOTS);
    this.words = this.confirmWords ? new Array<string | undefined>(INITIAL_SLOTS).fill(undefined) : null;
    this.mask = INITIAL_SLOTS - 1;
    this.count = 0;
  }

  /** Twice the slots, every entry placed again. */
  private grow(): void {
    const { cells, words } = this;
    const slots = 2 * (this.mask + 1);
    this.cells = new Int32Array(2 * slots);
    this.words = words === null ? null : new Array<string | undefined>(slots).fill(undefined);
    this.mask = slots - 1;
    this.count = 0;
    for (let s = 0; 2 * s < cells.length; s++) if (cells[2 * s + 1] !== 0) this.add(cells[2 * s], words?.[s] ?? '', cells[2 * s + 1]);
  }
}

/** Distinct tags a cache can hold (ids in 16 bits; jieba's tag set has about 60). */
const MAX_TAGS = 0xffff;

/** word → tag: words of one unit by index, of two units by their units as one int, longer ones by hash (module header). */
export class WordTags {
  /** Tag id + 1 of each one-unit word (16 bits: twice as many per cache line as 32). */
  private one = new Uint16Array(0x10000);
  private readonly two = new KeyTable(false);
  private readonly long = new KeyTable(true);
  /** Tag id - 1 → tag: one string per distinct tag. */
  private readonly names: string[] = [];
  private readonly ids = new Map<string, number>();
  size = 0;

  get(word: string): string | undefined {
    const n = word.length;
    const id = n === 1 ? this.one[word.charCodeAt(0)] : n === 2 ? this.two.get((word.charCodeAt(0) << 16) | word.charCodeAt(1), word) : this.long.get(unitsHash(word), word);
    return id === 0 ? undefined : this.names[id - 1];
  }

  /** Adds a word not held (the caller checked with {@link get}); returns the tag's one string. */
  add(word: string, tag: string): string {
    const id = this.idOf(tag);
    this.size++;
    const n = word.length;
    if (n === 1) this.one[word.charCodeAt(0)] = id;
    else if (n === 2) this.two.add((word.charCodeAt(0) << 16) | word.charCodeAt(1), word, id);
    else this.long.add(unitsHash(word), word, id);
    return this.names[id - 1];
  }

  /** Empties the words (the tag names stay). */
  clear(): void {
    this.one.fill(0);
    this.two.clear();
    this.long.clear();
    this.size = 0;
  }

  private idOf(tag: string): number {
    let id = this.ids.get(tag);
    if (id === undefined) {
      if (this.names.length >= MAX_TAGS) throw new Error(`segment: more than ${MAX_TAGS} distinct POS tags (the tag cache holds a tag's id in 16 bits)`);
      this.names.push(tag);
      this.ids.set(tag, (id = this.names.length));
    }
    return id;
  }
}
