/**
 * Parity of the cppjieba-textrank preset with nodejieba's own textRankExtract (cppjieba
 * TextRankExtractor, spec §4.3) on the same segmentation (backend nodejieba): every word with a
 * non-zero weight, same weight to 1e-9.
 *
 * cppjieba keeps pure-number tokens ("80", "2014") and tests stop words case-sensitively ("Again" is
 * not "again"): the preset sets `candidates.numbers: 'keep'` and `candidates.stopwordCase: 'sensitive'`
 * for that, so every review is compared (none skipped). The 297 Douban reviews of the shared data:
 * test/integration/pipeline/parity-reviews.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from './parity-compare.js';

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

