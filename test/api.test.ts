/** The public API surface (src/index.ts): names, kinds, and one end-to-end call through it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import * as api from '../src/index.js';

test('public API: exported names (a change here is a breaking change)', () => {
  const names = Object.keys(api).sort();
  assert.deepEqual(names, [
    'DEFAULT_BACKEND',
    'DEFAULT_OPTIONS',
    'DEFAULT_PRESET',
    'DiskCache',
    'ENTITY_KINDS',
    'EXIT',
    'FilmkwError',
    'GOLD_FORMATS',
    'KgStore',
    'PRESETS',
    'RELATION_KINDS',
    'SEGMENTER_BACKENDS',
    'SOURCE_PREFIXES',
    'applyOverrides',
    'commonEntityNames',
    'commonWordTest',
    'createExtractor',
    'createSegmenter',
    'defaultKgDir',
    'describeOptions',
    'entityId',
    'evaluate',
    'exportUserDict',
    'extractFromTokens',
    'findPreset',
    'importSources',
    'listPresets',
    'loadBundledIdf',
    'loadKg',
    'loadSnapshot',
    'loadStopwords',
    'neo4jConfigFromEnv',
    'neo4jStats',
    'normaliseOverrides',
    'normalizeKeyword',
    'normalizeName',
    'optionKeys',
    'parseGold',
    'parseIdf',
    'parseKs',
    'parseOverride',
    'parseSource',
    'readGold',
    'readKgFromNeo4j',
    'readSnapshotHeader',
    'resolveOptions',
    'runTag',
    'saveSnapshot',
    'summaryLine',
    'toGraphology',
    'writeKgToNeo4j',
    'writeUserDict',
  ]);
  for (const n of names) assert.notEqual((api as Record<string, unknown>)[n], undefined, n);
});

test('public API: end to end through the package entry', () => {
  const extractor = api.createExtractor({ preset: 'textrank' });
  const keywords = extractor.extract('这部电影的配乐和摄影都很出色，配乐让人难忘，摄影也让人难忘。', { topK: 3 });
  assert.equal(keywords.length, 3);
  assert.deepEqual(Object.keys(keywords[0]).sort(), ['score', 'word']);
  assert.ok(api.listPresets().includes('textrank+mkg') === false && api.findPreset('textrank+mkg')?.name === 'textrank+w+g+r');
  assert.throws(() => api.createExtractor({ preset: 'x' }), (e: unknown) => e instanceof api.FilmkwError && e.exitCode === api.EXIT.USAGE);
});

test('public API: load the demo KG, tag with the KG, evaluate the result', async () => {
  const kg = await api.loadKg({});
  const extractor = api.createExtractor({ preset: 'textrank+mkg', kg });
  const text = '以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。易烊千玺的表演让伍万里这个角色立住了。';
  const keywords = extractor.extract(text, { topK: 3 });
  const words = keywords.map((k) => k.word);
  assert.ok(words.includes('易烊千玺') && words.includes('伍万里'), words.join(','));
  const entity = keywords.find((k) => k.word === '易烊千玺');
  assert.equal(entity?.kind, 'Person');
  const r = api.evaluate([{ id: 'd1', gold: ['易烊千玺', '长津湖', '伍万里'], predicted: words }], { ks: [3] });
  assert.equal(r.docs, 1);
  assert.ok(r.macro['3'].r > 0.6, JSON.stringify(r.macro));
});

test('public API: the batch runner tags a file, one output line per record, with resources passed in', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-api-'));
  try {
    const out = join(dir, 'tags.jsonl');
    const input = new URL('../datasets/samples/reviews.jsonl', import.meta.url).pathname;
    const summary = await api.runTag({ input, format: 'jsonl', preset: 'textrank', out, stderr: new PassThrough() });
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, summary.records);
    assert.equal(lines.length, readFileSync(input, 'utf8').trimEnd().split('\n').length);
    // the same first document through createExtractor, the IDF table and the cache given explicitly
    const cache = new api.DiskCache(join(dir, 'cache'));
    const idf = api.loadBundledIdf({ cache });
    const ex = api.createExtractor({ preset: 'textrank', overrides: { 'prior.idf': 'multiply' }, idf, cache });
    assert.ok(ex.extract('这部电影的配乐和摄影都很出色，配乐让人难忘。', { topK: 2 }).length === 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
