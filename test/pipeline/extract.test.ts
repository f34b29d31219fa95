import { test } from 'node:test';
import { existsSync } from 'node:fs';
import assert from 'node:assert/strict';
import { FilmkwError } from '../../src/errors.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { DEFAULT_OPTIONS } from '../../src/pipeline/options.js';
import { toyKg } from '../fixtures/pipeline/mini-kg.js';

const ISSUE = '以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。';
const usage = (re: RegExp) => (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && re.test(e.message);

test('the issue example (toy KG): entity names are single tokens, KG edge 易烊千玺–长津湖 under textrank+w+g', () => {
  const extractor = createExtractor({ preset: 'textrank+w+g', kg: toyKg() });
  const keywords = extractor.extract(ISSUE, { topK: 20, explain: true });
  const words = keywords.map((k) => k.word);
  for (const w of ['易烊千玺', '伍万里', '长津湖']) assert.ok(words.includes(w), `${w} in ${words.join(' ')}`);
  const yi = keywords.find((k) => k.word === '易烊千玺')!;
  assert.equal(yi.kind, 'Person');
  assert.equal(yi.entityId, 'person/name/易烊千玺');
  const edge = yi.explain!.neighbours.find((n) => n.word === '长津湖');
  // the KG edge carries β (graph.kgEdgeWeight; default 16, measured on film-dev: options.ts header)
  assert.ok(edge && edge.kg === DEFAULT_OPTIONS.graph.kgEdgeWeight, JSON.stringify(yi.explain));
  assert.equal(keywords.find((k) => k.word === '长津湖')!.kind, 'Movie');
  // far apart in the text: no co-occurrence within W = 5 candidates, the edge is the KG's
  assert.equal(edge!.cooc, 0);
});

test('without the lexicon the names are split and carry no KG edge (textrank)', () => {
  const plain = createExtractor({ preset: 'textrank', kg: toyKg() }).extract(ISSUE, { topK: 20, explain: true });
  const yi = plain.find((k) => k.word === '易烊千玺');
  if (yi) assert.ok(yi.explain!.neighbours.every((n) => n.kg === 0));
  for (const k of plain) assert.equal(k.explain!.kg, 0);
});

test('deterministic: a text alone equals the same text after others; two extractors agree', () => {
  const texts = ['吴京主演的长津湖讲述了战争故事。', ISSUE, '这部电影的配乐和摄影都很出色，演员的表演也很动人。', '伍万里这个角色成长了。'];
  const a = createExtractor({ preset: 'textrank+w+g+r', kg: toyKg() });
  const alone = texts.map((t) => createExtractor({ preset: 'textrank+w+g+r', kg: toyKg() }).extract(t, { explain: true }));
  const batch = texts.map((t) => a.extract(t, { explain: true }));
  const again = [...texts].reverse().map((t) => a.extract(t, { explain: true })).reverse();
  assert.deepEqual(batch, alone);
  assert.deepEqual(again, alone);
});

test('output shape: {word, score} always, kind/entityId for entities, explain on request, topK', () => {
  const ex = createExtractor({ preset: 'positionrank+mkg', kg: toyKg() });
  const ks = ex.extract('吴京主演的长津湖讲述了战争故事，易烊千玺扮演伍万里。', { topK: 3, explain: true });
  assert.equal(ks.length, 3);
  for (const k of ks) {
    assert.equal(typeof k.word, 'string');
    assert.ok(Number.isFinite(k.score));
    assert.ok(k.explain && Array.isArray(k.explain.neighbours) && k.explain.neighbours.length <= 5);
    assert.equal(typeof k.explain.position, 'number');
    if (k.kind) assert.match(k.entityId!, /\//);
  }
  for (let i = 1; i < ks.length; i++) assert.ok(ks[i - 1].score >= ks[i].score);
  const plain = ex.extract('吴京主演的长津湖讲述了战争故事。');
  assert.equal(plain.length, 5 > plain.length ? plain.length : 5);
  assert.ok(plain.every((k) => k.explain === undefined));
  assert.deepEqual(ex.extract(''), []);
  assert.deepEqual(ex.extract('，。！'), []);
  assert.throws(() => ex.extract('电影', { topK: 0 }), usage(/topK must be an integer ≥ 1/));
});

test('creation errors: unknown preset, bad override, KG preset without a KG', () => {
  assert.throws(() => createExtractor({ preset: 'nope' }), usage(/unknown preset "nope"; valid presets: /));
  assert.throws(() => createExtractor({ preset: 'textrank', overrides: { window: 0 } }), usage(/graph\.window/));
  assert.throws(() => createExtractor({ preset: 'textrank+w' }), usage(/needs a KG/));
  const ex = createExtractor({ preset: 'textrank' });
  assert.equal(ex.preset, 'textrank');
  assert.equal((ex.options as { graph: { window: number } }).graph.window, 5);
  assert.ok(JSON.parse(JSON.stringify(ex.options)).segmenter.backend);
});

/**
 * Golden top-5 of every preset on small fixture texts with the toy KG (test/fixtures/pipeline/golden).
 * Regenerate after an intended change with UPDATE_GOLDEN=1 and review the diff.
 */
test('golden outputs of every preset (toy KG)', async () => {
  const { readFileSync, writeFileSync } = await import('node:fs');
  const { listPresets } = await import('../../src/pipeline/presets.js');
  const dir = new URL('../fixtures/pipeline/golden/', import.meta.url);
  const texts = JSON.parse(readFileSync(new URL('texts.json', dir), 'utf8')) as { id: string; text: string }[];
  const kg = toyKg();
  const actual: Record<string, Record<string, [string, number, string?][]>> = {};
  for (const preset of listPresets()) {
    const extractor = createExtractor({ preset, kg });
    actual[preset] = Object.fromEntries(
      texts.map(({ id, text }) => [id, extractor.extract(text, { topK: 5 }).map((k) => (k.kind ? [k.word, Number(k.score.toFixed(6)), k.kind] : [k.word, Number(k.score.toFixed(6))]) as [string, number, string?])]),
    );
  }
  const file = new URL('expected.json', dir);
  if (process.env.UPDATE_GOLDEN) {
    const lines = Object.entries(actual).map(
      ([preset, byText]) => `  ${JSON.stringify(preset)}: {\n${Object.entries(byText).map(([id, ks]) => `    ${JSON.stringify(id)}: ${JSON.stringify(ks)}`).join(',\n')}\n  }`,
    );
    writeFileSync(file, `{\n${lines.join(',\n')}\n}\n`);
  }
  const expected = JSON.parse(readFileSync(file, 'utf8')) as typeof actual;
  assert.deepEqual(Object.keys(actual), Object.keys(expected));
  for (const preset of Object.keys(expected)) {
    for (const id of Object.keys(expected[preset])) {
      const got = actual[preset][id];
      const want = expected[preset][id];
      const label = `${preset} / ${id}: ${JSON.stringify(got)}`;
      assert.deepEqual(got.map(([w, , kind]) => [w, kind]), want.map(([w, , kind]) => [w, kind]), label);
      got.forEach(([, score], k) => assert.ok(Math.abs(score - want[k][1]) <= 2e-6, label));
    }
  }
});

const DEMO_LOADER = new URL('../../src/kg/load.ts', import.meta.url);
const DEMO_KG = new URL('../../kg/demo', import.meta.url);

test(
  'golden: the issue example with the demo KG under textrank+w+g — 易烊千玺, 伍万里, 长津湖 single tokens, KG edge 易烊千玺–长津湖',
  { skip: !(existsSync(DEMO_LOADER) && existsSync(DEMO_KG)) && 'needs the demo KG (kg/demo) and src/kg/load.ts' },
  async () => {
    const loader = '../../src/kg/load.js';
    const { loadKg } = (await import(loader)) as { loadKg: (o: object) => Promise<import('../../src/kg/model.js').KgView> };
    const kg = await loadKg({});
    const extractor = createExtractor({ preset: 'textrank+w+g', kg });
    const keywords = extractor.extract(ISSUE, { topK: 50, explain: true });
    const words = keywords.map((k) => k.word);
    for (const w of ['易烊千玺', '伍万里', '长津湖']) assert.ok(words.includes(w), `${w} in ${words.join(' ')}`);
    for (const w of ['易烊', '千玺', '万里']) assert.ok(!words.includes(w), `${w} must not be a token`);
    const yi = keywords.find((k) => k.word === '易烊千玺')!;
    assert.equal(yi.kind, 'Person');
    const edge = yi.explain!.neighbours.find((n) => n.word === '长津湖');
    assert.ok(edge && edge.kg > 0, `KG edge 易烊千玺–长津湖: ${JSON.stringify(yi.explain)}`);
    assert.equal(keywords.find((k) => k.word === '长津湖')!.kind, 'Movie');
  },
);

test('robust on arbitrary text: no throw, finite sorted scores, deterministic (property)', async () => {
  const fc = (await import('fast-check')).default;
  const ex = createExtractor({ preset: 'textrank+w+g+r', kg: toyKg() });
  const pieces = fc.constantFrom('长津湖', '易烊千玺', '《', '》', '，', '。', '\n', ' ', '电影', '战争', '😀', 'IMAX', '2021', '\uD800', '冰雪长津湖', '的', '吴京', 'a');
  fc.assert(
    fc.property(fc.array(fc.oneof(pieces, fc.string({ maxLength: 6 })), { maxLength: 60 }), fc.integer({ min: 1, max: 8 }), (parts, topK) => {
      const text = parts.join('');
      const a = ex.extract(text, { topK, explain: true });
      assert.ok(a.length <= topK);
      for (let i = 0; i < a.length; i++) {
        assert.ok(Number.isFinite(a[i].score));
        if (i > 0) assert.ok(a[i - 1].score >= a[i].score);
      }
      assert.deepEqual(ex.extract(text, { topK, explain: true }), a);
    }),
    { numRuns: 150 },
  );
});
