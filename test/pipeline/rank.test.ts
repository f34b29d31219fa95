import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UndirectedGraph } from 'graphology';
import { centrality } from 'graphology-metrics';

const { pagerank } = centrality;
import { rankGraph, codePointOrder, compareCodePoints, type RankInput } from '../../src/pipeline/rank.js';
import { orderByScore } from '../../src/pipeline/select.js';
import { mulberry32 } from '../../src/util/random.js';

/** Symmetric CSR from an undirected weighted edge list. */
function csr(n: number, edges: [number, number, number][], bias: Float64Array | null = null): RankInput {
  const rows: [number, number][][] = Array.from({ length: n }, () => []);
  for (const [a, b, w] of edges) {
    rows[a].push([b, w]);
    if (a !== b) rows[b].push([a, w]);
  }
  const offsets = new Int32Array(n + 1);
  rows.forEach((r, i) => (offsets[i + 1] = offsets[i] + r.length));
  const targets = Int32Array.from(rows.flat().map((x) => x[0]));
  const weights = Float64Array.from(rows.flat().map((x) => x[1]));
  const outWeights = Float64Array.from(rows.map((r) => r.reduce((s, x) => s + x[1], 0)));
  return { nodeCount: n, offsets, targets, weights, outWeights, bias };
}

const converge = { damping: 0.85, tol: 1e-10, maxIter: 1000, iterationMode: 'converge' as const };

test('unbiased ranking agrees with graphology-metrics pagerank (order and normalised scores)', () => {
  for (let seed = 1; seed <= 25; seed++) {
    const random = mulberry32(seed);
    const n = 3 + Math.floor(random() * 30);
    const edges = new Map<string, [number, number, number]>();
    const m = Math.floor(random() * n * 3);
    for (let k = 0; k < m; k++) {
      const a = Math.floor(random() * n);
      const b = Math.floor(random() * n);
      if (a === b) continue; // graphology counts self-loops differently; our self-loop rule is tested apart
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      const w = 1 + Math.floor(random() * 4);
      edges.set(key, [Math.min(a, b), Math.max(a, b), (edges.get(key)?.[2] ?? 0) + w]);
    }
    const list = [...edges.values()];
    const ours = rankGraph(csr(n, list), converge);
    assert.ok(ours.converged);
    const g = new UndirectedGraph();
    for (let i = 0; i < n; i++) g.addNode(String(i));
    for (const [a, b, w] of list) g.addEdge(String(a), String(b), { weight: w });
    const theirs = pagerank(g, { getEdgeWeight: 'weight', tolerance: 1e-12, maxIterations: 1000 });
    const total = ours.scores.reduce((s, x) => s + x, 0);
    for (let i = 0; i < n; i++) assert.ok(Math.abs(ours.scores[i] / total - theirs[String(i)]) < 1e-7, `seed ${seed} node ${i}: ${ours.scores[i] / total} vs ${theirs[String(i)]}`);
    const words = Array.from({ length: n }, (_, i) => String(i));
    const orderOurs = orderByScore(ours.scores, words, 'firstOccurrence');
    const theirScores = Float64Array.from(words.map((w) => theirs[w]));
    // equal up to float noise: compare the score sequences along both orders
    const orderTheirs = orderByScore(theirScores, words, 'firstOccurrence');
    for (let k = 0; k < n; k++) assert.ok(Math.abs(theirScores[orderOurs[k]] - theirScores[orderTheirs[k]]) < 1e-9);
  }
});

test('fixed point satisfies the TextRank equation; isolated node keeps 1 − d', () => {
  const input = csr(4, [[0, 1, 2], [1, 2, 1]]);
  const r = rankGraph(input, converge);
  assert.ok(r.converged);
  assert.ok(Math.abs(r.scores[3] - 0.15) < 1e-12);
  // S0 = 0.15 + 0.85 * (2/3) S1 ; S1 = 0.15 + 0.85 (S0 + S2) ; S2 = 0.15 + 0.85 (1/3) S1
  const [s0, s1, s2] = r.scores;
  assert.ok(Math.abs(s0 - (0.15 + 0.85 * (2 / 3) * s1)) < 1e-9);
  assert.ok(Math.abs(s1 - (0.15 + 0.85 * (s0 + s2))) < 1e-9);
  assert.ok(Math.abs(s2 - (0.15 + 0.85 * (1 / 3) * s1)) < 1e-9);
});

