import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWordGraph, type BuildGraphOptions, type WordGraph } from '../../src/pipeline/graph.js';
import { buildCandidateDoc, mergeEntityNodes, type CandidateDoc } from '../../src/pipeline/candidate-doc.js';
import { JaccardMemo } from '../../src/pipeline/jaccard.js';
import { toRankInput } from '../../src/pipeline/rank.js';
import { toGraphology } from '../../src/pipeline/graphology.js';
import { matchEntities } from '../../src/pipeline/kg-match.js';
import { TOY_TAGGED, toTokens, toyKg } from '../fixtures/pipeline/mini-kg.js';

const BASE: BuildGraphOptions = {
  graph: { window: 3, windowOver: 'candidates', crossSentence: true, selfLoops: 'drop', kgEdges: false, kgEdgeWeight: 'binary', combine: 'sum', lambda: 1 },
  semantic: { enabled: false, jaccardNeighbours: 'kg', jaccardExcludeEndpoints: false, jaccardEmpty: 0, smScope: 'existingEdges', smCombine: 'add', mu: 0.5, smInDenominator: true },
};
const opts = (graph: Partial<BuildGraphOptions['graph']> = {}, semantic: Partial<BuildGraphOptions['semantic']> = {}): BuildGraphOptions => ({
  graph: { ...BASE.graph, ...graph },
  semantic: { ...BASE.semantic, ...semantic },
});

/** Edge map "a|b" (code-point sorted) → parts, for readable assertions. */
function edges(g: WordGraph): Map<string, { cooc: number; kg: number; sem: number; weight: number }> {
  const out = new Map<string, { cooc: number; kg: number; sem: number; weight: number }>();
  for (let e = 0; e < g.edgeCount; e++) {
    const pair = [g.words[g.source[e]], g.words[g.target[e]]].sort().join('|');
    out.set(pair, { cooc: g.cooc[e], kg: g.kg[e], sem: g.sem[e], weight: g.weight[e] });
  }
  return out;
}

const tokens = toTokens(TOY_TAGGED);
/** Spec §1.5 candidates: tag contains n or v, minus the stop word 是. */
const candidateIdx = tokens.flatMap((t, i) => (/[nv]/.test(t.tag) && t.word !== '是' ? [i] : []));
const doc = buildCandidateDoc(tokens, candidateIdx);

