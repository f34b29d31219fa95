/**
 * The learned re-ranker (src/pipeline/rerank.ts, rerank-model.ts) and its compound candidates (phrases.ts
 * findCompounds). Its training command (scripts/train-rerank.mjs): test/integration/eval/train-rerank-cli.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCompounds, foldNameDots } from '../../src/pipeline/phrases.js';
import { inCastContext, rerankItems, ScratchBuffers, RERANK_CORE_FEATURE_COUNT, RERANK_FEATURE_COUNT, RERANK_FEATURES } from '../../src/pipeline/rerank.js';
import { loadBundledIdf, type IdfTable } from '../../src/pipeline/idf.js';
import { MAX_TREE_DEPTH, loadBundledRerankModel, parseRerankModel, rerankBias, rerankContributions, rerankLogit, rerankLogits, zeroRerankModel, type RerankModel, type RerankTree } from '../../src/pipeline/rerank-model.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { loadKg } from '../../src/kg/load.js';
import type { KgView } from '../../src/kg/model.js';
import { FilmkwError } from '../../src/errors.js';
import { DEFAULT_TREE_PARAMETERS, RERANK_RECIPE, presetPool } from '../../src/eval/rerank-train.js';
import { fitTrees, lambdaWeight } from '../../src/eval/rerank-fit.js';
import { tokenDoc } from '../fixtures/pipeline/token-doc.js';

const noStop = (w: string) => w === '的' || w === '了';

test('findCompounds: one-character parts by POS, name dots and Latin spaces join, 3 tokens, stop words and function tags break', () => {
  // 唢呐/n 匠/n 的 西洋/ns 乐/n ， 钱宁/nr • 塔图姆/nr 和/c Hannibal/eng ␠ Lecter/eng 传统/n 文化/n 遗产/n
  const pairs: [string, string][] = [
    ['唢呐', 'n'], ['匠', 'n'], ['的', 'uj'], ['西洋', 'ns'], ['乐', 'n'], ['，', 'x'], ['钱宁', 'nr'], ['•', 'x'], ['塔图姆', 'nr'],
    ['和', 'c'], ['Hannibal', 'eng'], [' ', 'x'], ['Lecter', 'eng'], ['。', 'x'], ['传统', 'n'], ['文化', 'n'], ['遗产', 'n'],
  ];
  // candidates: tokens of ≥ 2 characters that are not stop words or punctuation
  const { tokens, doc } = tokenDoc(pairs, [0, 3, 6, 8, 10, 12, 14, 15, 16]);
  const found = findCompounds(tokens, doc, { maxTokens: 3, minCount: 1 }, noStop);
  const shape = found.map((p) => [p.text, p.oneCharParts, p.joined ?? false]);
  assert.deepEqual(shape, [
    ['唢呐匠', 1, false],
    ['西洋乐', 1, false],
    ['钱宁•塔图姆', 0, true],
    ['Hannibal Lecter', 0, true],
    ['传统文化', 0, false],
    ['传统文化遗产', 0, false],
    ['文化遗产', 0, false],
  ]);
  // members: graph nodes, -1 for a part that is not a graph word (匠)
  assert.deepEqual(Array.from(found[0].members, (m) => (m < 0 ? null : doc.words[m])), ['唢呐', null]);
  // minCount 2: nothing occurs twice; maxTokens 2: no 3-token phrase
  assert.deepEqual(findCompounds(tokens, doc, { maxTokens: 3, minCount: 2 }, noStop), []);
  assert.ok(!findCompounds(tokens, doc, { maxTokens: 2, minCount: 1 }, noStop).some((p) => p.text === '传统文化遗产'));
  // entity words (not joined) are not phrase parts
  const entities = doc.words.map((w) => (w === '传统' ? Int32Array.of(0) : null));
  assert.ok(!findCompounds(tokens, doc, { maxTokens: 3, minCount: 1 }, noStop, entities).some((p) => p.text.includes('传统')));
  assert.equal(foldNameDots('钱宁•塔图姆・x'), '钱宁·塔图姆·x');
});

test('findCompounds: a phrase needs a graph word and a part of two characters; a surface that is a graph word is no phrase', () => {
  const { tokens, doc } = tokenDoc([['焦', 'nr'], ['师傅', 'n'], ['老', 'a'], ['王', 'nr']], [1]);
  assert.deepEqual(findCompounds(tokens, doc, { maxTokens: 3, minCount: 1 }, noStop).map((p) => p.text), ['焦师傅', '焦师傅老', '师傅老', '师傅老王']);
  const onlyShort = tokenDoc([['老', 'a'], ['王', 'nr']], []);
  assert.deepEqual(findCompounds(onlyShort.tokens, onlyShort.doc, { maxTokens: 3, minCount: 1 }, noStop), []);
});

test('inCastContext: 饰 brackets, cast cues and name lists', () => {
  const t = '影片由吴京主演。伍万里（易烊千玺 饰）参军，张三、李四同行，王五说话。';
  const at = (w: string) => [t.indexOf(w), t.indexOf(w) + w.length] as const;
  assert.equal(inCastContext(t, ...at('吴京')), true); // 主演 right after the name
  assert.equal(inCastContext(t, ...at('易烊千玺')), true); // （ before
  assert.equal(inCastContext(t, ...at('伍万里')), true); // （ after
  assert.equal(inCastContext(t, ...at('张三')), true); // 、 after
  assert.equal(inCastContext(t, ...at('王五')), false);
});

function toyModel(): ReturnType<typeof parseRerankModel> {
  const p = RERANK_FEATURES.length;
  // one stump on feature 0 (base): x < 0.5 → −1, else +2; root value 0.25
  return parseRerankModel(
    { version: 1, features: [...RERANK_FEATURES], base: -0.5, trees: [{ feature: [0, -1, -1], threshold: [0.5, 0, 0], left: [1, -1, -1], right: [2, -1, -1], value: [0.25, -1, 2] }], training: { p } },
    'toy.json',
  );
}

test('rerank model: logit, contributions that add up, and strict parsing with the file and field named', () => {
  const m = toyModel();
  const x = new Float64Array(RERANK_FEATURES.length);
  x[0] = 0.7;
  assert.equal(rerankLogit(m, x), 1.5);
  assert.equal(rerankBias(m), -0.25);
  const c = rerankContributions(m, x);
  assert.deepEqual(c[0], { feature: 'base', value: 0.7, contribution: 1.75 });
  assert.equal(rerankBias(m) + c.reduce((a, f) => a + f.contribution, 0), rerankLogit(m, x));
  x[0] = 0.2;
  assert.equal(rerankLogit(m, x), -1.5);
  const bad = (raw: unknown, pattern: RegExp) =>
    assert.throws(() => parseRerankModel(raw, 'm.json'), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && pattern.test(e.message));
  bad([], /^m\.json: re-rank model: not a JSON object/);
  bad({ version: 2 }, /field "version" must be 1/);
  bad({ version: 1, features: ['base'], base: 0, trees: [] }, /field "features" must list/);
  bad({ version: 1, features: [...RERANK_FEATURES], base: 'x', trees: [] }, /field "base"/);
  bad({ version: 1, features: [...RERANK_FEATURES], base: 0, trees: [{ feature: [0], threshold: [1], left: [0], right: [0], value: [0] }] }, /trees\[0\] node 0: children out of range/);
  bad({ version: 1, features: [...RERANK_FEATURES], base: 0, trees: [{ feature: [0, -1], threshold: [1], left: [1, -1], right: [1, -1], value: [0, 0] }] }, /trees\[0\]: its arrays/);
});

/** A tree of `depth` levels of splits: a chain of inner nodes on feature 0, each with a leaf on its left. */
function chainTree(depth: number): { feature: number[]; threshold: number[]; left: number[]; right: number[]; value: number[] } {
  const t = { feature: [] as number[], threshold: [] as number[], left: [] as number[], right: [] as number[], value: [] as number[] };
  for (let l = 0; l < depth; l++) {
    t.feature.push(0, -1);
    t.threshold.push(1 - (l + 1) / (depth + 1), 0);
    t.left.push(2 * l + 1, -1);
    t.right.push(2 * l + 2, -1);
    t.value.push(0, -l);
  }
  t.feature.push(-1);
  t.threshold.push(0);
  t.left.push(-1);
  t.right.push(-1);
  t.value.push(depth);
  return t;
}

