/** Test helper: the cppjieba-textrank preset against nodejieba.textRankExtract on the same texts (parity.test.ts). */
import assert from 'node:assert/strict';
import nodejieba from 'nodejieba';
import { createExtractor } from '../../src/pipeline/extract.js';

/** Every word with a non-zero weight, same weight to 1e-9; returns the count of weights compared. */
export function compare(texts: string[]) {
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
