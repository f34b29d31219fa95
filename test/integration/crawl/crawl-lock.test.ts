/**
 * `filmkw crawl --out` through bin/filmkw processes (`npm run build` first; moved from
 * test/crawl/crawl-safety.test.ts, issue 26): a second run on a folder that a first run is writing fails with
 * exit 7 naming the first (with and without --resume), the lock goes with the first run, and a later run
 * without --resume is refused. The first run's answer is held by the replay server until the second runs
 * have ended: a state, not a time. In the integration suite: four crawl processes. The lock itself (one
 * taker, the stale lock of a dead process): test/util/lock.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filmPage, serveWeb } from '../../crawl/web.js';
import { until } from '../../helpers/wait.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const built = existsSync(join(root, 'dist', 'cli', 'main.js'));

function runCli(argv: string[]): { done: Promise<{ status: number | null; stderr: string }>; pid: number } {
  const c = spawn(process.execPath, ['bin/filmkw', ...argv], { cwd: root });
  let stderr = '';
  c.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  return { pid: c.pid!, done: new Promise((resolve) => c.once('close', (status) => resolve({ status, stderr }))) };
}

const index = (out: string) => readFileSync(join(out, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { url: string });

test('crawl --out lock: a second run on the same folder fails with exit 7 naming the first; the lock goes with the run', { skip: built ? false : 'needs dist/ (npm run build)', timeout: 120_000 }, async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const s = await serveWeb([{ url: 'http://films.example/', body: filmPage('首页', ['/film/1']) }, { url: 'http://films.example/film/1', body: filmPage('影片', []) }]);
  const { startReplay } = await import('../../../src/crawl/replay.js');
  const slow = await startReplay([join(s.dir, 'manifest.tsv')], { beforeAnswer: () => held });
  await s.close();
  try {
    const out = join(mkdtempSync(join(tmpdir(), 'filmkw-crawl-lock-')), 'c');
    // the held answer must outlast the second runs however loaded the machine: the longest fetch timeout
    const args = ['crawl', '--seeds', 'http://films.example/', '--out', out, '--via', slow.url, '--max-pages', '5', '--set', 'timeoutMs=600000'];
    const first = runCli(args);
    await until('the first run to make a request', () => slow.stats.requests > 0);
    for (const extra of [[], ['--resume']]) {
      const second = await runCli([...args, ...extra]).done;
      assert.equal(second.status, 7, second.stderr);
      assert.match(second.stderr, new RegExp(`^filmkw: crawl: ${out.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')} is being written by another filmkw run \\(pid ${first.pid} on [^,]+, \`filmkw crawl --seeds`, 'u'));
      assert.equal(second.stderr.split('\n').filter(Boolean).length, 1, second.stderr);
    }
    release();
    const r = await first.done;
    assert.equal(r.status, 0, r.stderr);
    assert.equal(existsSync(`${out}.lock`), false, 'the lock goes with the run');
    assert.equal(index(out).length, 2, 'the first run wrote its crawl alone');
    const again = await runCli(args).done;
    assert.equal(again.status, 2);
    assert.match(again.stderr, /already holds a crawl; pass --resume/u);
  } finally {
    release();
    await slow.close();
  }
});
