/**
 * Parity of the cppjieba-textrank preset with nodejieba's own textRankExtract (cppjieba
 * TextRankExtractor, spec §4.3) on the same segmentation (backend nodejieba): every word with a
 * non-zero weight, same weight to 1e-9.
 *
 * cppjieba keeps pure-number tokens ("80", "2014") and tests stop words case-sensitively ("Again" is
 * not "again"): the preset sets `candidates.numbers: 'keep'` and `candidates.stopwordCase: 'sensitive'`
 * for that, so every review is compared (none skipped).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import nodejieba from 'nodejieba';
import { createExtractor } from '../../src/pipeline/extract.js';

const REVIEWS = new URL('../../../shared/data/texts/douban-reviews-bainiaochaofeng/douban_reviews.json', import.meta.url);

function compare(texts: string[]) {
  const ours = createExtractor({ preset: 'cppjieba-textrank', backend: 'nodejieba' });
  let words = 0;
  const skipped = 0;
  for (const text of texts) {
    const mine = new Map(ours.extract(text, { topK: 100000 }).filter((k) => k.score > 0).map((k) => [k.word, k.score]));
    const theirs = new Map(
      (nodejieba.textRankExtract(text, 100000) as { word: string; weight: number }[]).filter((k) => k.word !== '' && k.weight > 0).map((k) => [k.word, k.weight]),
    );
    assert.deepEqual([...mine.keys()].sort(), [...theirs.keys()].sort(), text.slice(0, 40));
    for (const [w, s] of theirs) assert.ok(Math.abs(mine.get(w)! - s) < 1e-9, `${w}: ${mine.get(w)} vs ${s} in ${text.slice(0, 40)}`);
    words += theirs.size;
  }
  return { words, skipped, compared: texts.length - skipped };
}

test('cppjieba-textrank = nodejieba.textRankExtract (short texts)', () => {
  const { words: n } = compare([
    '以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。',
    '你好世界世界而且而且',
    '吴京主演的长津湖讲述了战争故事，战争故事里的人物非常动人，动人的战争。',
    // numbers and upper-case stop words: kept and tested as cppjieba does
    'Again and again, 2014年的长津湖在80年代的故事里 Again 出现，2014 又是 80 年代。',
  ]);
  assert.ok(n > 10);
});

test('cppjieba-textrank = nodejieba.textRankExtract on the 297 Douban reviews', { skip: !existsSync(REVIEWS) && 'needs ../shared/data/texts/douban-reviews-bainiaochaofeng' }, () => {
  const texts: string[] = [];
  for (const line of readFileSync(REVIEWS, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const o = JSON.parse(line) as { review_full: string | string[] };
      texts.push(Array.isArray(o.review_full) ? o.review_full.join('') : o.review_full);
    } catch {
      // the 5 invalid lines of the file
    }
  }
  assert.equal(texts.length, 297);
  const { compared, words } = compare(texts);
  assert.equal(compared, 297, 'every review compared');
  assert.ok(words > 10_000, `${words} weights compared`);
});
