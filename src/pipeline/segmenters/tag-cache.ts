/**
 * POS tagging as native `cut` + a word → tag cache, for the jieba backends (segmenters/node-rs.ts,
 * segmenters/nodejieba.ts). Output identical to the backend's native `tag`, token by token.
 *
 * Premise (checked in each backend's source, see their headers, and by
 * test/pipeline/segment-tag-cache.test.ts on every text of the shared corpora): the backend's
 * `tag(text)` is its `cut(text)` followed by a lookup of each word on its own (the dictionary's tag, or
 * a rule on the word's characters). So every token equal to a word w, in the output of any native
 * `tag` call of one dictionary configuration, carries the same tag. What costs in Node is the
 * `{word, tag}` object per token that native `tag` builds (native `tag` costs about twice native `cut`:
 * bench/README.md "Figures behind code comments"), so the tagger calls `cut` and takes each word's tag from the cache.
 *
 * A miss is asked of the backend, never re-derived here, by at most three native `tag` calls per text,
 * each smaller than the last resort: (1) the text's new words joined by `\n` (a separator both jiebas
 * cut at, so each new word is cut on its own); (2) for a new word cut differently on its own (发过 →
 * 发/过, joined by the HMM only in context), a window around its first occurrence ({@link WINDOW_TOKENS}
 * tokens either side, cut as in the text, never past a punctuation or space token), overlapping windows
 * merged; (3) the whole text, exact by definition. A tag is taken only from a token equal to the word,
 * so a wrong guess costs a call, never a wrong tag. Each step gives native `tag` at most the text's
 * length, so tagging is linear in the text whatever its punctuation (issue 26: text without
 * punctuation used to send the whole block once per such word, quadratic).
 *
 * The cache ({@link TagCache}) holds at most {@link TAG_CACHE_MAX} words and is emptied when full:
 * memory is bounded (≈ 6 MB at the bound), eviction deterministic, and the output does not depend on
 * what the cache holds. One cache per dictionary configuration (a tagger), so per worker thread.
 */
import type { TaggedWords } from './common.js';
import { WordTags } from './word-tags.js';

/** Upper bound on the words a tagger's tag cache holds. */
export const TAG_CACHE_MAX = 131_072;

/** word → tag, at most `max` words, emptied when full (the store: word-tags.ts). */
class TagCache {
  private readonly words = new WordTags();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.words.size;
  }

  get(word: string): string | undefined {
    return this.words.get(word);
  }

  /** Adds a word not in the cache (the caller checked with {@link get}); returns the tag's one string. */
  add(word: string, tag: string): string {
    if (this.words.size >= this.max) this.words.clear();
    return this.words.add(word, tag);
  }
}

/**
 * Tokens of context either side of a new word cut differently on its own (tag-cache.ts `resolve`): enough
 * for jieba to cut the word as in the text (its DAG path and HMM runs are local), small enough that
 * text without punctuation costs a bounded span per word, not the whole text per word.
 */
export const WINDOW_TOKENS = 16;

/** Separator between the pieces tagged together in one native call (both jiebas cut at it, so each piece is cut on its own). */
const SEP = '\n';

/** The backend's native calls (one dictionary configuration). */
export interface NativeTagging {
  /** Words of `text` in order, the same segmentation as {@link tag}. */
  cut(text: string): string[];
  tag(text: string): { word: string; tag: string }[];
  /**
   * Whether a token bounds a block the backend cuts independently of the rest of the text (only a
   * guess that saves a whole-text call; a wrong one costs a call, never a wrong tag).
   */
  isBoundary(word: string): boolean;
}

export interface TagCacheStats {
  /** Words held (at most the cache size given at creation). */
  size: number;
  /** Native `tag` calls on the new words of a text, each on its own (joined by a separator). */
  wordCalls: number;
  /** Native `tag` calls on the blocks (text between two punctuation or space tokens) around new words cut differently on their own. */
  blockCalls: number;
  /** Native `tag` calls on a whole text (a new word found neither way). */
  wholeCalls: number;
  /** Characters (UTF-16 units) given to native `tag`, all calls together: the tagging work, linear in the text. */
  taggedChars: number;
  /** Characters given to native `cut`. */
  cutChars: number;
}

/** Internal knobs: tests use them to reach eviction and the last-resort path; the product uses the defaults. */
export interface TagCacheOptions {
  /**
   * Bound on the words cached (integer ≥ 2).
   * @default 131072
   */
  cacheMax?: number;
  /**
   * Resolve every miss by native `tag` on the whole text (the last resort only).
   * @default false
   */
  wholeOnly?: boolean;
}

export const DEFAULT_TAG_CACHE_OPTIONS: Readonly<Required<TagCacheOptions>> = Object.freeze({ cacheMax: TAG_CACHE_MAX, wholeOnly: false });

/** What the taggers of both jieba backends have in common (segmenters/node-rs.ts, segmenters/nodejieba.ts). */
export interface CachedTagger {
  readonly base: string;
  tag(text: string): TaggedWords;
  /** The tag cache now (for tests and benchmarks). */
  cacheStats(): TagCacheStats;
}

