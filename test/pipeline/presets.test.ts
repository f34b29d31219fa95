import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FilmkwError } from '../../src/errors.js';
import { DEFAULT_OPTIONS, DEFAULT_PRESET, describeOptions, optionKeys, parseOverride, resolveOptions } from '../../src/pipeline/options.js';
import { PRESETS, findPreset, listPresets } from '../../src/pipeline/presets.js';

const usage = (re: RegExp) => (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && re.test(e.message);

test('presets: the paper systems and parity presets, with their switches', () => {
  assert.deepEqual(listPresets(), ['textrank', 'textrank+w', 'textrank+w+g', 'textrank+w+g+r', 'positionrank', 'positionrank+mkg', 'jieba-textrank', 'cppjieba-textrank', 'filmkw', 'filmkw-rerank']);
  const table = listPresets().map((p) => {
    const o = resolveOptions(p);
    return [p, o.lexicon.useDomainLexicon, o.graph.kgEdges, o.semantic.enabled, o.rank.algorithm];
  });
  assert.deepEqual(table, [
    ['textrank', false, false, false, 'textrank'],
    ['textrank+w', true, false, false, 'textrank'],
    ['textrank+w+g', true, true, false, 'textrank'],
    ['textrank+w+g+r', true, true, true, 'textrank'],
    ['positionrank', false, false, false, 'positionrank'],
    ['positionrank+mkg', true, true, true, 'positionrank'],
    ['jieba-textrank', false, false, false, 'textrank'],
    ['cppjieba-textrank', false, false, false, 'textrank'],
    ['filmkw', true, true, true, 'textrank'],
    // issue 24: no semantic similarity under the re-ranker (nothing measurable lost, faster)
    ['filmkw-rerank', true, true, false, 'textrank'],
  ]);
  // filmkw = the paper's full model + the IDF prior + no POS filter (the previous default)
  const best = resolveOptions('filmkw');
  const paper = resolveOptions('textrank+w+g+r');
  assert.deepEqual([best.candidates.posFilter, best.prior.idf, paper.candidates.posFilter, paper.prior.idf], ['none', 'multiply', 'containsNV', 'off']);
  assert.deepEqual({ ...best.graph }, { ...paper.graph });
  // the default (CLI and library) and the alias best: filmkw-rerank = filmkw + compounds + the re-ranker
  assert.equal(DEFAULT_PRESET, 'filmkw-rerank');
  assert.equal(findPreset('best')?.name, 'filmkw-rerank');
  assert.equal(findPreset('filmkw')?.name, 'filmkw');
  assert.deepEqual([resolveOptions().rerank.enabled, resolveOptions('filmkw').rerank.enabled], [true, false]);
  assert.equal(findPreset('TextRank+MKG')?.name, 'textrank+w+g+r');
  assert.equal(resolveOptions('textrank+mkg').preset, 'textrank+w+g+r');
  assert.equal(resolveOptions().preset, DEFAULT_PRESET);
  const jieba = resolveOptions('jieba-textrank');
  assert.deepEqual([jieba.graph.windowOver, jieba.graph.selfLoops, jieba.rank.iterationMode, jieba.output.scoreScale, jieba.output.isolated], ['allTokens', 'keepDouble', 'fixed10GaussSeidel', 'minMax10', 'drop']);
  assert.deepEqual(jieba.candidates.posFilter, ['ns', 'n', 'vn', 'v']);
  const cpp = resolveOptions('cppjieba-textrank');
  assert.deepEqual([cpp.graph.windowOver, cpp.candidates.posFilter, cpp.output.isolated], ['candidates', 'none', 'zero']);
  for (const p of PRESETS) assert.equal(p.needsKg, resolveOptions(p.name).lexicon.useDomainLexicon || resolveOptions(p.name).graph.kgEdges || resolveOptions(p.name).semantic.enabled);
});

test('defaults: spec §1.4 recommendations, deeply frozen, not changed by resolving', () => {
  assert.equal(DEFAULT_OPTIONS.graph.window, 5);
  assert.equal(DEFAULT_OPTIONS.graph.windowOver, 'candidates');
  assert.equal(DEFAULT_OPTIONS.graph.selfLoops, 'drop');
  assert.equal(DEFAULT_OPTIONS.semantic.smCombine, 'add');
  assert.equal(DEFAULT_OPTIONS.rank.tol, 1e-4);
  // measured on film-dev (options.ts header): β = 16; the paper's POS rule; no IDF prior
  assert.equal(DEFAULT_OPTIONS.graph.kgEdgeWeight, 16);
  assert.equal(DEFAULT_OPTIONS.candidates.posFilter, 'containsNV');
  assert.equal(DEFAULT_OPTIONS.prior.idf, 'off');
  assert.ok(Object.isFrozen(DEFAULT_OPTIONS) && Object.isFrozen(DEFAULT_OPTIONS.graph) && Object.isFrozen(DEFAULT_OPTIONS.kgMatch.kinds));
  const o = resolveOptions('textrank', { 'graph.window': 3 });
  assert.equal(o.graph.window, 3);
  assert.equal(DEFAULT_OPTIONS.graph.window, 5);
  assert.ok(Object.isFrozen(o.graph));
  assert.throws(() => {
    (o.graph as { window: number }).window = 9;
  }, TypeError);
});

test('override forms: group.key, unique bare key, group object; JSON-serialisable result', () => {
  const a = resolveOptions('textrank', { 'graph.window': 3, damping: 0.9, semantic: { enabled: true, smCombine: 'mul' }, kgEdgeWeight: 2 });
  assert.deepEqual([a.graph.window, a.rank.damping, a.semantic.enabled, a.semantic.smCombine, a.graph.kgEdgeWeight], [3, 0.9, true, 'mul', 2]);
  assert.deepEqual(JSON.parse(JSON.stringify(a)).graph, a.graph);
  assert.deepEqual(resolveOptions('textrank', { 'candidates.posFilter': ['n', 'nr'] }).candidates.posFilter, ['n', 'nr']);
});

test('errors: unknown preset, unknown key, bad value — USAGE listing the valid ones', () => {
  assert.throws(() => resolveOptions('textrnak'), usage(/unknown preset "textrnak"; valid presets: textrank, textrank\+w, .*cppjieba-textrank/));
  assert.throws(() => resolveOptions('textrank', { windw: 3 }), usage(/unknown option "windw"; valid options: .*graph\.window/));
  assert.throws(() => resolveOptions('textrank', { 'graph.windw': 3 }), usage(/unknown option "graph\.windw"/));
  assert.throws(() => resolveOptions('textrank', { graph: { windw: 3 } }), usage(/unknown option "graph\.windw"; valid options in graph: window, windowOver/));
  assert.throws(() => resolveOptions('textrank', { graph: 3 }), usage(/option group and takes an object/));
  assert.throws(() => resolveOptions('textrank', { 'graph.window': 1 }), usage(/bad value for graph\.window: 1 \(expected an integer ≥ 2 and ≤ 100\)/));
  assert.throws(() => resolveOptions('textrank', { 'graph.window': '3' }), usage(/graph\.window: "3"/));
  assert.throws(() => resolveOptions('textrank', { windowOver: 'tokens' }), usage(/expected 'candidates' \| 'allTokens'/));
  assert.throws(() => resolveOptions('textrank', { damping: 1.5 }), usage(/≤ 1/));
  assert.throws(() => resolveOptions('textrank', { kgEdgeWeight: 0 }), usage(/'binary' \| 'relationCount' \| a number > 0 and ≤ 1000000/));
  assert.throws(() => resolveOptions('textrank', { 'kgMatch.kinds': ['Film'] }), usage(/a list of Movie, Person, Character, Genre/));
  assert.throws(() => resolveOptions('textrank', { 'a.b.c': 1 }), usage(/unknown option "a\.b\.c"/));
  assert.throws(() => resolveOptions('textrank', [] as unknown as Record<string, unknown>), usage(/must be an object/));
});

test('parseOverride reads JSON values, else strings; describeOptions lists every key with its default', () => {
  assert.deepEqual(parseOverride('graph.window=3'), ['graph.window', 3]);
  assert.deepEqual(parseOverride('semantic.enabled=true'), ['semantic.enabled', true]);
  assert.deepEqual(parseOverride('rank.algorithm=positionrank'), ['rank.algorithm', 'positionrank']);
  assert.deepEqual(parseOverride('candidates.posFilter=["n","v"]'), ['candidates.posFilter', ['n', 'v']]);
  assert.throws(() => parseOverride('window'), usage(/expected key=value/));
  const lines = describeOptions();
  assert.equal(lines.length, optionKeys().length);
  assert.ok(lines.includes("graph.window: an integer ≥ 2 and ≤ 100 (default 5)"));
  assert.ok(lines.some((l) => l.startsWith("semantic.smCombine: 'add' | 'mul' | 'mulOnePlus' | 'linear' (default \"add\")")));
});
