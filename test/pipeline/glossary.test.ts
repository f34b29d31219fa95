/**
 * The glossary (src/pipeline/glossary.ts): every re-ranker feature has a plain sentence and a reading
 * of its values, the README's table is the module's, and the reading sentence of `--explain` (`why`)
 * names the largest contributions up and down (golden on hand-made explanations; on the real model,
 * the largest readable contribution of every keyword of the samples).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FEATURE_GLOSSARY, TERM_GLOSSARY, explainSentence, glossaryMarkdown, ordinal } from '../../src/pipeline/glossary.js';
import { RERANK_FEATURES } from '../../src/pipeline/rerank.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { loadKg } from '../../src/kg/load.js';
import { keywordsJson } from '../../src/batch/format.js';

test('every re-ranker feature and explain term has one plain sentence; every reading is a clause or null', () => {
  assert.deepEqual(Object.keys(FEATURE_GLOSSARY), [...RERANK_FEATURES], 'in the order of RERANK_FEATURES');
  const sentences = [...Object.values(FEATURE_GLOSSARY), ...Object.values(TERM_GLOSSARY)].map((g) => g.means);
  for (const s of sentences) {
    assert.match(s, /^[A-Z"'].*[.)]$/u, s);
    assert.doesNotMatch(s, /[|\n]/u, `${s}: breaks the README table`);
    assert.ok(s.length <= 240, `${s}: one sentence`);
  }
  for (const [name, g] of Object.entries(FEATURE_GLOSSARY)) {
    for (const kind of [undefined, 'Movie', 'Person', 'Character', 'Genre']) {
      for (const v of [0, 0.02, 0.25, 1 / 3, 0.5, 1, 1.2, 2.5, -0.3]) {
        const clause = g.reads(v, kind);
        if (clause === null) continue;
        assert.equal(typeof clause, 'string');
        assert.doesNotMatch(clause, /NaN|undefined|Infinity|^\s|\s$/u, `${name}(${v}, ${kind}): ${clause}`);
      }
    }
  }
});

test('ordinal: words to tenth, then 11th, 21st, 22nd, 23rd, 111th', () => {
  assert.deepEqual([1, 2, 3, 10, 11, 12, 13, 21, 22, 23, 101, 111].map(ordinal), ['first', 'second', 'third', 'tenth', '11th', '12th', '13th', '21st', '22nd', '23rd', '101st', '111th']);
});

test('the README glossary table is glossaryMarkdown() (regenerate: the table below, between the markers)', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const m = /<!-- glossary:start[^>]*-->\n([\s\S]*?)\n<!-- glossary:end -->/u.exec(readme);
  assert.ok(m, 'README has the glossary markers');
  assert.equal(m[1], glossaryMarkdown(), `README glossary differs from src/pipeline/glossary.ts; expected:\n${glossaryMarkdown()}`);
});

const rerank = (features: [string, number, number][]) => ({ cooc: 1, kg: 0, sem: 0, neighbours: [], rerank: { logit: 1, bias: -1, features: features.map(([feature, value, contribution]) => ({ feature, value, contribution })) } });

test('explainSentence under the re-ranker: up to three readings up (one per group of like features), held back only when it weighs half the largest', () => {
  const film = {
    word: '长津湖',
    kind: 'Movie',
    explain: rerank([
      ['titleMarks', 1, 1.2],
      ['kindOrderInv', 1, 0.9],
      ['kindFirst', 1, 0.8], // same group as kindOrderInv: not read again
      ['firstPos', 0.01, 0.5],
      ['spread', 0.36, 0.4],
      ['logCount', Math.log(4), -0.7],
      ['docLength', 0.6, -0.2], // under half the largest: not named
    ]),
  };
  assert.equal(explainSentence(film, 1), 'ranked first: always written in 《》, the first film the text names and named at the very start; held back: mentioned 3 times');
  const person = { word: '吴京', kind: 'Person', explain: rerank([['kindOrderInv', 0.5, 0.6], ['cast', 0, 0.3], ['idf', 1.21, 0.1], ['person', 1, 0.05]]) };
  assert.equal(explainSentence(person, 4), 'ranked fourth: the second person the text names, never in a cast list and a rare word in general Chinese (IDF 12.1)');
  assert.equal(explainSentence({ word: 'x', explain: rerank([['spread', 0, -0.5]]) }, 12), 'ranked 12th: no feature lifted it; held back: mentioned in one place only');
  assert.equal(explainSentence({ word: 'x' }, 2), 'ranked second');
});

test('explainSentence under a graph preset: the KG links, the co-occurring words, IDF, a phrase’s parts', () => {
  const neighbours = [
    { word: '伍万里', cooc: 1, kg: 16, sem: 0.05 },
    { word: '吴京', cooc: 0, kg: 16, sem: 0.04 },
    { word: '战场', cooc: 2, kg: 0, sem: 0 },
  ];
  assert.equal(explainSentence({ word: '长津湖', explain: { cooc: 3, kg: 32, sem: 0.09, rank: 5, idf: 12.1, neighbours } }, 1), 'ranked first by the word graph: linked in the KG to 伍万里 and 吴京, written near 伍万里 and 战场 and a rare word in general Chinese (IDF 12.1)');
  const phrase = { words: [{ word: '传统', score: 1 }, { word: '文化', score: 0.5 }], occurrences: 2 };
  assert.equal(explainSentence({ word: '传统文化', explain: { cooc: 2, kg: 0, sem: 0, neighbours: [], phrase } }, 3), 'ranked third by the word graph: the phrase 传统 + 文化, twice in the text and written near other words of the text');
});

test('tag --explain `why` with the committed model: every keyword of the samples reads its largest readable contribution', async () => {
  const kg = await loadKg({});
  const extractor = createExtractor({ kg });
  const texts = readFileSync(new URL('../../datasets/samples/reviews.jsonl', import.meta.url), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { text: string }).text);
  let n = 0;
  for (const t of texts) {
    const rows = JSON.parse(keywordsJson(extractor.extract(t, { explain: true }), true)) as { word: string; kind?: string; explain: { why: string; rerank: { features: { feature: string; value: number; contribution: number }[] } } }[];
    rows.forEach((k, i) => {
      assert.ok(k.explain.why.startsWith(`ranked ${ordinal(i + 1)}: `), k.explain.why);
      const first = k.explain.rerank.features.filter((f) => f.contribution > 0).sort((a, b) => b.contribution - a.contribution).map((f) => FEATURE_GLOSSARY[f.feature as keyof typeof FEATURE_GLOSSARY].reads(f.value, k.kind)).find((c) => c !== null);
      assert.ok(first && k.explain.why.includes(first), `${k.word}: ${k.explain.why} names ${first}`);
      n++;
    });
  }
  assert.ok(n >= 40, `${n} keywords read`);
});
