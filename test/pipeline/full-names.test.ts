/**
 * The full form of a name over its short form (full-names.ts, option `phrases.fullNames`): golden
 * selections on small fixtures of pooled items, and the pipeline and the cross-validation applying it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preferFullNames, SURNAMES, type NameItem } from '../../src/pipeline/full-names.js';
import { RERANK_FEATURES } from '../../src/pipeline/rerank.js';
import { resolveOptions } from '../../src/pipeline/options.js';
import { selectWithModel, type TrainingDocument } from '../../src/eval/rerank-train.js';
import { zeroRerankModel } from '../../src/pipeline/rerank-model.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { loadKg } from '../../src/kg/load.js';

/** An item with the given features set to 1. */
function item(text: string, ...features: string[]): NameItem {
  const x = new Float64Array(RERANK_FEATURES.length);
  for (const f of features) x[RERANK_FEATURES.indexOf(f as never)] = 1;
  return { text, x };
}

const nanOrValue = (v: readonly number[]): (number | null)[] => v.map((x) => (Number.isNaN(x) ? null : x));

test('preferFullNames: a short name gives its place to its full form (a name word, a joined name); other words keep theirs', () => {
  const items = [
    item('天鸣', 'posUnknown'), // short name, x
    item('唢呐', 'posNoun'),
    item('游天鸣', 'posUnknown'), // full form: a surname + the short name
    item('约尔', 'posName'),
    item('约尔•巴瑞斯', 'phrase', 'phraseJoined'), // full form, joined
    item('传统', 'posNoun'),
    item('传统文化', 'phrase'), // not a name: 传统 keeps its place
  ];
  const values = [5, 4, 1, 3, 0.5, 2, 1.5];
  // the defect: 天鸣 and 约尔 ranked first, the full forms far below
  assert.deepEqual(preferFullNames(items, values, false), values);
  assert.deepEqual(nanOrValue(preferFullNames(items, values, true)), [null, 4, 5, null, 3, 2, 1.5]);
  assert.deepEqual(values, [5, 4, 1, 3, 0.5, 2, 1.5], 'the input is not changed');
});

test('preferFullNames: not a neighbour glued to the name (手拉凤霞/x, 对漫威/x), not a joined name with the short one inside a part (人托尼•斯塔克), not a plain compound (陈+爱琳)', () => {
  const items = [
    item('凤霞', 'posName'),
    item('手拉凤霞', 'posUnknown'),
    item('托尼', 'posName'),
    item('人托尼•斯塔克', 'phrase', 'phraseJoined'),
    item('爱琳', 'posName'),
    item('陈爱琳', 'phrase'),
    item('漫威', 'posUnknown'),
    item('对漫威', 'posUnknown'),
    item('志明', 'posName'),
    item('张志明', 'person'), // a person of the KG: its surname need not be a common one
  ];
  const values = [3, 1, 2.5, 0.2, 2, 0.1, 1.8, 0.3, 1.7, 0.4];
  assert.deepEqual(nanOrValue(preferFullNames(items, values, true)), [3, 1, 2.5, 0.2, 2, 0.1, 1.8, 0.3, null, 1.7]);
  assert.ok(SURNAMES.includes('游') && SURNAMES.includes('李') && !SURNAMES.includes('对') && !SURNAMES.includes('手'));
});

test('preferFullNames: the best of several full forms; a chain passes on (天明 → 吴天明 → …); NaN items are never targets', () => {
  const items = [item('张家', 'posName'), item('张家安', 'posName'), item('张家辉', 'person'), item('天明', 'posName'), item('吴天明', 'person'), item('吴天明导演', 'posName'), item('马修', 'posName'), item('马修·麦康纳', 'phrase', 'phraseJoined')];
  const values = [4, 1, 2, 3, 0.5, 0.1, 2.2, NaN];
  assert.deepEqual(nanOrValue(preferFullNames(items, values, true)), [null, 1, 4, null, null, 3, 2.2, null]);
});

test('phrases.fullNames: off by default and in every preset; the cross-validation selects with it', () => {
  for (const p of ['textrank', 'filmkw', 'filmkw-rerank']) assert.equal(resolveOptions(p).phrases.fullNames, false, p);
  assert.throws(() => resolveOptions('filmkw-rerank', { 'phrases.fullNames': 'names' }), /phrases\.fullNames/);
  const rows = [item('天鸣', 'posUnknown'), item('唢呐', 'posNoun'), item('游天鸣', 'posUnknown')];
  const doc = (fullNames: boolean): TrainingDocument => ({
    id: 'd',
    gold: [],
    items: rows.map((r, k) => ({ text: r.text, charStart: k, phrase: false, x: r.x as Float64Array, label: 0 })),
    select: { dedup: 'phrases', rescueWords: 'off', fullNames },
  });
  // the zero model ties every item: first occurrence decides; 天鸣 is no longer output
  assert.deepEqual(selectWithModel(doc(false), zeroRerankModel(), 3), ['天鸣', '唢呐', '游天鸣']);
  assert.deepEqual(selectWithModel(doc(true), zeroRerankModel(), 3), ['唢呐', '游天鸣']);
});

test('phrases.fullNames: in the pipeline the full name takes the short one\'s place, the short one is not output', async () => {
  const kg = await loadKg({});
  const text = '焦三爷收徒游天鸣。天鸣吹唢呐，天鸣练唢呐，天鸣学唢呐，天鸣爱唢呐。师父焦三爷说天鸣有天分。';
  const run = (fullNames: boolean) => createExtractor({ preset: 'filmkw-rerank', kg, overrides: { 'phrases.fullNames': fullNames } }).extract(text, { topK: 5 }).map((k) => k.word);
  const off = run(false);
  // the defect: both forms are output (two words do not hide each other)
  assert.ok(off.includes('天鸣') && off.includes('游天鸣'), `the defect: ${off.join(' ')}`);
  const on = run(true);
  assert.ok(on.includes('游天鸣') && !on.includes('天鸣'), on.join(' '));
  assert.equal(on.indexOf('游天鸣'), Math.min(off.indexOf('天鸣'), off.indexOf('游天鸣')), 'at the better place of the two');
});
