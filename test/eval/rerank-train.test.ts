/**
 * The re-ranker's training helpers for recipe variants (src/eval/rerank-train.ts: restrictTable,
 * filmFolds, crossValidate with folds given). The flags of scripts/train-rerank.mjs:
 * test/integration/eval/train-rerank-cli.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crossValidate, filmFolds, restrictTable, trainingTable, type TrainingDocument } from '../../src/eval/rerank-train.js';
import { readGold } from '../../src/eval/readers.js';
import { loadKg } from '../../src/kg/load.js';
import { RERANK_FEATURES } from '../../src/pipeline/rerank.js';

const at = (f: string): number => RERANK_FEATURES.indexOf(f as never);

/** A document of `rows` items; item r has graph rank r and the given base / idf; `keyword` is the gold item. */
function doc(id: string, rows: { base: number; idf: number }[], keyword: number): TrainingDocument {
  return {
    id,
    gold: [`${id}-w${keyword}`],
    items: rows.map((v, r) => {
      const x = new Float64Array(RERANK_FEATURES.length);
      x[at('baseRank')] = 1 / (1 + r);
      x[at('base')] = v.base;
      x[at('idf')] = v.idf;
      return { text: `${id}-w${r}`, charStart: r, phrase: false, x, label: r === keyword ? 1 : 0 };
    }),
  };
}

test('filmFolds: a film\'s documents share a fold; larger films first, each to the emptiest fold (golden)', () => {
  assert.deepEqual(filmFolds(['A', 'B', 'A', 'C', 'D', 'A', 'B', 'E'], 3), [0, 1, 0, 2, 2, 0, 1, 1]);
  // ties between films of one size go by name; one film per fold while folds are empty
  assert.deepEqual(filmFolds(['b', 'a', 'c'], 5), [1, 0, 2]);
  assert.deepEqual(filmFolds([], 5), []);
});

test('restrictTable: a smaller pool keeps the items of graph rank below it; dropped features become 0; unknown names throw', () => {
  const d = doc('d', Array.from({ length: 6 }, (_, r) => ({ base: 1 - r / 10, idf: r / 10 })), 4);
  const [small] = restrictTable([d], { pool: 3 });
  assert.deepEqual(small.items.map((it) => it.text), ['d-w0', 'd-w1', 'd-w2']);
  assert.equal(small.items[0], d.items[0], 'no drop: the rows are shared, not copied');
  const [dropped] = restrictTable([d], { drop: ['idf'] });
  assert.equal(dropped.items.length, 6);
  assert.deepEqual(dropped.items.map((it) => it.x[at('idf')]), [0, 0, 0, 0, 0, 0]);
  assert.deepEqual(dropped.items.map((it) => it.x[at('base')]), d.items.map((it) => it.x[at('base')]));
  assert.equal(d.items[3].x[at('idf')], 0.3, 'the input table is not changed');
  assert.throws(() => restrictTable([d], { drop: ['idf', 'nope'] }), /unknown feature\(s\) nope/);
});

test('crossValidate with folds by group: a model never sees the held-out group, so a rule that differs between groups fails there', () => {
  // base falls with the graph rank in both groups; group A: the keyword has the highest base; group B: the
  // keyword has the highest idf and the lowest base
  const docs: TrainingDocument[] = [];
  const groups: string[] = [];
  for (let k = 0; k < 24; k++) {
    const a = k % 2 === 0;
    const rows = Array.from({ length: 10 }, (_, r) => ({ base: 0.9 - r / 20, idf: a ? 0.5 : r === 9 ? 1 : 0.3 }));
    docs.push(doc(`d${k}`, rows, a ? 0 : 9));
    groups.push(a ? 'A' : 'B');
  }
  const params = { trees: 20, depth: 2, rate: 0.3, minLeaf: 5, bins: 16, l2: 1, objective: 'lambdarank' as const };
  const mixed = crossValidate(docs, params, 3);
  const grouped = crossValidate(docs, params, 3, filmFolds(groups, 3));
  assert.equal(mixed.f1[0], 1, 'folds by index mod 3: both rules are learned');
  assert.equal(grouped.f1[0], 0, 'folds by group: each group is scored by the other group\'s rule');
  assert.equal(grouped.predicted.length, docs.length);
  assert.equal(grouped.result.perDocument.length, docs.length);
  assert.deepEqual(crossValidate(docs, params, 3).predicted, mixed.predicted, 'deterministic');
});

const root = fileURLToPath(new URL('../../', import.meta.url));
const gold = join(root, 'test', 'fixtures', 'eval', 'tiny.jsonl');

test('trainingTable: an optional feature is read only when asked for; the other columns do not change', { skip: !existsSync(gold) && 'needs the tiny fixture' }, async () => {
  const kg = await loadKg({});
  const docs = readGold(gold);
  const j = at('positionRank');
  const plain = trainingTable(docs, kg);
  const withPr = trainingTable(docs, kg, {}, ['positionRank']);
  const rows = (t: TrainingDocument[]) => t.flatMap((d) => d.items);
  assert.ok(rows(plain).length > 0);
  assert.ok(rows(plain).every((it) => it.x[j] === 0));
  assert.ok(rows(withPr).some((it) => it.x[j] > 0) && rows(withPr).every((it) => it.x[j] >= 0 && it.x[j] <= 1));
  assert.deepEqual(rows(withPr).map((it) => [it.text, it.label, ...it.x.subarray(0, j)]), rows(plain).map((it) => [it.text, it.label, ...it.x.subarray(0, j)]));
  assert.throws(() => trainingTable(docs, kg, {}, ['idf']), /idf is not an optional feature/);
});