test('candidate doc: nodes in order of first occurrence, sentence numbers, token positions', () => {
  assert.deepEqual(doc.words, ['长津湖', '战争', '电影', '易烊千玺', '扮演', '伍万里', '吴京', '主演', '讲述', '故事']);
  assert.deepEqual(Array.from(doc.node), [0, 1, 2, 3, 4, 5, 6, 7, 2, 8, 1, 9]);
  assert.deepEqual(Array.from(doc.tokenIndex), [0, 3, 4, 6, 7, 8, 10, 11, 14, 15, 16, 17]);
  assert.deepEqual(Array.from(doc.sentence), [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
  assert.equal(doc.tokenCount, 19);
});

test('eq. 1 over candidates, W = 3: counts of pairs at distance < 3', () => {
  const g = buildWordGraph(doc, opts(), null);
  const e = edges(g);
  assert.equal(e.get('战争|长津湖')?.cooc, 1);
  assert.equal(e.get('电影|长津湖')?.cooc, 1);
  assert.equal(e.get('易烊千玺|长津湖'), undefined);
  // 电影 … 讲述 战争: 电影–战争 co-occur at distance 1 (pos 1,2) and 2 (pos 8,10)
  assert.equal(e.get('战争|电影')?.cooc, 2);
  assert.equal(g.edgeCount, 20, '21 pairs, 电影–战争 twice');
  for (const v of e.values()) assert.equal(v.weight, v.cooc);
});

test('eq. 1 over all tokens, no sentence crossing, self-loops', () => {
  const all = edges(buildWordGraph(doc, opts({ windowOver: 'allTokens', window: 3 }), null));
  // tokens 长津湖(0) 是(1) 一部(2) 战争(3): distance 3 ≥ W → no edge
  assert.equal(all.get('战争|长津湖'), undefined);
  // 战争(3) 电影(4) and 电影(14) 讲述(15) 战争(16)
  assert.equal(all.get('战争|电影')?.cooc, 2);
  const noCross = edges(buildWordGraph(doc, opts({ crossSentence: false, window: 10 }), null));
  assert.equal(noCross.get('主演|讲述'), undefined, 'the 。 between 主演 and 这部 ends sentence 0');
  assert.equal(edges(buildWordGraph(doc, opts({ window: 10 }), null)).get('主演|讲述')?.cooc, 1);
  assert.equal(noCross.get('故事|讲述')?.cooc, 1);
  // a word repeated inside the window: 电影 电影
  const rep = buildCandidateDoc(toTokens([['电影', 'n'], ['好', 'a'], ['电影', 'n'], ['故事', 'n']]), [0, 2, 3]);
  assert.equal(edges(buildWordGraph(rep, opts({ selfLoops: 'drop' }), null)).get('电影|电影'), undefined);
  assert.equal(edges(buildWordGraph(rep, opts({ selfLoops: 'keep' }), null)).get('电影|电影')?.cooc, 1);
  assert.equal(edges(buildWordGraph(rep, opts({ selfLoops: 'keepDouble' }), null)).get('电影|电影')?.cooc, 2);
});

const kg = toyKg();
const entities = matchEntities(doc.words, kg, { match: 'exactOrAlias', mergeAliases: true, ambiguity: 'union', kinds: ['Movie', 'Person', 'Character', 'Genre'] });

test('eq. 2/3: KG edges between related candidates, combine rules and λ', () => {
  const g = buildWordGraph(doc, opts({ kgEdges: true }), { kg, entities });
  const e = edges(g);
  // far apart in the text, related in the KG (the paper's motivating example)
  assert.deepEqual(e.get('易烊千玺|长津湖'), { cooc: 0, kg: 1, sem: 0, weight: 1 });
  assert.deepEqual(e.get('战争|长津湖'), { cooc: 1, kg: 1, sem: 0, weight: 2 });
  assert.equal([...e.values()].filter((x) => x.kg > 0).length, 5);
  const max = edges(buildWordGraph(doc, opts({ kgEdges: true, combine: 'max' }), { kg, entities }));
  assert.equal(max.get('战争|长津湖')?.weight, 1);
  const coOnly = edges(buildWordGraph(doc, opts({ kgEdges: true, combine: 'coOnlyWeightKgBinary', lambda: 0.5 }), { kg, entities }));
  assert.equal(coOnly.get('战争|长津湖')?.weight, 1);
  assert.equal(coOnly.get('易烊千玺|长津湖')?.weight, 0.5);
  const lam = edges(buildWordGraph(doc, opts({ kgEdges: true, lambda: 2, kgEdgeWeight: 3 }), { kg, entities }));
  assert.deepEqual(lam.get('战争|长津湖'), { cooc: 1, kg: 3, sem: 0, weight: 7 });
  const counted = edges(buildWordGraph(doc, opts({ kgEdges: true, kgEdgeWeight: 'relationCount' }), { kg, entities }));
  assert.equal(counted.get('易烊千玺|长津湖')?.kg, 1);
});

test('eq. 8–10: semantic similarity on existing edges or all pairs; combination rules', () => {
  const g = edges(buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true }), { kg, entities }));
  // spec §1.5: sm(伍万里, 长津湖) = 0.2
  assert.ok(Math.abs(g.get('伍万里|长津湖')!.sem - 0.2) < 1e-12);
  assert.ok(Math.abs(g.get('伍万里|长津湖')!.weight - 1.2) < 1e-12);
  assert.equal(g.get('战争|电影')!.sem, 0, 'non-entity words: jaccardEmpty');
  const mul = edges(buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true, smCombine: 'mul' }), { kg, entities }));
  assert.equal(mul.get('战争|电影')!.weight, 0);
  const one = edges(buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true, smCombine: 'mulOnePlus' }), { kg, entities }));
  assert.ok(Math.abs(one.get('伍万里|长津湖')!.weight - 1.2) < 1e-12);
  const lin = edges(buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true, smCombine: 'linear', mu: 0.5 }), { kg, entities }));
  // max w = 2 (电影–战争 cooc 2; 战争–长津湖 1+1)
  assert.ok(Math.abs(lin.get('伍万里|长津湖')!.weight - (0.5 * (1 / 2) + 0.5 * 0.2)) < 1e-12);
  // all pairs: 吴京 and 伍万里 share 长津湖 and 易烊千玺? N(吴京) = {长津湖, 战狼2}, N(伍万里) = {易烊千玺, 长津湖}: 1/3
  const all = edges(buildWordGraph(doc, opts({}, { enabled: true, smScope: 'allPairs' }), { kg, entities }));
  assert.ok(Math.abs(all.get('伍万里|吴京')!.sem - 1 / 3) < 1e-12);
  assert.equal(all.get('伍万里|吴京')!.cooc, 1);
  // N(吴京) = {长津湖, 战狼2}, N(易烊千玺) = {长津湖, 伍万里}; no co-occurrence (distance 3)
  assert.ok(Math.abs(all.get('吴京|易烊千玺')!.weight - 1 / 3) < 1e-12, 'a new edge made by sm alone');
  const inDoc = edges(buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true, jaccardNeighbours: 'kgInDoc' }), { kg, entities }));
  // in-document KG neighbours: 伍万里 → {长津湖, 易烊千玺}; 长津湖 → {战争, 易烊千玺, 伍万里, 吴京}
  assert.ok(Math.abs(inDoc.get('伍万里|长津湖')!.sem - 1 / 5) < 1e-12);
  const excl = edges(buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true, jaccardExcludeEndpoints: true }), { kg, entities }));
  assert.ok(Math.abs(excl.get('伍万里|长津湖')!.sem - 1 / 3) < 1e-12);
  const docGraph = edges(buildWordGraph(doc, opts({}, { enabled: true, jaccardNeighbours: 'docGraph' }), { kg, entities }));
  assert.ok(docGraph.get('战争|电影')!.sem > 0, 'graph neighbours give non-entity words a similarity');
});

