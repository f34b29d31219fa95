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
 * `Jieba::tag(sentence, hmm)` is `cut(sentence, hmm)` followed by a lookup of each word on its own:
 * the word's dictionary record gives the tag, and a word not in the dictionary gets `m` (all its ASCII
 * alphanumerics are digits), `eng` (some ASCII alphanumerics) or `x` (none). A word's tag is therefore
 * a function of the word alone, for a given instance. What costs in Node is the napi `{tag, word}`
 * object per token (native `tag` ≈ 2.5× native `cut` on the bench corpora), so the tagger calls `cut`
 * and takes each word's tag from a per-instance cache. On a miss the tag is asked of jieba-rs itself,
 * never re-derived here: `tag(word, true)` for the word alone when it comes back as that one word (its
 * tag is the per-word lookup), otherwise — or when a text has many new words — `tag(text, true)` for
 * the whole text, exact by definition. The cache holds at most {@link TAG_CACHE_MAX} words in two
 * generations (a full young generation becomes the old one, the previous old one is dropped; a hit in
 * the old one is copied back to the young one), so memory is bounded and eviction deterministic; the
 * output never depends on what the cache holds. test/pipeline/segment-tag-cache.test.ts compares the
 * result with `Jieba.tag(text, true)` token by token on fixtures and on every text of the shared
 * corpora; bench/segment.ts measures both (`tag` and `cut + tag cache` rows).
 */
import { Jieba } from '@node-rs/jieba';
import { NODE_RS_BASE, nodeRsBaseDict } from '../../lexicon/base.js';
import type { TaggedWords } from './common.js';

/** Upper bound on the words a node-rs tagger's tag cache holds (both generations together). */
export const TAG_CACHE_MAX = 131_072;

/**
 * A text with more new words than this is tagged whole by one native `tag` call instead of one call
 * per new word (measured on the bench corpora: one call per word costs ≈ 1.5 µs; a cold pass is
 * cheapest between 16 and 64).
 */
const PER_WORD_MISSES = 32;

export interface NodeRsTagger {
  readonly base: string;
  readonly jieba: Jieba;
  tag(text: string): TaggedWords;
  /** The tag cache now: words held, and the native calls its misses have cost so far (for tests and benchmarks). */
  cacheStats(): TagCacheStats;
}

export interface TagCacheStats {
  /** Words held (both generations; at most the cache size given at creation). */
  size: number;
  /** `tag(word, true)` calls for a new word. */
  wordCalls: number;
  /** `tag(text, true)` calls for a whole text (many new words, or a new word cut differently on its own). */
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

/**
 * `cacheMax` (default {@link TAG_CACHE_MAX}, at least 2) bounds the tag cache; tests pass a small one
 * to exercise eviction.
 */
export function createNodeRsTagger(userDictText: string, cacheMax = TAG_CACHE_MAX): NodeRsTagger {
  if (!Number.isInteger(cacheMax) || cacheMax < 2) throw new Error(`segment: node-rs tag cache size must be an integer ≥ 2, got ${cacheMax}`);
  const jieba = loadJieba(userDictText);
  const generation = Math.floor(cacheMax / 2);
  let young = new Map<string, string>();
  let old = new Map<string, string>();
  /** One string per distinct tag (napi hands back a fresh string each time). */
  const tagNames = new Map<string, string>();
  let wordCalls = 0;
  let wholeCalls = 0;

  const remember = (word: string, tag: string): string => {
    let t = tagNames.get(tag);
    if (t === undefined) tagNames.set(tag, (t = tag));
    if (young.size >= generation) {
      old = young;
      young = new Map();
    }
    young.set(word, t);
    return t;
  };
  const lookup = (word: string): string | undefined => {
    const t = young.get(word);
    if (t !== undefined) return t;
    const o = old.get(word);
    return o === undefined ? undefined : remember(word, o);
  };
  /** The tag of `word` by itself, or undefined when jieba cuts the word differently on its own. */
  const alone = (word: string): string | undefined => {
    wordCalls++;
    const r = jieba.tag(word, true);
    return r.length === 1 && r[0].word === word ? r[0].tag : undefined;
  };

  return {
    base: NODE_RS_BASE,
    jieba,
    cacheStats: () => ({ size: young.size + old.size, wordCalls, wholeCalls }),
    tag(text: string): TaggedWords {
      // hmm = true: the same mixed (dictionary + HMM for unknown runs) mode as nodejieba's tag.
      const words = jieba.cut(text, true);
      const n = words.length;
      const tags = new Array<string>(n);
      let missing: number[] | null = null;
      for (let i = 0; i < n; i++) {
        const t = lookup(words[i]);
        if (t === undefined) (missing ??= []).push(i);
        else tags[i] = t;
      }
      if (missing === null) return { words, tags };
      let whole = missing.length > PER_WORD_MISSES;
      if (!whole) {
        for (const i of missing) {
          const w = words[i];
          const t = lookup(w) ?? alone(w);
          if (t === undefined) {
            whole = true;
            break;
          }
          tags[i] = remember(w, t);
        }
      }
      if (whole) {
        wholeCalls++;
        const full = jieba.tag(text, true);
        if (full.length !== n) throw new Error(`segment: node-rs tag and cut disagree on ${JSON.stringify(text.slice(0, 40))}… (please report)`);
        for (const i of missing) {
          const r = full[i];
          if (r.word !== words[i]) throw new Error(`segment: node-rs tag and cut disagree at ${JSON.stringify(r.word)} (please report)`);
          tags[i] = remember(r.word, r.tag);
        }
      }
      return { words, tags };
    },
  };
}
