/**
 * @node-rs/jieba backend (jieba-rs through napi-rs).
 *
 * Instances are independent (no module-global state), so any number of segmenters with different user
 * dictionaries can live in one thread, and worker threads each hold their own (~38 MB per instance).
 *
 * Load order. jieba-rs keeps the ORIGINAL tag of a word that is already in the dictionary when the same
 * word is loaded again, but takes the new frequency. To make the user dictionary act as in nodejieba
 * (user tag AND user frequency win over the base entry), a lexicon-on instance loads
 * user → base → user: the first pass fixes the tags, the base pass adds the general lexicon (and
 * overwrites the user frequencies of words it also holds), the last pass restores the user
 * frequencies. Verified by test/pipeline/segment.test.ts (长津湖 is `ns` in the base dictionary and
 * comes out with the user tag `nz`, and a user frequency changes the split in both backends alike).
 *
 * Tagging = cutting + a word → tag cache (same output as `Jieba.tag(text, true)`, cheaper).
 * @node-rs/jieba 2.0.3 bundles jieba-rs 0.10.3 (the crate path compiled into its .node file), whose
 * `Jieba::tag(sentence, hmm)` is `cut(sentence, hmm)` followed by a lookup of each word on its own
 * (src/lib.rs): the word's dictionary record gives the tag, and a word not in the dictionary gets `m`
 * (all its ASCII alphanumerics are digits), `eng` (some ASCII alphanumerics) or `x` (none). So every
 * token equal to a word w, in the output of any native `tag` call of the instance, carries the same
 * tag. What costs in Node is the napi `{tag, word}` object per token (native `tag` ≈ 2.5× native
 * `cut` on the bench corpora), so the tagger calls `cut` and takes each word's tag from a per-instance
 * cache. A miss is asked of jieba-rs, never re-derived here, by at most three native `tag` calls per
 * text, each smaller than the last resort: (1) the text's new words joined by `\n` (jieba cuts the
 * pieces between non-word characters independently, so each new word is cut on its own); (2) for a
 * new word cut differently on its own (发过 → 发/过, joined by the HMM only in context), the blocks
 * around it (the tokens between the nearest punctuation or space tokens, cut as in the text); (3) the
 * whole text, exact by definition. A tag is taken only from a token equal to the word, so a wrong
 * guess costs a call, never a wrong tag. The cache ({@link TagCache}) holds at most
 * {@link TAG_CACHE_MAX} words and is emptied when full: memory is bounded, eviction deterministic, and
 * the output does not depend on what the cache holds. test/pipeline/segment-tag-cache.test.ts compares the result
 * with `Jieba.tag(text, true)` token by token (fixtures, every path, the shared corpora); bench/segment.ts
 * has both rows.
 */
import { Jieba } from '@node-rs/jieba';
import { NODE_RS_BASE, nodeRsBaseDict } from '../../lexicon/base.js';
import type { TaggedWords } from './common.js';

/** Upper bound on the words a node-rs tagger's tag cache holds. */
export const TAG_CACHE_MAX = 131_072;

/**
 * word → tag, at most `max` words, emptied when full. Words of one or two UTF-16 units (about 95 % of
 * the tokens of the bench corpora) are found by their code units, without hashing the fresh string
 * napi hands back for every token; longer words by a Map.
 */
class TagCache {
  private one: (string | undefined)[] = new Array<string | undefined>(0x10000).fill(undefined);
  private two: (Map<number, string> | undefined)[] = new Array<Map<number, string> | undefined>(0x10000).fill(undefined);
  private long = new Map<string, string>();
  size = 0;

  constructor(private readonly max: number) {}

  get(word: string): string | undefined {
    const n = word.length;
    if (n === 1) return this.one[word.charCodeAt(0)];
    if (n === 2) return this.two[word.charCodeAt(0)]?.get(word.charCodeAt(1));
    return this.long.get(word);
  }

  /** Adds a word not in the cache (the caller checked with {@link get}). */
  add(word: string, tag: string): void {
    if (this.size >= this.max) this.clear();
    this.size++;
    const n = word.length;
    if (n === 1) this.one[word.charCodeAt(0)] = tag;
    else if (n === 2) {
      const c0 = word.charCodeAt(0);
      (this.two[c0] ??= new Map()).set(word.charCodeAt(1), tag);
    } else this.long.set(word, tag);
  }

  private clear(): void {
    this.one.fill(undefined);
    this.two.fill(undefined);
    this.long.clear();
    this.size = 0;
  }
}

/** Separator between the pieces tagged together in one native call (not in jieba's word class, so each piece is cut on its own). */
const SEP = '\n';