export interface CachedTagging {
  tag(text: string): TaggedWords;
  stats(): TagCacheStats;
}

/** A tagger over `native` with its own cache (see the module header). `backend` names it in errors. */
export function createCachedTagging(native: NativeTagging, backend: string, opts: TagCacheOptions = {}): CachedTagging {
  const { cacheMax, wholeOnly } = { ...DEFAULT_TAG_CACHE_OPTIONS, ...opts };
  if (!Number.isInteger(cacheMax) || cacheMax < 2) throw new Error(`segment: ${backend} tag cache size must be an integer ≥ 2, got ${cacheMax}`);
  if (typeof wholeOnly !== 'boolean') throw new Error(`segment: ${backend} tag cache wholeOnly must be a boolean, got ${String(wholeOnly)}`);
  const cache = new TagCache(cacheMax);
  let wordCalls = 0;
  let blockCalls = 0;
  let wholeCalls = 0;
  let taggedChars = 0;
  let cutChars = 0;
  const nativeTag = (text: string) => {
    taggedChars += text.length;
    return native.tag(text);
  };

  /** Caches the word's tag; returns the tag's one string (napi hands back a fresh string each time). */
  const remember = (word: string, tag: string): string => cache.add(word, tag);
  /**
   * Native `tag` on `pieces` joined by {@link SEP}; every token that is one of the `wanted` words gives
   * that word's tag (a token's tag is a function of its word alone: see the module header). Returns
   * how many wanted words are still without a tag.
   */
  const tagPieces = (pieces: string[], wanted: Map<string, string | null>, left: number): number => {
    for (const r of nativeTag(pieces.join(SEP))) {
      if (wanted.get(r.word) === null) {
        wanted.set(r.word, remember(r.word, r.tag));
        left--;
      }
    }
    return left;
  };
  /**
   * For each new word still without a tag (e.g. 发过 → 发/过 on its own, joined by the HMM only in
   * context), its first occurrence with {@link WINDOW_TOKENS} tokens either side, cut as in the text and
   * never crossing a boundary token; overlapping windows are merged, so each token is sent at most once
   * and the pieces together are never longer than the text (linear whatever the text's punctuation).
   */
  const windowsAround = (words: string[], missing: number[], wanted: Map<string, string | null>): string[] => {
    const pieces: string[] = [];
    const done = new Set<string>();
    let from = -1;
    let to = -1;
    for (const i of missing) {
      const w = words[i];
      if (wanted.get(w) !== null || done.has(w)) continue;
      done.add(w);
      let a = i;
      while (a > 0 && i - a < WINDOW_TOKENS && !native.isBoundary(words[a - 1])) a--;
      let b = i + 1;
      while (b < words.length && b - i <= WINDOW_TOKENS && !native.isBoundary(words[b])) b++;
      if (from >= 0 && a <= to) {
        to = Math.max(to, b); // overlaps or touches the previous window: one piece
        continue;
      }
      if (from >= 0) pieces.push(words.slice(from, to).join(''));
      from = a;
      to = b;
    }
    if (from >= 0) pieces.push(words.slice(from, to).join(''));
    return pieces;
  };
  /** Tags of the words at `missing` (indices into `words`, the cut of `text`), written into `tags`. */
  const resolve = (text: string, words: string[], tags: string[], missing: number[]): void => {
    const wanted = new Map<string, string | null>();
    for (const i of missing) wanted.set(words[i], null);
    let left = wanted.size;
    if (!wholeOnly) {
      wordCalls++;
      left = tagPieces([...wanted.keys()], wanted, left);
      if (left > 0) {
        blockCalls++;
        left = tagPieces(windowsAround(words, missing, wanted), wanted, left);
      }
    }
    if (left > 0) {
      wholeCalls++;
      const full = nativeTag(text);
      if (full.length !== words.length) throw new Error(`segment: ${backend} tag and cut disagree on ${JSON.stringify(text.slice(0, 40))}… (please report)`);
      for (const i of missing) {
        const r = full[i];
        if (r.word !== words[i]) throw new Error(`segment: ${backend} tag and cut disagree at ${JSON.stringify(r.word)} (please report)`);
        if (wanted.get(r.word) === null) wanted.set(r.word, remember(r.word, r.tag));
      }
    }
    for (const i of missing) tags[i] = wanted.get(words[i])!;
  };

  return {
    stats: () => ({ size: cache.size, wordCalls, blockCalls, wholeCalls, taggedChars, cutChars }),
    tag(text: string): TaggedWords {
      cutChars += text.length;
      const words = native.cut(text);
      const n = words.length;
      const tags = new Array<string>(n);
      let missing: number[] | null = null;
      for (let i = 0; i < n; i++) {
        const t = cache.get(words[i]);
        if (t === undefined) (missing ??= []).push(i);
        else tags[i] = t;
      }
      if (missing !== null) resolve(text, words, tags, missing);
      return { words, tags };
    },
  };
}