test('smInDenominator false: normaliser sums eq. 3 weights only', () => {
  const g = buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true, smInDenominator: false }), { kg, entities });
  const input = toRankInput(g, null);
  const i = doc.words.indexOf('伍万里');
  let sumBase = 0;
  for (let e = 0; e < g.edgeCount; e++) if (g.source[e] === i || g.target[e] === i) sumBase += g.base[e];
  assert.equal(input.outWeights[i], sumBase);
  const g2 = buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true }), { kg, entities });
  assert.ok(toRankInput(g2, null).outWeights[i] > sumBase);
});

test('alias-aware: an alias maps to its entity and shares its node', () => {
  const t = toTokens([['冰雪长津湖', 'nz'], ['好看', 'a'], ['长津湖', 'nz'], ['吴京', 'nr']]);
  const d: CandidateDoc = buildCandidateDoc(t, [0, 2, 3]);
  const ents = matchEntities(d.words, kg, { match: 'exactOrAlias', mergeAliases: true, ambiguity: 'union', kinds: ['Movie', 'Person', 'Character', 'Genre'] });
  assert.deepEqual(ents.map((x) => x && Array.from(x)), [[0], [0], [2]]);
  const exact = matchEntities(d.words, kg, { match: 'exact', mergeAliases: true, ambiguity: 'union', kinds: ['Movie', 'Person', 'Character', 'Genre'] });
  assert.equal(exact[0], null);
  const merged = mergeEntityNodes(d, ents);
  assert.deepEqual(merged.doc.words, ['冰雪长津湖', '吴京']);
  assert.deepEqual(Array.from(merged.doc.node), [0, 0, 1]);
  const g = edges(buildWordGraph(merged.doc, opts({ kgEdges: true }), { kg, entities: merged.entities }));
  // both surfaces co-occur with 吴京; the self-pair of the merged node is dropped
  assert.deepEqual(g.get('冰雪长津湖|吴京'), { cooc: 2, kg: 1, sem: 0, weight: 3 });
  assert.equal(g.get('冰雪长津湖|冰雪长津湖'), undefined);
});

test('graphology view carries the typed edge attributes', () => {
  const wg = buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true }), { kg, entities });
  const g = toGraphology(wg);
  assert.equal(g.order, 10);
  assert.equal(g.size, wg.edgeCount);
  assert.deepEqual(g.getEdgeAttributes(g.edge('长津湖', '易烊千玺')!), { cooc: 0, kg: 1, sem: 0.2, weight: 1.2 });
  assert.deepEqual(g.getNodeAttributes('长津湖'), { word: '长津湖', entities: [0] });
});

test('ranking the word graph agrees with graphology-metrics pagerank on its graphology view (unbiased, no self-loops)', async () => {
  const { centrality } = await import('graphology-metrics');
  const { rankGraph } = await import('../../src/pipeline/rank.js');
  const wg = buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true }), { kg, entities });
  const ours = rankGraph(toRankInput(wg, null), { damping: 0.85, tol: 1e-12, maxIter: 1000, iterationMode: 'converge' });
  const theirs = centrality.pagerank(toGraphology(wg), { getEdgeWeight: 'weight', tolerance: 1e-12, maxIterations: 1000 });
  const total = ours.scores.reduce((s, x) => s + x, 0);
  wg.words.forEach((w, i) => assert.ok(Math.abs(ours.scores[i] / total - theirs[w]) < 1e-9, `${w}: ${ours.scores[i] / total} vs ${theirs[w]}`));
});

test('the hub-pair Jaccard memo changes nothing (shared across documents)', () => {
  const memo = new JaccardMemo(0);
  for (const semantic of [{ enabled: true }, { enabled: true, jaccardExcludeEndpoints: true }, { enabled: true, smScope: 'allPairs' as const }]) {
    const plain = edges(buildWordGraph(doc, opts({ kgEdges: true }, semantic), { kg, entities }));
    const memoA = edges(buildWordGraph(doc, opts({ kgEdges: true }, semantic), { kg, entities, jaccardMemo: new JaccardMemo(0) }));
    assert.deepEqual(memoA, plain);
  }
  const first = edges(buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true }), { kg, entities, jaccardMemo: memo }));
  const second = edges(buildWordGraph(doc, opts({ kgEdges: true }, { enabled: true }), { kg, entities, jaccardMemo: memo }));
  assert.deepEqual(second, first);
  assert.ok(Math.abs(memo.get(4, 0)! - 0.2) < 1e-12, 'sm(伍万里, 长津湖) memoised under either order');
});