/** A token jieba keeps inside a block of its word class (`[CJK A-Za-z0-9+#&._%-]`): not a block boundary. */
const IN_BLOCK = /^[\p{Script=Han}A-Za-z0-9+#&._%-]+$/u;

export interface NodeRsTagger {
  readonly base: string;
  readonly jieba: Jieba;
  tag(text: string): TaggedWords;
  /** The tag cache now: words held, and the native calls its misses have cost so far (for tests and benchmarks). */
  cacheStats(): TagCacheStats;
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
}

/** The dictionary instance: base only, or user → base → user (see the module header). */
function loadJieba(userDictText: string): Jieba {
  if (userDictText === '') return Jieba.withDict(nodeRsBaseDict());
  const user = Buffer.from(userDictText);
  const jieba = new Jieba();
  jieba.loadDict(user);
  jieba.loadDict(nodeRsBaseDict());
  jieba.loadDict(user);
  return jieba;
}

/** Internal knobs of the tag cache: tests use them to reach eviction and the last-resort path; the product uses the defaults. */
export interface NodeRsTaggerOptions {
  /** Bound on the words cached (integer ≥ 2). @default TAG_CACHE_MAX */
  cacheMax?: number;
  /** Resolve every miss by native `tag` on the whole text (the last resort only). @default false */
  wholeOnly?: boolean;
}

export function createNodeRsTagger(userDictText: string, opts: NodeRsTaggerOptions = {}): NodeRsTagger {
  const cacheMax = opts.cacheMax ?? TAG_CACHE_MAX;
  const wholeOnly = opts.wholeOnly ?? false;
  if (!Number.isInteger(cacheMax) || cacheMax < 2) throw new Error(`segment: node-rs tag cache size must be an integer ≥ 2, got ${cacheMax}`);
  const jieba = loadJieba(userDictText);
  const cache = new TagCache(cacheMax);
  /** One string per distinct tag (napi hands back a fresh string each time). */
  const tagNames = new Map<string, string>();
  let wordCalls = 0;
  let blockCalls = 0;
  let wholeCalls = 0;

  const remember = (word: string, tag: string): string => {
    let t = tagNames.get(tag);
    if (t === undefined) tagNames.set(tag, (t = tag));
    cache.add(word, t);
    return t;
  };
  /**
   * Native `tag` on `pieces` joined by {@link SEP}; every token that is one of the `wanted` words gives
   * that word's tag (a token's tag is a function of its word alone: see the module header). Returns
   * how many wanted words are still without a tag.
   */
  const tagPieces = (pieces: string[], wanted: Map<string, string | null>, left: number): number => {
    for (const r of jieba.tag(pieces.join(SEP), true)) {
      if (wanted.get(r.word) === null) {
        wanted.set(r.word, remember(r.word, r.tag));
        left--;
      }
    }
    return left;
  };
  /** Tags of the words at `missing` (indices into `words`, the cut of `text`), written into `tags`. */
  const resolve = (text: string, words: string[], tags: string[], missing: number[]): void => {
    const wanted = new Map<string, string | null>();
    for (const i of missing) wanted.set(words[i], null);
    let left = wanted.size;
    if (!wholeOnly) {
      wordCalls++;
      left = tagPieces([...wanted.keys()], wanted, left);
    }
    if (left > 0 && !wholeOnly) {
      // Cut differently on its own (e.g. 发过 → 发/过): the block around the word, cut as in the text.
      const blocks: string[] = [];
      const done = new Set<string>();
      for (const i of missing) {
        const w = words[i];
        if (wanted.get(w) !== null || done.has(w)) continue;
        done.add(w);
        let a = i;
        while (a > 0 && IN_BLOCK.test(words[a - 1])) a--;
        let b = i + 1;
        while (b < words.length && IN_BLOCK.test(words[b])) b++;
        blocks.push(words.slice(a, b).join(''));
      }
      blockCalls++;
      left = tagPieces(blocks, wanted, left);
    }
    if (left > 0) {
      wholeCalls++;
      const full = jieba.tag(text, true);
      if (full.length !== words.length) throw new Error(`segment: node-rs tag and cut disagree on ${JSON.stringify(text.slice(0, 40))}… (please report)`);
      for (const i of missing) {
        const r = full[i];
        if (r.word !== words[i]) throw new Error(`segment: node-rs tag and cut disagree at ${JSON.stringify(r.word)} (please report)`);
        if (wanted.get(r.word) === null) wanted.set(r.word, remember(r.word, r.tag));
      }
    }
    for (const i of missing) tags[i] = wanted.get(words[i])!;
  };

  return {
    base: NODE_RS_BASE,
    jieba,
    cacheStats: () => ({ size: cache.size, wordCalls, blockCalls, wholeCalls }),
    tag(text: string): TaggedWords {
      // hmm = true: the same mixed (dictionary + HMM for unknown runs) mode as nodejieba's tag.
      const words = jieba.cut(text, true);
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
