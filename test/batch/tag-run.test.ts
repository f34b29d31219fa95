import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { checkpointDue, runTag, summaryLine, type TagRunOptions } from '../../src/batch/tag-run.js';
import { progressPath, readProgress } from '../../src/batch/resume.js';
import { FilmkwError } from '../../src/errors.js';
import type { ExtractorFactorySpec } from '../../src/batch/factory.js';

const fake: ExtractorFactorySpec = { module: new URL('./fake-extractor.ts', import.meta.url).href, export: 'createFakeExtractor', args: {} };
const dir = () => mkdtempSync(join(tmpdir(), 'filmkw-tagrun-'));
const quiet = () => new PassThrough();

function corpus(path: string, n: number, exitAt = -1): void {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 17 === 5) lines.push('{"id":"broken", "text": ');
    else if (i % 23 === 7) lines.push('');
    else lines.push(JSON.stringify({ id: `doc-${i}`, text: i === exitAt ? 'EXIT here' : `第${i}篇：${'长津湖易烊千玺'.slice(0, (i % 7) + 1)}${i % 3 === 0 ? '，还有程蝶衣' : ''}` }));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

const base = (input: string, extra: Partial<TagRunOptions> = {}): TagRunOptions => ({ input, format: 'jsonl', idField: 'id', factory: fake, stderr: quiet(), checkpointMs: 0, ...extra });

test('runTag: one line per record, the sidecar is removed at the end, --workers 2 gives the same bytes', async () => {
  const d = dir();
  corpus(join(d, 'in.jsonl'), 300);
  const s1 = await runTag(base(join(d, 'in.jsonl'), { out: join(d, 'w1.jsonl') }));
  const s2 = await runTag(base(join(d, 'in.jsonl'), { out: join(d, 'w2.jsonl'), workers: 2, ordered: { batchDocs: 3 } }));
  const out = readFileSync(join(d, 'w1.jsonl'), 'utf8');
  assert.equal(readFileSync(join(d, 'w2.jsonl'), 'utf8'), out);
  const lines = out.trimEnd().split('\n');
  const nonBlank = readFileSync(join(d, 'in.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').length;
  assert.equal(lines.length, nonBlank);
  assert.equal(s1.records, nonBlank);
  assert.equal(s1.errors, lines.filter((l) => l.includes('"error"')).length);
  assert.equal(s1.errors, 18);
  assert.deepEqual({ ...s2, seconds: 0, setupSeconds: 0, docsPerSecond: 0, workers: 1 }, { ...s1, seconds: 0, setupSeconds: 0, docsPerSecond: 0 });
  assert.ok(!existsSync(progressPath(join(d, 'w1.jsonl'))));
  assert.match(summaryLine(s1, 'w1.jsonl'), /^tag: 288 records \(270 tagged, 18 error records\), .* docs\/s, 1 worker, preset fake, .* → w1\.jsonl\n$/u);
});

test('runTag without --out writes to the given stdout stream', async () => {
  const d = dir();
  corpus(join(d, 'in.jsonl'), 20);
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (c: Buffer) => chunks.push(c));
  await runTag(base(join(d, 'in.jsonl'), { stdout }));
  await runTag(base(join(d, 'in.jsonl'), { out: join(d, 'o.jsonl') }));
  assert.equal(Buffer.concat(chunks).toString('utf8'), readFileSync(join(d, 'o.jsonl'), 'utf8'));
});

test('an interrupted run (worker crash) leaves a checkpoint; --resume completes it byte-identical to an uninterrupted run', async () => {
  const d = dir();
  const input = join(d, 'in.jsonl');
  corpus(input, 400, 250);
  const out = join(d, 'out.jsonl');
  process.env.FAKE_EXIT = '1';
  process.env.FAKE_EXIT_AFTER_CHECKPOINT = progressPath(out);
  try {
    await assert.rejects(runTag(base(input, { out, workers: 2, ordered: { batchDocs: 2 } })), /worker \d exited unexpectedly/u);
  } finally {
    delete process.env.FAKE_EXIT;
    delete process.env.FAKE_EXIT_AFTER_CHECKPOINT;
  }
  const cp = readProgress(out)!;
  assert.ok(cp.records > 0 && cp.records < 400, `checkpoint at ${cp.records}`);
  assert.equal(statSync(out).size, cp.outBytes);
  // A torn last line after the checkpoint (as a kill during a write leaves) is dropped on resume.
  appendFileSync(out, '{"id":"doc-9999","keyw');
  const s = await runTag(base(input, { out, resume: true }));
  assert.equal(s.resumed, cp.records);
  const full = join(d, 'full.jsonl');
  await runTag(base(input, { out: full }));
  assert.equal(readFileSync(out, 'utf8'), readFileSync(full, 'utf8'));
  assert.ok(!existsSync(progressPath(out)));
});

