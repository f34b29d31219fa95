/** Test helper: the cached taggers of both backends against their native tag (segment-tag-cache.test.ts). */
import assert from 'node:assert/strict';
import { createNodeRsTagger } from '../../src/pipeline/segmenters/node-rs.js';
import { createNodejiebaTagger } from '../../src/pipeline/segmenters/nodejieba.js';
import type { TagCacheOptions, TagCacheStats } from '../../src/pipeline/segmenters/tag-cache.js';
import type { TaggedWords } from '../../src/pipeline/segmenters/common.js';
import { prepareUserDict } from '../../src/lexicon/user-dict.js';

export const USER_LINES = ['肖申克的救赎 1 nz', '易烊千玺 1 nr', '长津湖 9 nz', '伍万里 1 nr', '吴京 1 nr', '迪卡普里奥 1 nr', '焦三爷 1 nr'];
export const userDictText = (): string => prepareUserDict({ userDictLines: USER_LINES })!.holdableText;

/** A backend's cached tagger and its native tag (same dictionary configuration). */
export interface Tagger {
  tag(text: string): TaggedWords;
  native(text: string): { word: string; tag: string }[];
  cacheStats(): TagCacheStats;
}

export const BACKENDS = ['node-rs', 'nodejieba'] as const;

export function tagger(backend: (typeof BACKENDS)[number], userDict: string, opts: TagCacheOptions = {}): Tagger {
  if (backend === 'node-rs') {
    const t = createNodeRsTagger(userDict, opts);
    return { tag: t.tag, cacheStats: t.cacheStats, native: (text) => t.jieba.tag(text, true) };
  }
  const t = createNodejiebaTagger(userDict, opts);
  return { tag: t.tag, cacheStats: t.cacheStats, native: (text) => t.native().tag(text) };
}

/** First difference between the tagger and native `tag`, or null. */
export function diff(t: Tagger, text: string): string | null {
  const got = t.tag(text);
  const want = t.native(text);
  const n = Math.max(got.words.length, want.length);
  for (let i = 0; i < n; i++) {
    const w = want[i];
    if (!w || got.words[i] !== w.word || got.tags[i] !== w.tag) {
      return `token ${i} of ${JSON.stringify(text.slice(0, 30))}…: got ${JSON.stringify([got.words[i], got.tags[i]])}, native ${JSON.stringify(w && [w.word, w.tag])}`;
    }
  }
  return null;
}

export function assertSame(t: Tagger, texts: readonly string[]): void {
  let bad = 0;
  const first: string[] = [];
  for (const text of texts) {
    const d = diff(t, text);
    if (d !== null && bad++ < 3) first.push(d);
  }
  assert.equal(bad, 0, `${bad} of ${texts.length} texts differ from native tag: ${first.join('; ')}`);
}