test(`rerank model: trees deeper than MAX_TREE_DEPTH (${MAX_TREE_DEPTH}) are refused naming the file and the tree; fitTrees refuses such a depth`, () => {
  const model = (trees: unknown[]) => ({ version: 1, features: RERANK_FEATURES.slice(0, RERANK_CORE_FEATURE_COUNT), base: 0, trees });
  // the deepest allowed tree is read and scored (the packed layout holds 2^12 leaves per tree)
  const deepest = parseRerankModel(model([chainTree(1), chainTree(MAX_TREE_DEPTH)]), 'deep.json');
  const x = new Float64Array(RERANK_FEATURES.length);
  x[0] = 0.999;
  assert.equal(rerankLogit(deepest, x), 1 + MAX_TREE_DEPTH, 'x above every threshold: the last leaf of each chain');
  x[0] = 0;
  assert.equal(rerankLogit(deepest, x), 0);
  assert.throws(
    () => parseRerankModel(model([chainTree(2), chainTree(MAX_TREE_DEPTH + 1)]), 'deep.json'),
    (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && e.message === `deep.json: re-rank model: trees[1] is ${MAX_TREE_DEPTH + 1} levels deep; at most ${MAX_TREE_DEPTH} are allowed (the scorer stores every tree as a complete binary tree)`,
  );
  assert.throws(() => parseRerankModel(model([chainTree(30)]), 'deep.json'), /trees\[0\] is 30 levels deep/);
  // children must be node indices
  const half = chainTree(2);
  half.right[0] = 1.5;
  assert.throws(() => parseRerankModel(model([half]), 'deep.json'), /trees\[0\] node 0: children out of range/);
  const params = { trees: 1, depth: MAX_TREE_DEPTH + 1, rate: 0.1, minLeaf: 1, bins: 4, l2: 1, objective: 'pointwise' as const };
  assert.throws(() => fitTrees([new Float64Array(RERANK_FEATURES.length)], [1], params), /fitTrees: depth must be an integer from 0 to 12, got 13/);
});

test('fitTrees: deterministic, and learns a threshold rule and an interaction', () => {
  const p = RERANK_FEATURES.length;
  const rows: Float64Array[] = [];
  const labels: number[] = [];
  for (let i = 0; i < 400; i++) {
    const x = new Float64Array(p);
    x[0] = (i % 20) / 20; // base
    x[1] = i % 2; // baseRank used as a flag
    rows.push(x);
    // positive when base ≥ 0.5 and the flag is set
    labels.push(x[0] >= 0.5 && x[1] === 1 ? 1 : 0);
  }
  const params = { trees: 30, depth: 2, rate: 0.3, minLeaf: 5, bins: 16, l2: 1, objective: 'pointwise' as const };
  const a = fitTrees(rows, labels, params);
  const b = fitTrees(rows, labels, params);
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  // no split on an optional feature: the model lists the core features only
  assert.deepEqual(a.features, RERANK_FEATURES.slice(0, RERANK_CORE_FEATURE_COUNT));
  const model = parseRerankModel(JSON.parse(JSON.stringify(a)), 'fit');
  for (let i = 0; i < rows.length; i++) assert.equal(rerankLogit(model, rows[i]) > 0, labels[i] === 1, `row ${i}`);
});

test('the bundled model matches this version of the features and records its training set', () => {
  const m = loadBundledRerankModel();
  // the core features and the recipe's optional families (document context, corpus statistics), in
  // order; never positionRank (a second power iteration the committed recipe does not train on)
  const last = RERANK_FEATURES.indexOf(RERANK_RECIPE.optional[RERANK_RECIPE.optional.length - 1] as (typeof RERANK_FEATURES)[number]);
  assert.ok(last >= RERANK_CORE_FEATURE_COUNT);
  assert.deepEqual(m.features, RERANK_FEATURES.slice(0, last + 1));
  assert.ok(!m.features.includes('positionRank'));
  assert.ok(m.trees.length > 0);
  // the recipe's training files (film-dev never among them), context fields and dropout
  const files = m.training?.files as { file: string; sha256: string; bytes: number }[];
  assert.deepEqual(files.map((f) => f.file), [...RERANK_RECIPE.gold]);
  assert.ok(!files.some((f) => /film-dev/u.test(f.file)));
  for (const f of files) assert.match(f.sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(m.training?.dropout, { ...RERANK_RECIPE.dropout });
  assert.equal((m.training?.context as { filmField?: string })?.filmField, RERANK_RECIPE.filmField);
  assert.match(String((m.training?.corpusStats as { sha256?: string })?.sha256), /^[0-9a-f]{64}$/);
  // trained for what the pipeline runs: the preset's pool, the committed parameters
  assert.equal(m.training?.pool, presetPool());
  assert.deepEqual(m.training?.parameters, { ...DEFAULT_TREE_PARAMETERS });
  assert.equal(m.trees.length, DEFAULT_TREE_PARAMETERS.trees);
});

const annotated = join(fileURLToPath(new URL('../../', import.meta.url)), '..', 'shared', 'data', 'annotated');
const committedTable = join(fileURLToPath(new URL('../../', import.meta.url)), 'models', 'corpus-stats.tsv');
test('the bundled model records the sha256 and size of its training files and of the corpus table (npm run train:rerank -- --check retrains and compares the bytes)', { skip: !existsSync(join(annotated, 'film-train.jsonl')) && 'needs ../shared/data/annotated' }, () => {
  const m = loadBundledRerankModel();
  for (const f of m.training?.files as { file: string; sha256: string; bytes: number }[]) {
    const bytes = readFileSync(join(annotated, f.file));
    assert.equal(f.sha256, createHash('sha256').update(bytes).digest('hex'), f.file);
    assert.equal(f.bytes, bytes.length, f.file);
  }
  const table = m.training?.corpusStats as { file: string; sha256: string };
  assert.equal(table.file, 'corpus-stats.tsv');
  assert.equal(table.sha256, createHash('sha256').update(readFileSync(committedTable)).digest('hex'));
});

test('filmkw-rerank end to end (demo KG): probabilities in order, explanation adds up, same alone and in a batch', async () => {
  const kg = await loadKg({});
  const ex = createExtractor({ preset: 'filmkw-rerank', kg });
  const texts = [
    '《长津湖》由吴京、易烊千玺主演，讲述抗美援朝战争中伍万里（易烊千玺 饰）的成长。伍万里在战争中成长。',
    '唢呐匠焦三爷收徒天鸣，传承唢呐技艺。唢呐匠的坚守令人感动。',
  ];
  const alone = texts.map((t) => createExtractor({ preset: 'filmkw-rerank', kg }).extract(t, { explain: true }));
  const batch = texts.map((t) => ex.extract(t, { explain: true }));
  assert.deepEqual(batch, alone);
  for (const kws of batch) {
    assert.ok(kws.length > 0 && kws.length <= 5);
    for (let i = 1; i < kws.length; i++) assert.ok(kws[i - 1].score >= kws[i].score);
    for (const k of kws) {
      assert.ok(k.score > 0 && k.score < 1);
      const r = k.explain!.rerank!;
      assert.ok(Math.abs(1 / (1 + Math.exp(-r.logit)) - k.score) < 1e-12);
      assert.ok(Math.abs(r.bias + r.features.reduce((a, f) => a + f.contribution, 0) - r.logit) < 1e-9);
    }
  }
  // a one-character part forms a compound candidate (唢呐+匠; 匠 alone is no candidate)
  const all = createExtractor({ preset: 'filmkw-rerank', kg, overrides: { 'phrases.dedup': 'off' } }).extract(texts[1], { topK: 100, explain: true });
  const compound = all.find((k) => k.word === '唢呐匠');
  assert.ok(compound, JSON.stringify(all.map((k) => k.word)));
  assert.equal(compound.explain!.rerank!.features.find((f) => f.feature === 'phraseOneChar')!.value, 1);
  // no overlapping variants between a phrase and a word
  for (const kws of batch) {
    for (const a of kws) for (const b of kws) if (a !== b && (a.explain!.phrase || b.explain!.phrase)) assert.ok(!a.word.includes(b.word), `${a.word} / ${b.word}`);
  }
});

test('rerank.enabled without the phrase stage (filmkw-rerank with phrases off, textrank with rerank on): words only, ordered by the model', async () => {
  const kg = await loadKg({});
  const text = '唢呐匠焦三爷收徒天鸣，传承唢呐技艺。唢呐匠的坚守令人感动。《长津湖》由吴京、易烊千玺主演。';
  const withPhrases = createExtractor({ preset: 'filmkw-rerank', kg }).extract(text, { topK: 100, explain: true });
  assert.ok(withPhrases.some((k) => k.explain!.phrase), 'the phrase stage adds phrases (唢呐匠)');
  for (const [preset, overrides] of [['filmkw-rerank', { 'phrases.enabled': false }], ['textrank', { 'rerank.enabled': true }]] as const) {
    const kws = createExtractor({ preset, kg, overrides }).extract(text, { topK: 100, explain: true });
    assert.ok(kws.length > 3, preset);
    assert.ok(kws.every((k) => k.explain!.phrase === undefined && !k.explain!.rerank!.features.some((f) => /phrase/iu.test(f.feature) && f.value !== 0)), `${preset}: words only`);
    for (let i = 1; i < kws.length; i++) assert.ok(kws[i - 1].explain!.rerank!.logit >= kws[i].explain!.rerank!.logit, `${preset}: ordered by the model's logit`);
    for (const k of kws) assert.ok(Math.abs(1 / (1 + Math.exp(-k.explain!.rerank!.logit)) - k.score) < 1e-12);
    // every keyword is one of the preset's own words without the re-ranker
    const plain = new Set(createExtractor({ preset, kg, overrides: { ...overrides, 'rerank.enabled': false } }).extract(text, { topK: 100 }).map((k) => k.word));
    assert.deepEqual(kws.filter((k) => !plain.has(k.word)), [], preset);
  }
});

test('findCompounds: a word plus a sequel number is a phrase (阿凡达2), a number with a unit or classifier is not (阿凡达 3年)', () => {
  const { tokens, doc } = tokenDoc(
    [['阿凡达', 'nz'], ['2', 'm'], ['，', 'x'], ['复联', 'j'], ['4', 'm'], ['的', 'uj'], ['特效', 'n'], ['3', 'm'], ['年', 'q'], ['电影', 'n'], ['12', 'm'], ['34', 'm']],
    [0, 3, 6, 9],
  );
  const found = findCompounds(tokens, doc, { maxTokens: 3, minCount: 1 }, noStop).filter((p) => p.sequel);
  assert.deepEqual(found.map((p) => p.text), ['阿凡达2', '复联4']);
  assert.deepEqual(Array.from(found[0].members), [0, -1]);
});

test('rerank.pool: only the pool best by the graph score are scored and can be output', async () => {
  const kg = await loadKg({});
  const text = '《长津湖》由吴京、易烊千玺主演，讲述抗美援朝战争中伍万里（易烊千玺 饰）的成长。伍万里在战争中成长。';
  const one = createExtractor({ preset: 'filmkw-rerank', kg, overrides: { 'rerank.pool': 1 } }).extract(text, { topK: 5 });
  assert.equal(one.length, 1);
  // the graph's best candidate (filmkw's first keyword) is that one
  const graphBest = createExtractor({ preset: 'filmkw-rerank', kg, overrides: { 'rerank.pool': 1_000 } }).extract(text, { topK: 50, explain: true })
    .find((k) => k.explain!.rerank!.features.find((f) => f.feature === 'baseRank')!.value === 1);
  assert.equal(one[0].word, graphBest?.word);
  assert.throws(() => createExtractor({ preset: 'filmkw-rerank', kg, overrides: { 'rerank.pool': 0 } }), /bad value for rerank\.pool: 0 \(expected an integer ≥ 1 and ≤ 1000000\)/);
});

/** A small ranked document for rerankItems (no KG): 传统文化是传统的根。梦溪和沈梦溪，沈梦溪说。 */
function overlapDocument(values: number[], phraseValue: number) {
  const pairs: [string, string][] = [
    ['传统', 'n'], ['文化', 'n'], ['是', 'v'], ['传统', 'n'], ['的', 'uj'], ['根', 'n'], ['。', 'x'],
    ['梦溪', 'nr'], ['和', 'c'], ['沈梦溪', 'nr'], ['，', 'x'], ['沈梦溪', 'nr'], ['说', 'v'], ['。', 'x'],
  ];
  const { tokens, doc } = tokenDoc(pairs, [0, 1, 3, 7, 9, 11]);
  const n = doc.words.length; // 传统 文化 梦溪 沈梦溪
  return {
    text: tokens.map((t) => t.word).join(''),
    tokens,
    ...doc,
    rank: Float64Array.from(values),
    values: Float64Array.from(values),
    eligible: new Uint8Array(n).fill(1),
    kgSum: new Float64Array(n),
    semSum: new Float64Array(n),
    entity: new Int32Array(n).fill(-1),
    phrases: [{ text: '传统文化', members: Int32Array.of(0, 1), count: 1, charStart: 0, lastStart: 0, oneCharParts: 0 }],
    phraseValues: Float64Array.of(phraseValue),
  };
}

test('rerankItems: overlapping-variant and relative features (golden), order by graph score with first occurrence on ties', () => {
  const idf = loadBundledIdf();
  const { items, matrix } = rerankItems(overlapDocument([0.5, 0.3, 0.8, 0.4], 0.6), null, idf);
  assert.equal(matrix.length, items.length * RERANK_FEATURE_COUNT);
  const pick = (it: (typeof items)[number], names: string[]) => names.map((f) => Number(it.features[RERANK_FEATURES.indexOf(f as never)].toFixed(4)));
  const names = ['base', 'containerBase', 'containerGap', 'containerShare', 'containedBase', 'containedGap', 'containedShare', 'countRank', 'firstRank', 'digit'];
  // by base: 梦溪 0.8/0.8, 传统文化 0.6/0.8, 传统 0.5/0.8, 沈梦溪 0.4/0.8, 文化 0.3/0.8
  assert.deepEqual(
    items.map((it) => [it.text, it.baseRank, ...pick(it, names)]),
    [
      // contained in 沈梦溪 (base 0.5), which occurs twice to its once
      ['梦溪', 0, 1, 0.5, -0.5, 2, 0, 0, 0, 0.3333, 0.25, 0],
      // contains 传统 (0.625; 1 occurrence to its 2) and 文化; first with 传统 at offset 0
      ['传统文化', 1, 0.75, 0, 0, 0, 0.625, -0.125, 0.5, 0.3333, 1, 0],
      ['传统', 2, 0.625, 0.75, 0.125, 0.5, 0, 0, 0, 1, 1, 0],
      ['沈梦溪', 3, 0.5, 0, 0, 0, 1, 0.5, 2, 1, 0.2, 0],
      ['文化', 4, 0.375, 0.75, 0.375, 1, 0, 0, 0, 0.3333, 0.3333, 0],
    ],
  );
  // ties in the graph score go to the earlier first occurrence, then to words before phrases
  const tied = rerankItems(overlapDocument([0.5, 0.5, 0.5, 0.5], 0.5), null, idf);
  assert.deepEqual(tied.items.map((it) => it.text), ['传统', '传统文化', '文化', '梦溪', '沈梦溪']);
  // a pool of at most half the candidates (found by a selection) keeps that order among the tied
  assert.deepEqual(rerankItems(overlapDocument([0.5, 0.5, 0.5, 0.5], 0.5), null, idf, 2).items.map((it) => it.text), ['传统', '传统文化']);
  assert.deepEqual(rerankItems(overlapDocument([0.5, 0.3, 0.5, 0.5], 0.4), null, idf, 2).items.map((it) => it.text), ['传统', '梦溪']);
  // the pool keeps the best by the graph score, features row by row
  const pooled = rerankItems(overlapDocument([0.5, 0.3, 0.8, 0.4], 0.6), null, idf, 2);
  assert.deepEqual(pooled.items.map((it) => it.text), ['梦溪', '传统文化']);
  assert.deepEqual(Array.from(pooled.matrix), Array.from(matrix.subarray(0, 2 * RERANK_FEATURE_COUNT)));
});

test('rerankLogits: the flat complete-tree walk gives the logits of the model\'s own trees, bit for bit', () => {
  const p = RERANK_FEATURES.length;
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const rows: Float64Array[] = [];
  const labels: number[] = [];
  const groups: number[] = [];
  for (let i = 0; i < 300; i++) {
    const x = Float64Array.from({ length: p }, () => (rnd() < 0.3 ? 0 : Math.round(rnd() * 8) / 8));
    rows.push(x);
    labels.push(x[0] + x[3] * x[5] > 0.9 ? 1 : 0);
    groups.push(i % 10);
  }
  for (const depth of [1, 3, 5]) {
    const model = parseRerankModel(JSON.parse(JSON.stringify(fitTrees(rows, labels, { trees: 12, depth, rate: 0.3, minLeaf: 3, bins: 8, l2: 1, objective: 'lambdarank' }, groups))), 'fit');
    const matrix = new Float64Array(rows.length * p);
    rows.forEach((x, r) => matrix.set(x, r * p));
    // eight rows walk side by side: row counts with and without a remainder
    for (const n of [rows.length, 299, 6, 3, 1]) {
      const batch = rerankLogits(model, matrix, n, new Float64Array(n));
      for (let r = 0; r < n; r++) {
        // the explained walk (contributions) follows the model's own node arrays
        const walked = rerankLogit(model, rows[r], new Float64Array(p));
        assert.equal(batch[r], walked, `depth ${depth}, ${n} rows, row ${r}`);
      }
    }
  }
});

test('rerankLogits equals the plain walk of the model\'s trees bit for bit: random uneven trees of depth 0–5, values equal to thresholds, any row count', () => {
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  // thresholds and feature values from one grid (so that many values equal a threshold), or anything
  const grid = [-1, -0, 0, 0.125, 0.5, 1, 3];
  const value = () => (rnd() < 0.7 ? grid[Math.floor(rnd() * grid.length)] : (rnd() - 0.3) * 4);
  // leaf values of very different magnitudes: a sum in another order would differ in its last bits
  const leafValue = () => (rnd() - 0.5) * 10 ** Math.floor(rnd() * 6 - 3);
  /** A tree of at most `depth` levels whose branches stop at random (children after their parent). */
  const randomTree = (depth: number, width: number): RerankTree => {
    const t = { feature: [] as number[], threshold: [] as number[], left: [] as number[], right: [] as number[], value: [] as number[] };
    const node = (level: number): number => {
      const k = t.feature.length;
      const split = level < depth && (level === 0 || rnd() < 0.75);
      t.feature.push(split ? Math.floor(rnd() * width) : -1);
      t.threshold.push(split ? value() : 0);
      t.left.push(-1);
      t.right.push(-1);
      t.value.push(leafValue());
      if (split) {
        t.left[k] = node(level + 1);
        t.right[k] = node(level + 1);
      }
      return k;
    };
    node(0);
    return t;
  };
  const models: [string, RerankModel][] = [];
  for (let depth = 0; depth <= 5; depth++) {
    for (const width of [RERANK_CORE_FEATURE_COUNT, RERANK_FEATURE_COUNT]) {
      const trees = Array.from({ length: 1 + Math.floor(rnd() * 30) }, () => randomTree(depth, width));
      models.push([`depth ≤ ${depth}, ${width} features`, parseRerankModel({ version: 1, features: RERANK_FEATURES.slice(0, width), base: leafValue(), trees }, 'random')]);
    }
  }
  // the committed model, on values drawn from its own thresholds as well
  const bundled = loadBundledRerankModel();
  models.push(['models/rerank.json', bundled]);
  const own = bundled.trees.flatMap((t) => t.threshold.filter((_, i) => t.feature[i] >= 0));
  const stride = RERANK_FEATURE_COUNT;
  for (const [name, model] of models) {
    for (const rows of [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 37]) {
      // rows after the last hold NaN: they must be neither read nor written
      const matrix = new Float64Array((rows + 3) * stride).fill(NaN);
      for (let i = 0; i < rows * stride; i++) matrix[i] = model === bundled && rnd() < 0.5 ? own[Math.floor(rnd() * own.length)] : value();
      const out = new Float64Array(rows + 2).fill(42);
      rerankLogits(model, matrix, rows, out);
      assert.deepEqual(Array.from(out.subarray(rows)), [42, 42]);
      for (let r = 0; r < rows; r++) {
        const x = matrix.slice(r * stride, (r + 1) * stride);
        assert.equal(out[r], rerankLogit(model, x, new Float64Array(model.features.length)), `${name}, ${rows} rows, row ${r}`);
      }
    }
  }
});

test('fitTrees lambdarank: deterministic, needs the documents, ranks each document\'s keyword first; lambdaWeight is |ΔDCG| of a swap', () => {
  const p = RERANK_FEATURES.length;
  const rows: Float64Array[] = [];
  const labels: number[] = [];
  const groups: number[] = [];
  for (let d = 0; d < 20; d++) {
    for (let i = 0; i < 8; i++) {
      const x = new Float64Array(p);
      x[0] = ((d + i) % 8) / 8; // the graph score is not what decides
      x[9] = i / 8; // firstPos: the keyword is each document's first candidate
      rows.push(x);
      labels.push(i === 0 ? 1 : 0);
      groups.push(d);
    }
  }
  const params = { trees: 20, depth: 2, rate: 0.3, minLeaf: 2, bins: 16, l2: 1, objective: 'lambdarank' as const };
  const a = fitTrees(rows, labels, params, groups);
  assert.equal(JSON.stringify(a), JSON.stringify(fitTrees(rows, labels, params, groups)));
  const model = parseRerankModel(JSON.parse(JSON.stringify(a)), 'fit');
  for (let d = 0; d < 20; d++) {
    const scores = rows.slice(d * 8, d * 8 + 8).map((x) => rerankLogit(model, x));
    assert.equal(scores.indexOf(Math.max(...scores)), 0, `document ${d}`);
  }
  assert.throws(() => fitTrees(rows, labels, params), /needs the document of every row/);
  assert.equal(lambdaWeight(1, 2), 1 - 1 / Math.log2(3));
  assert.equal(lambdaWeight(7, 3), lambdaWeight(3, 7));
  assert.ok(lambdaWeight(1, 2) > lambdaWeight(20, 21));
});

test('rerankItems: a phrase\'s IDF is the table\'s, looked up for the pooled phrases only, side by side (weights) or one at a time', () => {
  const idf = loadBundledIdf();
  const two = { ...overlapDocument([0.5, 0.3, 0.8, 0.4], 0.6), phrases: [
    { text: '传统文化', members: Int32Array.of(0, 1), count: 1, charStart: 0, lastStart: 0, oneCharParts: 0 },
    { text: '梦溪和沈梦溪', members: Int32Array.of(2, -1, 3), count: 1, charStart: 9, lastStart: 9, oneCharParts: 1 },
  ], phraseValues: Float64Array.of(0.6, 0.1) };
  const looked: string[] = [];
  const oneAtATime: IdfTable = { source: 'test', size: 2, unknown: 1, weight: (w) => (looked.push(w), w === '传统文化' ? 4.25 : w.length) };
  // pool 3: 梦溪 0.8, 传统文化 0.6, 传统 0.5; the phrase 梦溪和沈梦溪 (0.1) is not pooled, and never looked up
  const { items } = rerankItems(two, null, oneAtATime, 3);
  assert.deepEqual(items.map((it) => it.text), ['梦溪', '传统文化', '传统']);
  assert.equal(items[1].features[RERANK_FEATURES.indexOf('idf')], 0.425);
  assert.deepEqual(looked.filter((w) => w.length > 3), ['传统文化']);
  // the bundled table looks them up side by side: the same features as one at a time
  const { weights: _, ...single } = idf;
  assert.equal(typeof idf.weights, 'function');
  for (const pool of [3, Infinity]) assert.deepEqual(Array.from(rerankItems(two, null, idf, pool).matrix), Array.from(rerankItems(two, null, single, pool).matrix));
});

test('rerankItems: logCount, kgEdges, semEdges and docLength are log(1 + value), for any count and edge-weight sum', () => {
  const doc = overlapDocument([0.5, 0.3, 0.8, 0.4], 0.6);
  const feature = (items: readonly { text: string; features: Float64Array }[], text: string, name: string) => items.find((it) => it.text === text)!.features[RERANK_FEATURES.indexOf(name as never)];
  for (const count of [1, 3, 1023, 1024, 5000, 1.5]) {
    const kgSum = Float64Array.of(0, 0.25, 3, 0);
    const semSum = Float64Array.of(0.5, 0, 0, 1e-9);
    const { items } = rerankItems({ ...doc, kgSum, semSum, phrases: [{ ...doc.phrases[0], count }] }, null, loadBundledIdf());
    assert.equal(feature(items, '传统文化', 'logCount'), Math.log1p(count), `count ${count}`);
    assert.equal(feature(items, '传统', 'logCount'), Math.log1p(2));
    for (const [k, w] of ['传统', '文化', '梦溪', '沈梦溪'].entries()) {
      assert.equal(feature(items, w, 'kgEdges'), Math.log1p(kgSum[k]), w);
      assert.equal(feature(items, w, 'semEdges'), Math.log1p(semSum[k]), w);
    }
    assert.equal(feature(items, '传统文化', 'kgEdges'), Math.log1p(0.25));
    assert.equal(feature(items, '传统文化', 'semEdges'), Math.log1p(0.5));
    for (const it of items) assert.equal(feature(items, it.text, 'docLength'), Math.log1p(doc.text.length) / 10);
  }
});

test('rerankItems: fullForm marks a person or character name of 3+ code units with a part (2+) that is another word of the document', () => {
  const pairs: [string, string][] = [
    ['吴天明', 'nr'], ['说', 'v'], ['天明', 'nr'], ['。', 'x'], ['焦三爷', 'nr'], ['和', 'c'], ['焦三', 'nr'], ['，', 'x'],
    ['游天鸣', 'nr'], ['与', 'c'], ['游天鸣班', 'n'], ['，', 'x'], ['张艺谋', 'nr'], ['艺谋', 'nr'],
  ];
  const { tokens, doc } = tokenDoc(pairs, [0, 2, 4, 6, 8, 10, 12, 13]);
  const n = doc.words.length; // 吴天明 天明 焦三爷 焦三 游天鸣 游天鸣班 张艺谋 艺谋
  // entities: the three persons, and 张艺谋 as a film (a part of a film title is no short name)
  const entity = Int32Array.of(0, -1, 1, -1, 2, -1, 3, -1);
  const kg = { kindOf: (e: number) => (e === 3 ? 'Movie' : 'Person'), relationCount: () => 0, lookup: () => [] } as unknown as KgView;
  const d = {
    text: tokens.map((t) => t.word).join(''), tokens, ...doc,
    rank: new Float64Array(n).fill(0.5), values: Float64Array.from({ length: n }, (_, i) => 1 - i / 10), eligible: new Uint8Array(n).fill(1),
    kgSum: new Float64Array(n), semSum: new Float64Array(n), entity, phrases: [], phraseValues: new Float64Array(0),
  };
  const FULL = RERANK_FEATURES.indexOf('fullForm');
  const { items } = rerankItems(d, kg, loadBundledIdf());
  // 游天鸣: 游天鸣班 starts with its first two characters, but no part of it is a word
  assert.deepEqual(Object.fromEntries(items.map((it) => [it.text, it.features[FULL]])), { 吴天明: 1, 天明: 0, 焦三爷: 1, 焦三: 0, 游天鸣: 0, 游天鸣班: 0, 张艺谋: 0, 艺谋: 0 });
});

test('optional feature positionRank: models may list it, rerankItems fills it from the scores given, fitTrees lists it only when a tree splits on it', () => {
  const core = RERANK_FEATURES.slice(0, RERANK_CORE_FEATURE_COUNT);
  // positionRank is the last optional feature (after the context and corpus ones)
  const PR = RERANK_FEATURES.indexOf('positionRank');
  assert.equal(PR, RERANK_FEATURE_COUNT - 1);
  assert.ok(PR > RERANK_CORE_FEATURE_COUNT);
  const stump = (f: number) => ({ feature: [f, -1, -1], threshold: [0.6, 0, 0], left: [1, -1, -1], right: [2, -1, -1], value: [0, -1, 2] });
  const withPr = parseRerankModel({ version: 1, features: [...RERANK_FEATURES], base: 0, trees: [stump(PR)] }, 'pr.json');
  assert.equal(withPr.features.length, RERANK_FEATURE_COUNT);
  const bad = (raw: unknown, pattern: RegExp) => assert.throws(() => parseRerankModel(raw, 'm.json'), (e: unknown) => e instanceof FilmkwError && pattern.test(e.message));
  bad({ version: 1, features: core.slice(0, -1), base: 0, trees: [] }, /field "features" must list the \d+ features .*optionally followed by the next of filmKnown, .*, positionRank/);
  bad({ version: 1, features: [...core, 'nope'], base: 0, trees: [] }, /field "features"/);
  // a model cannot split on a feature it does not list
  bad({ version: 1, features: core, base: 0, trees: [stump(PR)] }, /trees\[0\]\.feature\[0\] is not a feature index/);
  assert.deepEqual(zeroRerankModel().features, core);
  assert.deepEqual(zeroRerankModel(['positionRank']).features, RERANK_FEATURES);
  assert.throws(() => zeroRerankModel(['base']), /base is not an optional feature \(filmKnown, .*, positionRank\)/);

  // rerankItems: the node's score / the best eligible node's; a phrase takes its best word's; absent → 0
  const idf = loadBundledIdf();
  const pr = (it: { features: Float64Array }) => it.features[PR];
  const given = rerankItems({ ...overlapDocument([0.5, 0.3, 0.8, 0.4], 0.6), positionRank: Float64Array.of(0.5, 0.125, 0.25, 0.375) }, null, idf);
  assert.deepEqual(given.items.map((it) => [it.text, pr(it)]), [['梦溪', 0.5], ['传统文化', 1], ['传统', 1], ['沈梦溪', 0.75], ['文化', 0.25]]);
  const absent = rerankItems(overlapDocument([0.5, 0.3, 0.8, 0.4], 0.6), null, idf);
  assert.deepEqual(absent.items.map(pr), [0, 0, 0, 0, 0]);
  // every other feature is the same with or without it
  for (let r = 0; r < given.items.length; r++) assert.deepEqual(Array.from(given.items[r].features.subarray(0, PR)), Array.from(absent.items[r].features.subarray(0, PR)));
  // the logits read rows of RERANK_FEATURE_COUNT whatever the model lists
  assert.deepEqual(Array.from(rerankLogits(withPr, given.matrix, given.items.length, new Float64Array(given.items.length))), [-1, 2, 2, 2, -1]);

  // fitTrees: positionRank the only informative feature → the model lists it
  const rows: Float64Array[] = [];
  const labels: number[] = [];
  for (let i = 0; i < 200; i++) {
    const x = new Float64Array(RERANK_FEATURE_COUNT);
    x[PR] = (i % 10) / 10;
    rows.push(x);
    labels.push(x[PR] >= 0.7 ? 1 : 0);
  }
  const fitted = fitTrees(rows, labels, { trees: 5, depth: 1, rate: 0.3, minLeaf: 5, bins: 16, l2: 1, objective: 'pointwise' });
  assert.deepEqual(fitted.features, RERANK_FEATURES);
  assert.equal(fitted.trees[0].feature[0], PR);
});

test('positionRank in the pipeline (demo KG): computed only for a model that lists it, equal to the PositionRank preset\'s own graph score', async () => {
  const kg = await loadKg({});
  const text = '《长津湖》由吴京、易烊千玺主演，讲述抗美援朝战争中伍万里（易烊千玺 饰）的成长。伍万里在战争中成长，七连的战士们保家卫国。';
  const all = { 'rerank.pool': 1_000, 'phrases.dedup': 'off' };
  const read = (overrides: Record<string, unknown>, feature: string) => {
    const kws = createExtractor({ preset: 'filmkw-rerank', kg, overrides: { ...all, ...overrides }, rerankModel: zeroRerankModel(['positionRank']) }).extract(text, { topK: 1_000, explain: true });
    return new Map(kws.filter((k) => !k.explain!.phrase).map((k) => [k.word, k.explain!.rerank!.features.find((f) => f.feature === feature)!.value]));
  };
  // TextRank run: positionRank = a second power iteration with the position bias; the same graph ranked by
  // PositionRank (rank.algorithm) gives it as its own graph score (feature textrank)
  const second = read({}, 'positionRank');
  const own = read({ 'rank.algorithm': 'positionrank' }, 'textrank');
  assert.ok(second.size > 5);
  assert.deepEqual([...second.keys()].sort(), [...own.keys()].sort());
  for (const [w, v] of second) assert.equal(v, own.get(w), w);
  assert.equal(Math.max(...second.values()), 1);
  assert.notDeepEqual([...second.values()], [...read({}, 'textrank').values()], 'not the TextRank score');
  // the committed model does not list it: its explanation has no positionRank
  const committed = createExtractor({ preset: 'filmkw-rerank', kg }).extract(text, { explain: true });
  for (const k of committed) assert.ok(!k.explain!.rerank!.features.some((f) => f.feature === 'positionRank'), k.word);
});

test('ScratchBuffers: kept buffers give the features of fresh arrays, document after document; a second taker gets fresh arrays', () => {
  const idf = loadBundledIdf();
  const buffers = new ScratchBuffers();
  const docs = [overlapDocument([0.5, 0.3, 0.8, 0.4], 0.6), overlapDocument([0.5, 0.5, 0.5, 0.5], 0.5), overlapDocument([0.1, 0.9, 0.2, 0.7], 0.3)];
  for (const pool of [Infinity, 2]) {
    for (const d of docs) {
      const fresh = rerankItems(d, null, idf, pool);
      const kept = rerankItems(d, null, idf, pool, null, buffers);
      assert.deepEqual(Array.from(kept.matrix), Array.from(fresh.matrix));
      assert.deepEqual(kept.items.map((it) => it.text), fresh.items.map((it) => it.text));
      // while the first taker holds the buffers, a second one must not write into its matrix
      const before = Array.from(kept.matrix);
      const second = rerankItems(docs[2], null, idf, pool, null, buffers);
      assert.deepEqual(Array.from(kept.matrix), before);
      assert.notEqual(second.matrix.buffer, kept.matrix.buffer);
      buffers.release();
      buffers.release();
    }
  }
});

test('extract: an extract called from a candidates callback (the kept scratch is held) gives what a fresh extractor gives', async () => {
  const kg = await loadKg({});
  const outer = createExtractor({ preset: 'filmkw-rerank', kg });
  const texts = ['唢呐匠焦三爷收下天鸣为徒，传统文化的坚守者。', '张艺谋执导的《英雄》由李连杰、梁朝伟主演。'];
  const expected = texts.map((t) => createExtractor({ preset: 'filmkw-rerank', kg }).extract(t, { explain: true }));
  let inner: unknown = null;
  const got = outer.extract(texts[0], { explain: true, candidates: () => (inner ??= outer.extract(texts[1], { explain: true })) });
  assert.deepEqual(got, expected[0]);
  assert.deepEqual(inner, expected[1]);
  assert.deepEqual(outer.extract(texts[1], { explain: true }), expected[1]);
});
