import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKg } from '../../src/kg/load.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import type { OutputCandidate } from '../../src/pipeline/api.js';
import { createMatcher, distinctKeys, evaluate, resolveEvalOptions } from '../../src/eval/metrics.js';
import { goldPlacement, placeLabel, placeOf, placementTable, PLACES } from '../../src/eval/placement.js';
import { readGold } from '../../src/eval/readers.js';

const matcher = createMatcher(resolveEvalOptions());
const docs = readGold('test/fixtures/eval/tiny.jsonl');

test('placeOf: the rank bands at K, the overlap rule, the pool and never', () => {
  const ranked = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
  const cands = [...ranked, 'x', 'y'].map((key) => ({ key, scored: key !== 'y' }));
  const place = (g: string, truncated = false) => placeOf(g, ranked, cands, truncated, 2, matcher);
  assert.deepEqual(['a', 'b', 'c', 'd', 'e', 'h', 'i'].map((g) => place(g)), ['top', 'top', 'next', 'next', 'later', 'later', 'lower']);
  assert.equal(place('x'), 'shorter', 'scored, not in an uncut ranking, no longer variant ranked: lost to a shorter one');
  assert.equal(placeOf('x', ['a', 'xa'], [{ key: 'x', scored: true }], false, 2, matcher), 'longer');
  assert.equal(place('x', true), 'lower', 'scored, not in a ranking cut at the largest topK: below the cut');
  assert.equal(place('y'), 'unscored');
  assert.equal(place('z'), 'never');
  assert.equal(placeLabel('later', 5), 'ranked 11–20');
  assert.equal(placeLabel('lower', 5), 'ranked below 20');
});

test('goldPlacement: every gold keyword placed once; the top-K count is the evaluator\'s correct count', async () => {
  const kg = await loadKg({});
  for (const preset of ['filmkw-rerank', 'filmkw', 'textrank']) {
    const ex = createExtractor({ preset, kg });
    const r = goldPlacement(ex, docs, 5, matcher);
    const gold = docs.reduce((s, d) => s + distinctKeys(d.gold, matcher.key).length, 0);
    assert.equal(r.gold, gold);
    assert.equal(PLACES.reduce((s, p) => s + r.counts[p], 0), gold, preset);
    const result = evaluate(docs.map((d) => ({ id: d.id, gold: d.gold, predicted: ex.extract(d.text, { topK: 10 }).map((k) => k.word) })));
    const correct = result.perDocument.reduce((s, d) => s + d.scores[4].correct, 0);
    assert.equal(r.counts.top, correct, preset);
    if (preset !== 'filmkw-rerank') assert.equal(r.counts.unscored, 0, `${preset} has no pool`);
  }
});

test('goldPlacement: a pool of 1 leaves the other candidates unscored; the candidates hook does not change the output', async () => {
  const kg = await loadKg({});
  const ex = createExtractor({ preset: 'filmkw-rerank', kg, overrides: { 'rerank.pool': 1 } });
  const r = goldPlacement(ex, docs, 1, matcher);
  assert.equal(r.counts.top, 2, 'one keyword per document, both gold');
  assert.equal(r.counts.next + r.counts.later + r.counts.lower + r.counts.longer + r.counts.shorter, 0, 'nothing else is ranked');
  assert.ok(r.counts.unscored >= 6, JSON.stringify(r.counts));
  let list: readonly OutputCandidate[] = [];
  const full = createExtractor({ preset: 'filmkw-rerank', kg });
  const plain = full.extract(docs[1].text, { topK: 10, explain: true });
  assert.deepEqual(full.extract(docs[1].text, { topK: 10, explain: true, candidates: (l) => (list = l) }), plain);
  assert.ok(list.length >= plain.length && list.every((c) => c.scored), 'a short text: every candidate is in the pool of 60');
  for (const k of plain) assert.ok(list.some((c) => c.text === k.word), k.word);
  assert.match(placementTable(r), /^where the 10 gold keywords of 2 documents are \(K = 1\):\n {2}in the top 1 +2 +20\.0 %\n/);
});
