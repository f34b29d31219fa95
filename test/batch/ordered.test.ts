import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { InputRecord } from '../../src/io/readers.js';
import { tagOrdered } from '../../src/batch/ordered.js';
import { InlineEngine, type TagEngine, type TagResult } from '../../src/batch/engine.js';
import { documentLine, errorLine, keywordsJson, roundScore } from '../../src/batch/format.js';
import { createFakeExtractor, fakeKeywords } from './fake-extractor.js';

async function* from<T>(xs: T[]): AsyncGenerator<T> {
  for (const x of xs) yield x;
}

/** An engine with a given parallelism that completes batches after random delays, counting in-flight records. */
class ShuffledEngine implements TagEngine {
  inflightDocs = 0;
  maxInflightDocs = 0;
  batches = 0;
  constructor(
    readonly parallelism: number,
    private readonly delays: () => number,
  ) {}
  async run(texts: string[]): Promise<TagResult[]> {
    this.batches++;
    this.inflightDocs += texts.length;
    this.maxInflightDocs = Math.max(this.maxInflightDocs, this.inflightDocs);
    await new Promise((r) => setTimeout(r, this.delays()));
    this.inflightDocs -= texts.length;
    return texts.map((t) => (t.startsWith('THROW') ? { error: 'extract: boom' } : { json: keywordsJson(fakeKeywords(t), false) }));
  }
  async close() {}
}

const expected = (recs: InputRecord[]) =>
  recs.map((r) => ('error' in r ? errorLine(r.id, r.line, r.error) : r.text.startsWith('THROW') ? errorLine(r.id, r.line, 'extract: boom') : documentLine(r.id, keywordsJson(fakeKeywords(r.text), false))));

test('tagOrdered: output in input order whatever the completion order; one line per record; window respected', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.constant('THROW x'), fc.constant('ERR')), { maxLength: 120 }),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 1, max: 7 }),
      fc.integer({ min: 1, max: 40 }),
      fc.infiniteStream(fc.integer({ min: 0, max: 3 })),
      async (texts, parallelism, batchDocs, window, delays) => {
        const recs: InputRecord[] = texts.map((t, i) => (t === 'ERR' ? { line: i + 1, error: 'bad line' } : { line: i + 1, id: `d${i}`, text: t }));
        const engine = new ShuffledEngine(parallelism, () => delays.next().value);
        const out: string[] = [];
        for await (const l of tagOrdered(from(recs), engine, { batchDocs, window })) out.push(l.text);
        assert.deepEqual(out, expected(recs));
        assert.ok(engine.maxInflightDocs <= window, `in flight ${engine.maxInflightDocs} > window ${window}`);
      },
    ),
    { numRuns: 60 },
  );
});

test('tagOrdered: reading stops while the window is full (backpressure)', async () => {
  let read = 0;
  async function* slowSource(): AsyncGenerator<InputRecord> {
    for (let i = 0; i < 1000; i++) {
      read++;
      yield { line: i + 1, id: String(i), text: `文本${i}` };
    }
  }
  const engine = new ShuffledEngine(2, () => 1);
  const it = tagOrdered(slowSource(), engine, { batchDocs: 4, window: 16 })[Symbol.asyncIterator]();
  await it.next();
  // The consumer took one line; the reader may be at most a window ahead.
  assert.ok(read <= 16 + 1, `read ${read} records ahead`);
  let n = 1;
  while (!(await it.next()).done) n++;
  assert.equal(n, 1000);
});

test('tagOrdered: an engine failure rejects (after the lines before it)', async () => {
  const engine: TagEngine = {
    parallelism: 1,
    run: async (texts) => {
      if (texts.some((t) => t === 'die')) throw new Error('worker 0 exited unexpectedly');
      return texts.map(() => ({ json: '[]' }));
    },
    close: async () => {},
  };
  const recs: InputRecord[] = ['a', 'b', 'die', 'c'].map((t, i) => ({ line: i + 1, id: t, text: t }));
  const got: string[] = [];
  await assert.rejects(async () => {
    for await (const l of tagOrdered(from(recs), engine, { batchDocs: 1 })) got.push(l.text);
  }, /exited unexpectedly/u);
  assert.deepEqual(got, ['{"id":"a","keywords":[]}\n', '{"id":"b","keywords":[]}\n']);
});

test('InlineEngine: a document whose extraction throws becomes an error record; the others go on', async () => {
  const engine = new InlineEngine(createFakeExtractor(), { explain: false });
  const recs: InputRecord[] = [
    { line: 1, id: 'a', text: '长津湖' },
    { line: 3, id: 'b', text: 'THROW' },
    { line: 4, error: 'invalid JSON: x' },
    { line: 5, id: 'c', text: '' },
  ];
  const out: string[] = [];
  for await (const l of tagOrdered(from(recs), engine)) out.push(l.text);
  assert.deepEqual(out, [
    '{"id":"a","keywords":[{"word":"长","score":1.001},{"word":"津","score":0.501},{"word":"湖","score":0.334333}]}\n',
    '{"id":"b","line":3,"error":"extract: fake failure on purpose"}\n',
    '{"id":null,"line":4,"error":"invalid JSON: x"}\n',
    '{"id":"c","keywords":[]}\n',
  ]);
});

test('format: scores rounded to 6 decimals, fixed key order, explain parts rounded', () => {
  assert.equal(roundScore(0.1234565), 0.123457);
  assert.equal(roundScore(-1e-9), 0);
  assert.ok(Object.is(roundScore(-0), 0));
  assert.equal(roundScore(2), 2);
  const json = keywordsJson(
    [
      { word: '易烊千玺', score: 0.30000000000000004, kind: 'Person', entityId: 'person/name/易烊千玺', explain: { cooc: 1 / 3, kg: 2, sem: 0, neighbours: [{ word: '长津湖', cooc: 1 / 7, kg: 1, sem: 0.25 }] } },
      { word: '主线', score: 1 / 3 },
    ],
    true,
  );
  assert.equal(
    json,
    '[{"word":"易烊千玺","score":0.3,"kind":"Person","entityId":"person/name/易烊千玺","explain":{"why":"ranked first by the word graph: linked in the KG to 长津湖 and written near 长津湖","cooc":0.333333,"kg":2,"sem":0,"neighbours":[{"word":"长津湖","cooc":0.142857,"kg":1,"sem":0.25}]}},{"word":"主线","score":0.333333}]',
  );
  assert.equal(keywordsJson([{ word: 'x', score: 1, explain: { cooc: 1, kg: 0, sem: 0, neighbours: [] } }], false), '[{"word":"x","score":1}]');
  assert.equal(errorLine(undefined, 7, 'a "b"'), '{"id":null,"line":7,"error":"a \\"b\\""}\n');
});
