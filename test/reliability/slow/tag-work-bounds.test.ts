/**
 * Issue 26, `filmkw tag` through bin/filmkw (run `npm run build` first) on documents that need much work
 * (moved from test/reliability/tag-inputs-outputs.test.ts): a worker thread out of memory, documents whose
 * graph options are over the work bound, and a long document without punctuation. Each case checks the
 * exit code, the records and the one-line message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unpunctuatedText } from '../../pipeline/long-texts.js';
import { SAMPLES, bin, cli, lines, root, scratchDir, skip } from '../../helpers/bin-tag.js';

const dir = scratchDir('filmkw-tag-work-');

test('a worker thread out of memory: that document is an error record, the others are tagged, exit 0 (was: exit 70, a stack trace, earlier records lost)', { skip }, () => {
  const input = join(dir(), 'oom.jsonl');
  writeFileSync(input, `${[SAMPLES[0], JSON.stringify({ id: 'huge', text: unpunctuatedText(400_000, 3) }), SAMPLES[1], SAMPLES[2]].join('\n')}\n`);
  const out = join(dir(), 'oom-out.jsonl');
  // A worker of 64 MB builds its extractor from the KG-derived cache (src/lexicon/cache.ts); with the
  // cache cold it runs out of memory while starting, before any document (exit 2, the next test). The
  // same run without the cap fills the cache first, so that this test does not depend on the files that
  // ran before it.
  writeFileSync(join(dir(), 'small.jsonl'), `${SAMPLES[0]}\n`);
  const warm = cli(['tag', join(dir(), 'small.jsonl'), '--workers', '2', '--out', join(dir(), 'warm.jsonl')]);
  assert.equal(warm.status, 0, warm.stderr);
  const r = cli(['tag', input, '--workers', '2', '--worker-heap-mb', '64', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const got = lines(out);
  assert.deepEqual(got.map((l) => l.id), ['sample-01', 'huge', 'sample-02', 'sample-03']);
  assert.match(got[1].error ?? '', /out of memory: .*--worker-heap-mb 64/u);
  for (const k of [0, 2, 3]) assert.ok((got[k].keywords?.length ?? 0) > 0, `record ${k} tagged`);
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /u);
});

test('a worker thread out of memory while starting (a cold KG cache, --worker-heap-mb 64): exit 2, one line saying so, no output left (was: exit 70, a stack trace)', { skip }, () => {
  const input = join(dir(), 'start-oom.jsonl');
  writeFileSync(input, `${SAMPLES[0]}\n`);
  const out = join(dir(), 'start-oom-out.jsonl');
  const cache = mkdtempSync(join(tmpdir(), 'filmkw-cold-cache-'));
  const r = spawnSync(process.execPath, [bin, 'tag', input, '--workers', '2', '--worker-heap-mb', '64', '--out', out], { cwd: root, encoding: 'utf8', env: { ...process.env, FILMKW_CACHE_DIR: cache } });
  rmSync(cache, { recursive: true, force: true });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^filmkw: tag: a worker thread ran out of memory while loading the KG and the lexicon, before any document \(--worker-heap-mb 64\); give it more memory/u);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.ok(!existsSync(out) && !existsSync(`${out}.progress.json`) && !existsSync(`${out}.lock`), 'nothing left behind');
});

test('graph options over the work bound: that document is an error record naming the option, the others are tagged; 200k characters without punctuation are tagged', { skip }, () => {
  const input = join(dir(), 'graph.jsonl');
  const long = JSON.stringify({ id: 'long', text: unpunctuatedText(200_000, 4) });
  writeFileSync(input, `${[SAMPLES[0], long, SAMPLES[1]].join('\n')}\n`);
  const out = join(dir(), 'graph-out.jsonl');
  const r = cli(['tag', input, '--preset', 'textrank+w+g+r', '--set', 'semantic.smScope=allPairs', '--set', 'semantic.jaccardNeighbours=docGraph', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const got = lines(out);
  assert.deepEqual(got.map((l) => l.id), ['sample-01', 'long', 'sample-02']);
  assert.match(got[1].error ?? '', /too large for semantic\.smScope "allPairs"/u);
  const plain = cli(['tag', input, '--preset', 'filmkw-rerank', '--out', out]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(lines(out)[1].keywords?.length, 5, 'the long document is tagged with the default preset');
});
