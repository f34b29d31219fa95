/**
 * Issue 26 item 2: the work of one document's graph is bounded. Counted, never timed:
 * - the KG relatedness test of eq. 2 (`relatedEntityNodes`) reads each entity's neighbour list once
 *   instead of testing every pair of entity nodes (quadratic), with the same pairs in the same order;
 * - the default preset's graph on 1M characters without punctuation has edges linear in the text;
 * - the options that make a graph quadratic (`smScope: 'allPairs'`, node-space neighbour sets
 *   `docGraph` / `kgInDoc`, a large window on a long text) are refused over GRAPH_WORK_LIMIT with a
 *   FilmkwError INPUT naming the option, before the work (the library entry point; tag, serve and the
 *   queue worker are tested through their own entry points).
 * The same checks on 1M and 4M characters are in test/integration/pipeline/graph-work-long.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FilmkwError } from '../../src/errors.js';
import { loadKg } from '../../src/kg/load.js';
import type { KgView } from '../../src/kg/model.js';
import { syntheticKgStore } from '../../src/kg/synthetic.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { GRAPH_WORK_LIMIT, relatedEntityNodes } from '../../src/pipeline/graph.js';
import { unpunctuatedText } from './long-texts.js';
import { assertEdgesLinear } from './work-cases.js';

/** A KG view that counts the neighbour lists read. */
function counting(kg: KgView): { kg: KgView; reads: () => number } {
  let reads = 0;
  const view = Object.create(kg) as KgView;
  view.neighbours = (i: number) => {
    reads++;
    return kg.neighbours(i);
  };
  return { kg: view, reads: () => reads };
}

/** Every pair tested (the definition of eq. 2's relatedness). */
function reference(kg: KgView, entities: readonly (Int32Array | null)[], nodes: readonly number[], count: boolean): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let x = 0; x < nodes.length; x++) {
    for (let y = x + 1; y < nodes.length; y++) {
      let r = 0;
      for (const a of entities[nodes[x]]!) {
        for (const b of entities[nodes[y]]!) {
          if (a !== b && kg.neighbours(a).includes(b)) r += count ? Math.max(1, kg.relationCount(a, b)) : 1;
        }
      }
      if (r > 0) out.push([nodes[x], nodes[y], count ? r : 1]);
    }
  }
  return out;
}

test('eq. 2 relatedness: the same pairs as testing every pair, whichever way it is found (property, synthetic KGs)', () => {
  const kg = syntheticKgStore({ entities: 400, relations: 3000, seed: 3 });
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.integer({ min: 0, max: 399 }), { minLength: 1, maxLength: 3 }), { minLength: 0, maxLength: 300 }),
      fc.boolean(),
      (sets, count) => {
        const entities = sets.map((s) => Int32Array.from(new Set(s)).sort());
        const nodes = entities.map((_, i) => i);
        const got = relatedEntityNodes(kg, entities, nodes, count);
        const want = reference(kg, entities, nodes, count);
        assert.deepEqual(got, want.map(([i, j, r]) => [i, j, count ? r : 1]));
      },
    ),
    { numRuns: 60, seed: 26 },
  );
});

test('eq. 2 relatedness reads each neighbour list a bounded number of times (was one read per pair of entity nodes)', () => {
  const store = syntheticKgStore({ entities: 20_000, relations: 60_000, seed: 5 });
  for (const n of [2000, 8000]) {
    const { kg, reads } = counting(store);
    const entities = Array.from({ length: n }, (_, i) => Int32Array.of(i * 2));
    relatedEntityNodes(kg, entities, entities.map((_, i) => i), false);
    // the count of the cost estimate (n) + the scan (n) + one per related pair found (kgRelation's own read)
    assert.ok(reads() <= 2 * n + 10 * n, `${n} entity nodes: ${reads()} neighbour lists read (every pair: ${(n * (n - 1)) / 2})`);
  }
});

test('the default preset on 50k and 200k characters without punctuation: graph edges linear in the text (1M: test/integration/pipeline/graph-work-long)', async () => {
  await assertEdgesLinear([50_000, 200_000]);
});

test('quadratic graph options over the bound are refused with FilmkwError INPUT naming the option, before the work', async () => {
  const kg = await loadKg({});
  // 80k characters: both option sets estimate several times the bound (the refusal is checked before the work)
  const text = unpunctuatedText(80_000, 12);
  for (const overrides of [
    { 'semantic.smScope': 'allPairs', 'semantic.jaccardNeighbours': 'docGraph' },
    { 'semantic.jaccardNeighbours': 'docGraph', 'graph.window': 100 },
  ]) {
    const ex = createExtractor({ preset: 'textrank+w+g+r', kg, overrides });
    assert.throws(
      () => ex.extract(text),
      (err: unknown) => err instanceof FilmkwError && err.code === 'INPUT' && /too large for (semantic\.smScope|graph\.window)/u.test(err.message) && err.message.includes(GRAPH_WORK_LIMIT.toLocaleString('en-US')),
      JSON.stringify(overrides),
    );
    // a short text with the same options runs
    assert.ok(ex.extract('以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。吴京饰演的连长伍千里是他的哥哥。').length > 0);
  }
  // graph.window 100 alone on 4M characters: test/integration/pipeline/graph-work-long
});