test('--resume refuses a changed input, changed options, a shortened output, or an output without checkpoint', async () => {
  const d = dir();
  const input = join(d, 'in.jsonl');
  corpus(input, 50, 31);
  const out = join(d, 'out.jsonl');
  // the crash waits for a checkpoint with records (fake-extractor.ts), so each interrupted run leaves one
  const interrupted = async () => {
    rmSync(progressPath(out), { force: true });
    process.env.FAKE_EXIT = '1';
    process.env.FAKE_EXIT_AFTER_CHECKPOINT = progressPath(out);
    try {
      await assert.rejects(runTag(base(input, { out, workers: 2 })));
    } finally {
      delete process.env.FAKE_EXIT;
      delete process.env.FAKE_EXIT_AFTER_CHECKPOINT;
    }
    assert.ok(readProgress(out)!.records > 0, 'the interrupted run left a checkpoint with records');
  };
  const refused = async (o: Partial<TagRunOptions>, re: RegExp) =>
    assert.rejects(runTag(base(input, { out, resume: true, ...o })), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && re.test(e.message));

  await interrupted();
  await refused({ topK: 3 }, /options differ from the interrupted run \(topK: null → 3\)/u);
  await refused({ idField: undefined }, /idField: "id" → null/u);
  const st = statSync(input);
  utimesSync(input, st.atime, new Date(st.mtimeMs + 5000));
  await refused({}, /the input changed since the interrupted run \(input modified /u);
  utimesSync(input, st.atime, st.mtime);
  appendFileSync(input, '{"id":"more","text":"x"}\n');
  await refused({}, /input size \d+ → \d+ bytes/u);

  // issue 17: edited in place, same size, modification time restored: the content hash tells
  // (a whole-second mtime, so that restoring it is exact: a Date loses sub-millisecond digits)
  corpus(input, 50, 31);
  utimesSync(input, 1_700_000_000, 1_700_000_000);
  await interrupted();
  const size = statSync(input).size;
  writeFileSync(input, readFileSync(input, 'utf8').replace('第0篇', '第O篇'));
  utimesSync(input, 1_700_000_000, 1_700_000_000);
  assert.equal(statSync(input).size, size);
  await refused({}, /the input changed since the interrupted run \(input content differs \(sha256 .* although size and modification time are the same\)/u);

  corpus(input, 50, 31);
  await interrupted();
  writeFileSync(out, '');
  await refused({}, /has 0 bytes, fewer than the \d+ of the last checkpoint/u);

  corpus(input, 50);
  await runTag(base(input, { out }));
  await refused({}, /exists but there is no .*progress\.json \(the run finished/u);
  await assert.rejects(runTag(base(input, { resume: true })), /--resume needs --out/u);
  await assert.rejects(runTag(base('-', { out, resume: true })), /stdin cannot be re-read/u);
  // --resume with no output yet simply starts.
  const fresh = join(d, 'fresh.jsonl');
  const s = await runTag(base(input, { out: fresh, resume: true }));
  assert.equal(s.resumed, 0);
  assert.equal(readFileSync(fresh, 'utf8'), readFileSync(out, 'utf8'));
});

test('runTag: usage and input errors', async () => {
  const d = dir();
  await assert.rejects(runTag(base(join(d, 'missing.jsonl'))), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /input file not found: .*missing\.jsonl/u.test(e.message));
  await assert.rejects(runTag(base(d)), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /is a directory/u.test(e.message));
  writeFileSync(join(d, 'a.jsonl'), '{"text":"x"}\n');
  await assert.rejects(runTag(base(join(d, 'a.jsonl'), { workers: 0 })), /--workers must be an integer ≥ 1/u);
  await assert.rejects(runTag(base(join(d, 'a.jsonl'), { out: join(d, 'a.jsonl') })), /is the input .*writing it would destroy the input/u);
  await assert.rejects(runTag({ ...base(join(d, 'a.jsonl')), factory: undefined, preset: 'nope' }), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && /tag: unknown preset "nope"; valid presets: textrank, /u.test(e.message));
  await assert.rejects(runTag(base(join(d, 'a.jsonl'), { out: join(d, 'no-such-dir', 'o.jsonl') })), (e: unknown) => e instanceof FilmkwError && e.code === 'OUTPUT' && /cannot write/u.test(e.message));
});

test('runTag: the document context (--film-field, --title-field) reaches the extractor, in a thread or a pool; films the KG lacks are reported once per run', async () => {
  const d = dir();
  const input = join(d, 'in.jsonl');
  const rows = Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, text: `第${i}篇影评`, meta: { film: i % 4 === 0 ? `lost-${i % 8}` : `known-${i % 3}`, title: i % 5 === 0 ? `标题${i}` : '' } }));
  writeFileSync(input, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const errs: string[] = [];
  const stderr = new PassThrough();
  stderr.on('data', (c: Buffer) => errs.push(c.toString('utf8')));
  const s1 = await runTag(base(input, { out: join(d, 'o1.jsonl'), filmField: 'meta.film', titleField: 'meta.title', stderr }));
  const s2 = await runTag(base(input, { out: join(d, 'o2.jsonl'), filmField: 'meta.film', titleField: 'meta.title', workers: 2, ordered: { batchDocs: 3 } }));
  const out = readFileSync(join(d, 'o1.jsonl'), 'utf8');
  assert.equal(readFileSync(join(d, 'o2.jsonl'), 'utf8'), out);
  const first = out.trimEnd().split('\n').map((l) => (JSON.parse(l) as { keywords: { word: string }[] }).keywords[0].word);
  assert.equal(first[0], 'film=lost-0 title=标题0');
  assert.equal(first[1], 'film=known-1');
  assert.equal(first[5], 'film=known-2 title=标题5');
  // 10 records name lost-0 / lost-4 (i % 4 = 0): two distinct films, one warning line
  assert.deepEqual(s1.unknownFilms, { records: 10, distinct: 2, examples: ['lost-0', 'lost-4'] });
  assert.deepEqual(s2.unknownFilms, s1.unknownFilms);
  const warnings = errs.join('').split('\n').filter((l) => l.includes('not in the KG'));
  assert.deepEqual(warnings, ['tag: WARNING: 2 films of 10 records not in the KG ("lost-0", "lost-4"); those records were tagged without their film']);
  // without the fields: no context, no warning
  const s3 = await runTag(base(input, { out: join(d, 'o3.jsonl') }));
  assert.equal(s3.unknownFilms, undefined);
  assert.ok(!readFileSync(join(d, 'o3.jsonl'), 'utf8').includes('film='));
  // --corpus-stats self needs a file it can read twice
  await assert.rejects(runTag(base('-', { corpusStats: 'self' })), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && /--corpus-stats self reads the input twice/u.test(e.message));
  await assert.rejects(runTag(base(input, { corpusStats: join(d, 'none.gz') })), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /--corpus-stats: no such file/u.test(e.message));
});

test('checkpointDue: by time, or by records when --checkpoint-records is given (0: by time only)', () => {
  const o = { checkpointMs: 1000, checkpointRecords: 0 };
  assert.equal(checkpointDue({ ms: 999, records: 1e9 }, o), false);
  assert.equal(checkpointDue({ ms: 1000, records: 0 }, o), true);
  const r = { checkpointMs: 1000, checkpointRecords: 200 };
  assert.equal(checkpointDue({ ms: 0, records: 199 }, r), false);
  assert.equal(checkpointDue({ ms: 0, records: 200 }, r), true);
  assert.equal(checkpointDue({ ms: 1000, records: 3 }, r), true);
});
