/**
 * Issue 17, signals, through bin/filmkw (run `npm run build` first; `npm run test:reliability`): SIGINT on
 * `tag --out` says what is saved and how to resume (exit 130) and the resumed output is complete;
 * SIGTERM / SIGINT during `html records --mode rendered` give 143 / 130, write only whole pages and leave
 * no chromium process. About 40 s on a busy 2-core machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSnapshot } from '../../batch/demo-kg.js';
import { longDocs, startCli as start } from '../cli-helpers.js';
import { until } from '../../helpers/wait.js';
import { chromiumSkip } from '../../browser/chromium.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const skip = existsSync(join(root, 'dist', 'cli', 'main.js')) ? false : 'dist/ is missing: run `npm run build` first';
const bin = join(root, 'bin', 'filmkw');
const run = (args: string[], input?: string) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', input, maxBuffer: 1 << 26 });
const oneLine = (stderr: string): void => {
  assert.equal(stderr.trimEnd().split('\n').filter((l) => l.startsWith('filmkw:')).length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at |internal error|Warning/u, stderr);
};
const FIX = join(root, 'test', 'fixtures');
const noChromium = chromiumSkip();


/** Descendant pids of a process (from /proc). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/u.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z');
  } catch {
    return false;
  }
};

test('tag: SIGINT says what is saved and how to resume (exit 130); the resumed output is complete', { skip }, async () => {
  const kg = await demoSnapshot();
  const d = mkdtempSync(join(tmpdir(), 'filmkw-sigint-'));
  const input = join(d, 'in.jsonl');
  writeFileSync(input, `${longDocs(10000).join('\n')}\n`);
  const out = join(d, 'out.jsonl');
  const p = start(['tag', input, '--kg', kg, '--out', out]);
  await until('a checkpoint with records', () => {
    try {
      return JSON.parse(readFileSync(`${out}.progress.json`, 'utf8')).records > 0;
    } catch {
      return false; // not there yet, or being rewritten
    }
  });
  p.child.kill('SIGINT');
  assert.equal(await p.done, 130, p.stderr());
  assert.match(p.stderr(), /filmkw: tag: interrupted \(SIGINT\); \d+ records are saved in .*out\.jsonl; run the same command with --resume to continue/u);
  oneLine(p.stderr());
  assert.ok(!existsSync(`${out}.lock`), 'the lock is released');
  const r = run(['tag', input, '--kg', kg, '--out', out, '--resume']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /resumed after \d+ records/u);
  const ids = readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l).id);
  assert.deepEqual(ids, Array.from({ length: 10000 }, (_, i) => `d${i}`));
});

test('html records --mode rendered: SIGTERM / SIGINT exit 143 / 130, only complete pages are written, no chromium is left', { skip: skip || noChromium }, async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-sigrender-'));
  const pages = join(d, 'pages');
  mkdirSync(pages);
  for (let i = 0; i < 200; i++) copyFileSync(join(FIX, 'html', 'records', 'douban-list.html'), join(pages, `p${String(i).padStart(3, '0')}.html`));
  for (const [sig, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    const out = join(d, `${sig}.jsonl`);
    const p = start(['html', 'records', pages, '--mode', 'rendered', '--out', out], 'ignore');
    // wait until some pages are written, then look at chromium and send the signal
    await until('some pages written', () => existsSync(out) && readFileSync(out, 'utf8').split('\n').length > 8);
    const kids = descendants(p.child.pid!);
    assert.ok(kids.length > 0, 'chromium runs');
    p.child.kill(sig);
    assert.equal(await p.done, code, p.stderr());
    assert.match(p.stderr(), new RegExp(`filmkw: html records: interrupted \\(${sig}\\) after \\d+ of 200 page\\(s\\)`, 'u'));
    assert.doesNotMatch(p.stderr(), /\n\s+at |internal error/u);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { file?: string; error?: string; n?: number });
    assert.ok(lines.every((l) => l.error === undefined && l.file !== undefined), 'no error record for the pages cut by the signal');
    assert.equal(lines.length % 4, 0, 'whole pages only (4 records each)');
    await until('the chromium processes to end', () => kids.filter(alive).length === 0);
  }
});
