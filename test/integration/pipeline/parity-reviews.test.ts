/**
 * Parity of the cppjieba-textrank preset with nodejieba.textRankExtract (test/pipeline/parity.test.ts) on
 * the 297 Douban reviews of the shared data (skipped with a message when absent).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { compare } from '../../pipeline/parity-compare.js';

const REVIEWS = new URL('../../../../shared/data/texts/douban-reviews-bainiaochaofeng/douban_reviews.json', import.meta.url);

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
