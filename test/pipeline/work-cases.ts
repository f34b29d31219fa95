/**
 * Work-bound checks of issue 26 shared by the fast suite (on texts of tens or hundreds of thousands of
 * characters) and the integration suite (the same checks up to millions of characters,
 * test/integration/pipeline/): counted, never timed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKg } from '../../src/kg/load.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { createNodeRsTagger } from '../../src/pipeline/segmenters/node-rs.js';
import { createNodejiebaTagger } from '../../src/pipeline/segmenters/nodejieba.js';
import { randomCjk, unpunctuatedText } from './long-texts.js';

/**
 * The default preset's graph on texts of `sizes` characters without punctuation (seed 11): five
 * keywords, at most 2 edges per character, and edges per character growing by at most 25 % from the
 * first size to the last (a quadratic graph would grow with the size ratio).
 */
export async function assertEdgesLinear(sizes: readonly number[]): Promise<void> {
  const kg = await loadKg({});
  const ex = createExtractor({ preset: 'textrank+w+g+r', kg });
  const perChar: number[] = [];
  for (const n of sizes) {
    let edges = -1;
    const keywords = ex.extract(unpunctuatedText(n, 11), { inspect: (t) => (edges = t.graph.edgeCount) });
    assert.equal(keywords.length, 5);
    perChar.push(edges / n);
    assert.ok(edges <= 2 * n, `${n} characters: ${edges} edges`);
  }
  assert.ok(perChar[perChar.length - 1] <= perChar[0] * 1.25, `edges per character ${perChar.join(' → ')}: not linear`);
}

/**
 * Tagging registered as tests: node-rs on both kinds of text and nodejieba on dictionary words, at
 * `sizes` characters (node-rs, a cold tag cache each time) and `nodejiebaSizes` (one warm tagger): the
 * characters given to native `tag` are at most 3 × the text, one native `cut` of the text (node-rs), and
 * at the first size the same tokens and tags as native `tag` (node-rs).
 */
export function taggingLinearTests(sizes: readonly number[], nodejiebaSizes: readonly number[]): void {
  const k = (n: number) => `${n / 1000}k`;
  const range = `${k(sizes[0])} to ${k(sizes[sizes.length - 1])}`;
  for (const [name, make] of [
    ['dictionary words run together', unpunctuatedText],
    ['random CJK characters', randomCjk],
  ] as const) {
    test(`node-rs tagging of ${name} is linear from ${range} characters (characters given to native tag ≤ 3 × the text)`, () => {
      const ratios: number[] = [];
      for (const n of sizes) {
        const tagger = createNodeRsTagger(''); // cold cache each time: the worst case
        const text = make(n, n);
        const out = tagger.tag(text);
        assert.equal(out.words.join(''), text, 'the tokens cover the text');
        const s = tagger.cacheStats();
        ratios.push(s.taggedChars / n);
        assert.ok(s.taggedChars <= 3 * n, `${n} characters: native tag was given ${s.taggedChars} characters (${(s.taggedChars / n).toFixed(1)}× the text)`);
        assert.equal(s.cutChars, n, 'one native cut of the text');
        if (n === sizes[0]) {
          const native = tagger.jieba.tag(text, true);
          assert.deepEqual(out.words, native.map((t) => t.word), 'the same tokens as native tag');
          assert.deepEqual(out.tags, native.map((t) => t.tag), 'the same tags as native tag');
        }
      }
      assert.ok(Math.max(...ratios) <= 3, `ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
    });
  }

  const total = nodejiebaSizes.reduce((a, b) => a + b, 0);
  test(`nodejieba tagging of dictionary words run together is linear too (${nodejiebaSizes.map(k).join(' + ')} characters)`, () => {
    const tagger = createNodejiebaTagger('');
    for (const n of nodejiebaSizes) tagger.tag(unpunctuatedText(n, n + 1));
    const s = tagger.cacheStats();
    assert.ok(s.taggedChars <= 3 * total, `native tag was given ${s.taggedChars} characters for ${total}`);
  });
}
