import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { WorkerPool, InlineEngine, type TagResult } from '../../src/batch/engine.js';
import { FilmkwError } from '../../src/errors.js';
import type { ExtractorFactorySpec } from '../../src/batch/factory.js';
import { createFakeExtractor, fakeKeywords } from './fake-extractor.js';
import { keywordsJson } from '../../src/batch/format.js';
import { demoSnapshot } from './demo-kg.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fake = (args: Record<string, unknown> = {}): ExtractorFactorySpec => ({ module: new URL('./fake-extractor.ts', import.meta.url).href, export: 'createFakeExtractor', args });
const texts = Array.from({ length: 50 }, (_, i) => (i % 7 === 3 ? `SLEEP 5 文本${i}` : `电影${i}长津湖${'好'.repeat(i % 5)}`));

test('WorkerPool under tsx (.ts worker entry): same results as inline, in order, across batches', async () => {
  const pool = await WorkerPool.create(2, fake(), { explain: false });
  try {
    assert.equal(pool.parallelism, 2);
    assert.deepEqual(pool.info, [{ preset: 'fake', kgHash: null }, { preset: 'fake', kgHash: null }]);
    const inline = new InlineEngine(createFakeExtractor(), { explain: false });
    const batches = [texts.slice(0, 10), texts.slice(10, 13), texts.slice(13)];
    const got = await Promise.all(batches.map((b) => pool.run(b)));
    const want = await Promise.all(batches.map((b) => inline.run(b)));
    assert.deepEqual(got, want);
    const [r] = await Promise.all([pool.run(['THROW please', 'ok'])]);
    assert.deepEqual(r[0], { error: 'extract: fake failure on purpose' });
    assert.ok('json' in r[1]);
  } finally {
    await pool.close();
  }
  await assert.rejects(pool.run(['x']), /closed/u);
});

test('WorkerPool: a factory failure rejects create with the same FilmkwError code; a plain failure names the worker', async () => {
  await assert.rejects(WorkerPool.create(2, fake({ failCreate: 'usage' }), { explain: false }), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && /unknown preset "nope"/u.test(e.message));
  await assert.rejects(WorkerPool.create(1, fake({ failCreate: 'plain' }), { explain: false }), /worker 0: fake: cannot load dictionaries/u);
});

test('WorkerPool: a worker that dies rejects its batches with a clear error; the pool does not hang', async () => {
  process.env.FAKE_EXIT = '1';
  const pool = await WorkerPool.create(1, fake(), { explain: false });
  delete process.env.FAKE_EXIT;
  try {
    await assert.rejects(pool.run(['EXIT now']), /worker 0 exited unexpectedly \(code 3\)/u);
    await assert.rejects(pool.run(['after']), /worker 0 exited unexpectedly/u);
  } finally {
    await pool.close();
  }
});

const distEngine = join(root, 'dist', 'batch', 'engine.js');
test(
  'WorkerPool from dist/ (compiled worker.js, real extractor with the demo KG) equals the inline extractor',
  { skip: !existsSync(distEngine) && 'run `npm run build` first (dist/batch/engine.js)' },
  async () => {
    const dist = (await import(pathToFileURL(distEngine).href)) as typeof import('../../src/batch/engine.js');
    const snapshot = await demoSnapshot();
    const spec: ExtractorFactorySpec = {
      module: pathToFileURL(join(root, 'dist', 'batch', 'tag-extractor.js')).href,
      export: 'createTagExtractor',
      args: { preset: 'textrank+w+g+r', kg: { snapshot } },
    };
    const pool = await dist.WorkerPool.create(2, spec, { explain: true, topK: 4 });
    let got: TagResult[][];
    try {
      const docs = ['以易烊千玺扮演的伍万里这个孩子的视角……拎起《长津湖》整篇故事的主线。', '程蝶衣说：不疯魔不成活。', '', '！！！'];
      got = await Promise.all([pool.run(docs.slice(0, 2)), pool.run(docs.slice(2))]);
      const { createTagExtractor } = await import('../../src/batch/tag-extractor.js');
      const inline = new InlineEngine(await createTagExtractor({ preset: 'textrank+w+g+r', kg: { snapshot } }), { explain: true, topK: 4 });
      assert.deepEqual(got.flat(), await inline.run(docs));
      assert.equal(pool.info[0].kgHash, pool.info[1].kgHash);
      const first = JSON.parse((got[0][0] as { json: string }).json) as { word: string }[];
      for (const w of ['易烊千玺', '伍万里', '长津湖']) assert.ok(first.some((k) => k.word === w), `${w} in ${JSON.stringify(first)}`);
    } finally {
      await pool.close();
    }
  },
);

test('WorkerPool: a worker out of memory is replaced; the document that needs too much is an error record, the others of its batch and the batches queued behind it are tagged (issue 26)', async () => {
  const pool = await WorkerPool.create(2, fake(), { explain: false }, { heapMb: 48 });
  try {
    const batches = [['甲乙', 'OOM 丙', '丁戊'], ['己庚'], ['OOM again'], ['辛壬']];
    const results = await Promise.all(batches.map((b) => pool.run(b)));
    const want = (t: string) => ({ json: keywordsJson(fakeKeywords(t), false) });
    assert.deepEqual(results[0][0], want('甲乙'));
    assert.match((results[0][1] as { error: string }).error, /out of memory.*--worker-heap-mb 48/u);
    assert.deepEqual(results[0][2], want('丁戊'));
    assert.deepEqual(results[1], [want('己庚')]);
    assert.match((results[2][0] as { error: string }).error, /out of memory/u);
    assert.deepEqual(results[3], [want('辛壬')]);
    assert.deepEqual(await pool.run(['癸']), [want('癸')], 'the pool still works');
  } finally {
    await pool.close();
  }
});
