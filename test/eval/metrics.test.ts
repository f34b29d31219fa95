import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  evaluate, scoreDocument, resolveEvalOptions, createMatcher, normalizeKeyword, parseKs, maximumMatching,
  DEFAULT_EVAL_OPTIONS, evaluateGroups,
} from '../../src/eval/metrics.js';
import type { KgView } from '../../src/kg/model.js';

const close = (actual: number, expected: number, what = '') => assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`);
const score = (gold: string[], predicted: string[], partial: Record<string, unknown> = {}, kg?: KgView) => {
  const options = resolveEvalOptions(partial);
  return scoreDocument(gold, predicted, options, createMatcher(options, kg));
};

test('hand-computed: five gold, five predictions, hits at ranks 1 and 3', () => {
  const s = score(['唢呐', '传承', '吴天明', '百鸟朝凤', '焦三爷'], ['唢呐', '电影', '吴天明', '故事', '百鸟朝凤']);
  // K=1: 1/1, 1/5; K=2: 1/2, 1/5; K=3: 2/3, 2/5; K=4: 2/4, 2/5; K=5: 3/5, 3/5
  const expected = [[1, 0.2], [0.5, 0.2], [2 / 3, 0.4], [0.5, 0.4], [0.6, 0.6]];
  s.forEach((d, i) => {
    close(d.p, expected[i][0], `P@${d.k}`);
    close(d.r, expected[i][1], `R@${d.k}`);
    const [p, r] = expected[i];
    close(d.f1, (2 * p * r) / (p + r), `F1@${d.k}`);
  });
  close(s[0].f1, 1 / 3);
  close(s[2].f1, 0.5);
});

test('fewer than K predictions: precision divides by the number returned, or by K on request', () => {
  const gold = ['a', 'b', 'c', 'd', 'e'];
  const [, , k3] = score(gold, ['a', 'x']);
  assert.equal(k3.returned, 2);
  close(k3.p, 1 / 2);
  close(k3.r, 1 / 5);
  close(k3.f1, (2 * 0.5 * 0.2) / 0.7);
  const [, , k3hard] = score(gold, ['a', 'x'], { precisionDenominator: 'k' });
  close(k3hard.p, 1 / 3);
  close(k3hard.f1, (2 * (1 / 3) * 0.2) / (1 / 3 + 0.2));
});

test('duplicates after normalisation are dropped before cutting at K', () => {
  // ＡＢＣ (full-width) → abc; " abc " → abc; so the distinct list is [abc, 长津湖, 吴京]
  const s = score(['ABC', '吴京', '战争'], ['ＡＢＣ', ' abc ', 'Abc', '长津湖', '吴京']);
  assert.deepEqual(s.map((d) => d.returned), [1, 2, 3, 3, 3]);
  assert.deepEqual(s.map((d) => d.correct), [1, 1, 2, 2, 2]);
  close(s[2].p, 2 / 3);
  close(s[2].r, 2 / 3);
});

test('a gold item is counted once even if listed twice', () => {
  const s = score(['唢呐', '唢呐', '传承'], ['唢呐', '传承']);
  assert.equal(s[1].goldCount, 2);
  close(s[1].r, 1);
  close(s[1].p, 1);
});

test('empty predictions: P = R = F1 = 0', () => {
  for (const d of score(['a', 'b'], [])) assert.deepEqual([d.p, d.r, d.f1, d.returned], [0, 0, 0, 0]);
  for (const d of score(['a', 'b'], ['', '  '])) assert.deepEqual([d.p, d.r, d.f1], [0, 0, 0]);
});

test('gold keywords absent from the text still count in |G| and cap recall', () => {
  // Only 2 of the 5 gold items could ever be predicted: R@5 ≤ 2/5.
  const s = score(['甲', '乙', '不在文中1', '不在文中2', '不在文中3'], ['甲', '乙', '丙', '丁', '戊']);
  close(s[4].r, 0.4);
  close(s[4].p, 0.4);
});

test('normalisation: NFKC, trim, Latin case-fold; CJK and inner spaces untouched', () => {
  assert.equal(normalizeKeyword('  ＩＭＡＸ３Ｄ '), 'imax3d');
  assert.equal(normalizeKeyword('The Shawshank Redemption'), 'the shawshank redemption');
  assert.equal(normalizeKeyword('Ⅱ'), 'ii');
  assert.equal(normalizeKeyword('长津湖'), '长津湖');
  const s = score(['Tom Hanks'], ['tom hanks']);
  close(s[0].f1, 1);
  close(score(['TomHanks'], ['tom hanks'])[0].f1, 0);
});

test('traditional ↔ simplified matching is off by default and folds both sides when on', () => {
  close(score(['长津湖'], ['長津湖'])[0].f1, 0);
  close(score(['长津湖'], ['長津湖'], { traditionalSimplified: true })[0].f1, 1);
  close(score(['電影節'], ['电影节'], { traditionalSimplified: true })[0].f1, 1);
  // folding also merges duplicates across scripts
  const s = score(['台湾', '电影'], ['臺灣', '台湾', '電影'], { traditionalSimplified: true });
  assert.deepEqual(s.map((d) => d.returned), [1, 2, 2, 2, 2]);
  close(s[1].f1, 1);
});

function tinyKg(): KgView {
  // entity 0: 肖申克的救赎 with alias 刺激1995; entity 1: 蒂姆·罗宾斯; entity 2 and 3 both named 张三 (homonyms)
  const index = new Map<string, number[]>([
    ['肖申克的救赎', [0]], ['刺激1995', [0]], ['蒂姆·罗宾斯', [1]], ['张三', [2, 3]], ['张三丰', [3]],
  ]);
  return {
    entityCount: 4, contentHash: 'x',
    lookup: (name: string) => index.get(name.normalize('NFKC').trim()) ?? [],
    lookupName: () => [], kindOf: () => 'Movie', idOf: (i: number) => `e${i}`, nameOf: () => '', aliasesOf: () => [],
    neighbours: () => new Int32Array(0), relationCount: () => 0,
    stats: () => { throw new Error('unused'); }, names: () => [],
  } as unknown as KgView;
}

test('KG alias matching: a prediction matches gold when both name a common entity', () => {
  const kg = tinyKg();
  close(score(['肖申克的救赎'], ['刺激1995'])[0].f1, 0);
  close(score(['肖申克的救赎'], ['刺激1995'], { kgAliases: true }, kg)[0].f1, 1);
  close(score(['张三丰'], ['张三'], { kgAliases: true }, kg)[0].f1, 1, 'homonym shares entity 3');
  close(score(['蒂姆·罗宾斯'], ['刺激1995'], { kgAliases: true }, kg)[0].f1, 0);
  // two alias predictions cannot both be credited for one gold item
  const s = score(['肖申克的救赎', '蒂姆·罗宾斯'], ['刺激1995', '肖申克的救赎'], { kgAliases: true }, kg);
  assert.equal(s[1].correct, 1);
  assert.throws(() => score(['a'], ['a'], { kgAliases: true }), /needs a knowledge graph/);
});

test('maximum matching beats greedy assignment', () => {
  // p0 matches g0 and g1, p1 matches only g0: greedy p0→g0 would leave p1 unmatched.
  const m = (p: string, g: string) => (p === 'p0' ? true : g === 'g0');
  assert.equal(maximumMatching(['p0', 'p1'], ['g0', 'g1'], m), 2);
});

test('macro averages per-document F1; micro pools the counts', () => {
  const r = evaluate([
    { id: 'd1', gold: ['a', 'b', 'c', 'd'], predicted: ['a', 'b'] }, // P=1, R=.5, F1=2/3
    { id: 'd2', gold: ['e'], predicted: ['x', 'y'] }, // 0
  ], { ks: [2] });
  close(r.macro['2'].p, 0.5);
  close(r.macro['2'].r, 0.25);
  close(r.macro['2'].f1, 1 / 3); // (2/3 + 0) / 2
  close(r.micro['2'].p, 2 / 4);
  close(r.micro['2'].r, 2 / 5);
  close(r.micro['2'].f1, (2 * 0.5 * 0.4) / 0.9);
  const r2 = evaluate([
    { id: 'd1', gold: ['a'], predicted: ['a'] }, // F1 = 1
    { id: 'd2', gold: ['b', 'c', 'd', 'e'], predicted: ['x'] }, // F1 = 0
  ], { ks: [1] });
  close(r2.macro['1'].f1, 0.5);
  close(r2.macro['1'].p, 0.5);
  close(r2.macro['1'].r, 0.5);
  close(r2.micro['1'].r, 1 / 5);
  assert.equal(r2.docs, 2);
  assert.deepEqual(Object.keys(r2.macro), ['1']);
});

test('macro F1 differs from the harmonic mean of macro P and R', () => {
  const r = evaluate([
    { id: 'd1', gold: ['a'], predicted: ['a', 'x', 'y', 'z', 'w'] }, // P=.2 R=1 F1=1/3
    { id: 'd2', gold: ['b', 'c', 'd', 'e', 'f'], predicted: ['b'] }, // P=1 R=.2 F1=1/3
  ], { ks: [5] });
  close(r.macro['5'].f1, 1 / 3);
  close(r.macro['5'].p, 0.6);
  close(r.macro['5'].r, 0.6);
});

test('options: defaults, unknown keys and bad values are rejected', () => {
  assert.deepEqual(resolveEvalOptions(), { ...DEFAULT_EVAL_OPTIONS, ks: [1, 2, 3, 4, 5] });
  assert.throws(() => resolveEvalOptions({ precision: 'k' }), /unknown option "precision".*precisionDenominator/);
  assert.throws(() => resolveEvalOptions({ precisionDenominator: 'K' }), /'returned' or 'k'/);
  assert.throws(() => resolveEvalOptions({ ks: [0] }), /positive integer/);
  assert.throws(() => resolveEvalOptions({ kgAliases: 'yes' }), /true or false/);
  assert.deepEqual(parseKs('1,2,3'), [1, 2, 3]);
  assert.deepEqual(parseKs('5,1-3'), [1, 2, 3, 5]);
  assert.throws(() => parseKs('1,two'), /bad K "two"/);
  assert.throws(() => parseKs(''), /non-empty/);
});

test('an empty evaluation gives zeros, not NaN', () => {
  const r = evaluate([], { ks: [1] });
  assert.deepEqual(r.macro['1'], { p: 0, r: 0, f1: 0 });
  assert.deepEqual(r.micro['1'], { p: 0, r: 0, f1: 0 });
});

test('the worked example of eval/README.md', () => {
  const r = evaluate([
    { id: 'd1', gold: ['唢呐', '传承', '吴天明', '百鸟朝凤', '焦三爷'], predicted: ['唢呐', '电影', '唢呐', '吴天明', '故事', '百鸟朝凤'] },
    { id: 'd2', gold: ['长津湖', '吴京', '易烊千玺', '抗美援朝', '伍万里'], predicted: ['长津湖', '战争'] },
  ]);
  const d1 = r.perDocument[0].scores.map((s) => [s.correct, s.returned, +s.p.toFixed(4), +s.r.toFixed(4), +s.f1.toFixed(4)]);
  assert.deepEqual(d1, [[1, 1, 1, 0.2, 0.3333], [1, 2, 0.5, 0.2, 0.2857], [2, 3, 0.6667, 0.4, 0.5], [2, 4, 0.5, 0.4, 0.4444], [3, 5, 0.6, 0.6, 0.6]]);
  const d2 = r.perDocument[1].scores.map((s) => [s.correct, s.returned, +s.p.toFixed(4), +s.r.toFixed(4), +s.f1.toFixed(4)]);
  assert.deepEqual(d2, [[1, 1, 1, 0.2, 0.3333], [1, 2, 0.5, 0.2, 0.2857], [1, 2, 0.5, 0.2, 0.2857], [1, 2, 0.5, 0.2, 0.2857], [1, 2, 0.5, 0.2, 0.2857]]);
  const m5 = r.macro['5'];
  assert.deepEqual([m5.p, m5.r, +m5.f1.toFixed(4)], [0.55, 0.4, 0.4429]);
  const u5 = r.micro['5'];
  assert.deepEqual([+u5.p.toFixed(4), u5.r, +u5.f1.toFixed(4)], [0.5714, 0.4, 0.4706]);
  const hard = evaluate([{ id: 'd2', gold: ['长津湖', '吴京', '易烊千玺', '抗美援朝', '伍万里'], predicted: ['长津湖', '战争'] }], { precisionDenominator: 'k' });
  assert.deepEqual([hard.macro['5'].p, hard.macro['5'].r, +hard.macro['5'].f1.toFixed(4)], [0.2, 0.2, 0.2]);
});

test('evaluateGroups: each group scored alone, groups in order of first appearance', () => {
  const j = [
    { id: 'a', gold: ['x', 'y'], predicted: ['x', 'q'] },
    { id: 'b', gold: ['x'], predicted: ['q'] },
    { id: 'c', gold: ['z'], predicted: ['z'] },
  ];
  const groups = evaluateGroups(j, ['s', 'r', 's'], { ks: [1, 2] });
  assert.deepEqual(groups.map((g) => [g.group, g.docs]), [['s', 2], ['r', 1]]);
  assert.deepEqual(groups[0].macro, evaluate([j[0], j[2]], { ks: [1, 2] }).macro);
  assert.equal(groups[1].macro['2'].f1, 0);
  assert.equal(groups[0].micro['1'].p, 1);
  assert.throws(() => evaluateGroups(j, ['s'], {}), RangeError);
});
