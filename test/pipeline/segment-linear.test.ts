/**
 * Issue 26 item 2: POS tagging is linear in the text whatever its punctuation. The tag cache
 * (src/pipeline/segmenters/tag-cache.ts) used to re-tag the whole punctuation-free block once for every
 * new word that jieba cuts differently on its own: native `tag` ran on 57× the text at 40k characters
 * without punctuation, quadratic. The work is counted (characters given to native `tag` and `cut`,
 * `cacheStats()`), never timed, on seeded text without punctuation (dictionary words run together, and
 * random CJK characters) of 125k to 1M characters, with both backends' real taggers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createNodeRsTagger } from '../../src/pipeline/segmenters/node-rs.js';
import { createNodejiebaTagger } from '../../src/pipeline/segmenters/nodejieba.js';
import { unpunctuatedText, randomCjk } from './long-texts.js';

const SIZES = [125_000, 250_000, 500_000, 1_000_000];

for (const [name, make] of [
  ['dictionary words run together', unpunctuatedText],
  ['random CJK characters', randomCjk],
] as const) {
  test(`node-rs tagging of ${name} is linear up to 1M characters (characters given to native tag ≤ 3 × the text)`, () => {
    const ratios: number[] = [];
    for (const n of SIZES) {
      const tagger = createNodeRsTagger(''); // cold cache each time: the worst case
      const text = make(n, n);
      const out = tagger.tag(text);
      assert.equal(out.words.join(''), text, 'the tokens cover the text');
      const s = tagger.cacheStats();
      ratios.push(s.taggedChars / n);
      assert.ok(s.taggedChars <= 3 * n, `${n} characters: native tag was given ${s.taggedChars} characters (${(s.taggedChars / n).toFixed(1)}× the text)`);
      assert.equal(s.cutChars, n, 'one native cut of the text');
      if (n === SIZES[0]) {
        const native = tagger.jieba.tag(text, true);
        assert.deepEqual(out.words, native.map((t) => t.word), 'the same tokens as native tag');
        assert.deepEqual(out.tags, native.map((t) => t.tag), 'the same tags as native tag');
      }
    }
    assert.ok(Math.max(...ratios) <= 3, `ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
  });
}

test('nodejieba tagging of dictionary words run together is linear too (500k characters)', () => {
  const tagger = createNodejiebaTagger('');
  for (const n of [125_000, 500_000]) {
    const text = unpunctuatedText(n, n + 1);
    tagger.tag(text);
  }
  const s = tagger.cacheStats();
  assert.ok(s.taggedChars <= 3 * 625_000, `native tag was given ${s.taggedChars} characters for 625k`);
});
