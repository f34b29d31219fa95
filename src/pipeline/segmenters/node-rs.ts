/**
 * @node-rs/jieba backend (jieba-rs through napi-rs).
 *
 * Instances are independent (no module-global state), so any number of segmenters with different user
 * dictionaries can live in one thread, and worker threads each hold their own (tens of MB per instance: bench/README.md "Figures behind code
 * comments").
 *
 * Load order. jieba-rs keeps the ORIGINAL tag of a word that is already in the dictionary when the same
 * word is loaded again, but takes the new frequency. To make the user dictionary act as in nodejieba
 * (user tag AND user frequency win over the base entry), a lexicon-on instance loads
 * user → base → user: the first pass fixes the tags, the base pass adds the general lexicon (and
 * overwrites the user frequencies of words it also holds), the last pass restores the user
 * frequencies. Verified by test/pipeline/segment.test.ts (长津湖 is `ns` in the base dictionary and
 * comes out with the user tag `nz`, and a user frequency changes the split in both backends alike).
 *
 * Tagging: native `cut` + the word → tag cache of segmenters/tag-cache.ts (identical to native
 * `tag(text, true)`). Its premise holds here: @node-rs/jieba 2.0.3 bundles jieba-rs 0.10.3 (the crate
 * path compiled into its .node file), whose `Jieba::tag(sentence, hmm)` is `cut(sentence, hmm)`
 * followed by a lookup of each word on its own (src/lib.rs): the word's dictionary record gives the
 * tag, and a word not in the dictionary gets `m` (all its ASCII alphanumerics are digits), `eng` (some
 * ASCII alphanumerics) or `x` (none).
 */
import { Jieba } from '@node-rs/jieba';
import { NODE_RS_BASE, nodeRsBaseDict } from '../../lexicon/base.js';
import { createCachedTagging, type CachedTagger, type TagCacheOptions } from './tag-cache.js';

export interface NodeRsTagger extends CachedTagger {
  /** The instance (read-only use: loading words into it after creation would leave the tag cache stale). */
  readonly jieba: Jieba;
}

/** jieba-rs cuts blocks of its word class (`[CJK A-Za-z0-9+#&._%-]`) independently: a token outside it bounds a block. */
const JIEBA_RS_WORD = /^[\p{Script=Han}A-Za-z0-9+#&._%-]+$/u;

/** jieba-rs: a token that bounds an independently cut block (tag-cache.ts `NativeTagging.isBoundary`). */
function jiebaRsBoundary(word: string): boolean {
  return !JIEBA_RS_WORD.test(word);
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

/** `opts`: the tag cache's internal knobs (tests only). */
export function createNodeRsTagger(userDictText: string, opts: TagCacheOptions = {}): NodeRsTagger {
  const jieba = loadJieba(userDictText);
  // hmm = true: the same mixed (dictionary + HMM for unknown runs) mode as nodejieba's tag.
  const tagging = createCachedTagging({ cut: (text) => jieba.cut(text, true), tag: (text) => jieba.tag(text, true), isBoundary: jiebaRsBoundary }, 'node-rs', opts);
  return { base: NODE_RS_BASE, jieba, tag: tagging.tag, cacheStats: tagging.stats };
}