test('personalised (PositionRank) restart: fixed point of S = (1−d)p + d·M·S', () => {
  const bias = Float64Array.from([0.5, 0.3, 0.2]);
  const r = rankGraph(csr(3, [[0, 1, 1], [1, 2, 3], [0, 2, 1]], bias), converge);
  const [s0, s1, s2] = r.scores;
  // out weights: 0 → 2, 1 → 4, 2 → 4
  assert.ok(Math.abs(s0 - (0.15 * 0.5 + 0.85 * (s1 / 4 + s2 / 4))) < 1e-9);
  assert.ok(Math.abs(s1 - (0.15 * 0.3 + 0.85 * (s0 / 2 + (3 * s2) / 4))) < 1e-9);
  assert.ok(Math.abs(s2 - (0.15 * 0.2 + 0.85 * (s0 / 2 + (3 * s1) / 4))) < 1e-9);
  // a stochastic matrix without dangling nodes keeps the total mass of p
  assert.ok(Math.abs(s0 + s1 + s2 - 1) < 1e-9);
});

test('non-convergence is reported, not thrown', () => {
  const r = rankGraph(csr(3, [[0, 1, 1], [1, 2, 1]]), { damping: 0.85, tol: 1e-12, maxIter: 2, iterationMode: 'converge' });
  assert.equal(r.iterations, 2);
  assert.equal(r.converged, false);
  const empty = rankGraph(csr(0, []), converge);
  assert.deepEqual([empty.scores.length, empty.iterations, empty.converged], [0, 0, true]);
});

test('cppjieba parity vector: 你好–世界 ×2 plus a 世界 self-loop ×2 → 世界 1, 你好 0.519787', () => {
  const words = ['你好', '世界'];
  const input = csr(2, [[0, 1, 2], [1, 1, 2]]);
  input.sweepOrder = codePointOrder(words);
  const r = rankGraph(input, { damping: 0.85, tol: 1e-4, maxIter: 100, iterationMode: 'fixed10GaussSeidel' });
  assert.equal(r.iterations, 10);
  const min = Math.min(...r.scores);
  const max = Math.max(...r.scores);
  const norm = Array.from(r.scores, (w) => (w - min / 10) / (max - min / 10));
  assert.ok(Math.abs(norm[1] - 1) < 1e-12);
  assert.ok(Math.abs(norm[0] - 0.519787) < 5e-7, String(norm[0]));
});

test('Gauss-Seidel mode needs a sweep order', () => {
  assert.throws(() => rankGraph(csr(2, [[0, 1, 1]]), { damping: 0.85, tol: 1e-4, maxIter: 100, iterationMode: 'fixed10GaussSeidel' }), /sweepOrder/);
});

test('code-point order (astral characters after the BMP private-use area) and tie-breaks', () => {
  assert.ok(compareCodePoints('\uffff', '\u{20000}') < 0); // UTF-16 order would say the opposite
  assert.ok('\uffff' > '\u{20000}');
  assert.ok(compareCodePoints('世界', '你好') < 0 === '世界' < '你好');
  assert.deepEqual(Array.from(codePointOrder(['b', 'a', 'ab'])), [1, 2, 0]);
  const scores = Float64Array.from([1, 2, 1, 2]);
  assert.deepEqual(orderByScore(scores, ['d', 'c', 'b', 'a'], 'firstOccurrence'), [1, 3, 0, 2]);
  assert.deepEqual(orderByScore(scores, ['d', 'c', 'b', 'a'], 'lexicographic'), [3, 1, 2, 0]);
});

test('partial top-K selection equals the prefix of the full order (ties, eligibility)', () => {
  const random = mulberry32(7);
  for (let round = 0; round < 200; round++) {
    const n = 1 + Math.floor(random() * 40);
    const scores = Float64Array.from({ length: n }, () => Math.floor(random() * 5));
    const words = Array.from({ length: n }, () => String.fromCharCode(0x4e00 + Math.floor(random() * 50)));
    const eligible = Uint8Array.from({ length: n }, () => (random() < 0.8 ? 1 : 0));
    for (const tie of ['firstOccurrence', 'lexicographic'] as const) {
      const full = orderByScore(scores, words, tie, Infinity, eligible);
      for (const k of [1, 3, 5, 10]) assert.deepEqual(orderByScore(scores, words, tie, k, eligible), full.slice(0, k));
    }
  }
});
