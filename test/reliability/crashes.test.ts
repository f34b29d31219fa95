/**
 * Issue 17, crashes and wrong exits, through bin/filmkw (run `npm run build` first): a closed stdout is
 * exit 7 with one line on every command; symlink loops and dangling links in page directories are
 * error records (or skips) with the reason; SIGINT/SIGTERM give 130/143, write nothing false and leave no
 * chromium behind; `tag` says how to resume; `eval` reports every bad gold line; 10+ workers print no
 * MaxListeners warning.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSnapshot } from '../batch/demo-kg.js';
import { longDocs } from './long-docs.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const skip = existsSync(join(root, 'dist', 'cli', 'main.js')) ? false : 'dist/ is missing: run `npm run build` first';
const bin = join(root, 'bin', 'filmkw');
const run = (args: string[], input?: string) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', input, maxBuffer: 1 << 26 });
const oneLine = (stderr: string) => {
  assert.equal(stderr.trimEnd().split('\n').filter((l) => l.startsWith('filmkw:')).length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at |internal error|Warning/u, stderr);
};
const FIX = join(root, 'test', 'fixtures');
const chromium = existsSync('/usr/bin/chromium');

/** Spawn with stderr collected; resolves the exit code (or 128 + signal number). */
function start(args: string[], stdio: 'pipe' | 'ignore' = 'pipe'): { child: ChildProcess; stderr: () => string; stdout: () => string; done: Promise<number> } {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', stdio, 'pipe'] });
  let err = '';
  let out = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  const done = new Promise<number>((r) => child.on('close', (code, sig) => r(code ?? 128 + (sig === 'SIGTERM' ? 15 : sig === 'SIGINT' ? 2 : 9))));
  return { child, stderr: () => err, stdout: () => out, done };
}

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

test('a closed stdout is exit 7 with one line on every command that writes to stdout', { skip }, async () => {
  const kg = await demoSnapshot();
  const d = mkdtempSync(join(tmpdir(), 'filmkw-epipe-'));
  const pages = join(d, 'pages');
  mkdirSync(pages);
  for (let i = 0; i < 60; i++) copyFileSync(join(FIX, 'html', 'records', 'douban-list.html'), join(pages, `p${String(i).padStart(2, '0')}.html`));
  const commands = [
    ['tag', join(root, 'datasets', 'samples', 'reviews.jsonl'), '--kg', kg, '--preset', 'textrank'],
    ['html', 'records', pages, '--mode', 'structural'],
    ['html', 'text', pages],
    ['eval', '--gold', 'test/fixtures/eval/tiny.jsonl', '--preset', 'textrank'],
    ['kg', 'stats', '--kg', kg],
  ];
  for (const args of commands) {
    const p = start(args);
    p.child.stdout!.destroy(); // the reader is gone before the first line, like `| head -0`
    const code = await p.done;
    assert.equal(code, 7, `${args.slice(0, 2).join(' ')}: ${p.stderr()}`);
    assert.match(p.stderr(), /filmkw: (tag: )?the output was closed early \(EPIPE/u);
    oneLine(p.stderr());
  }
});

test('page directories with a symlink loop, a dangling link and a link to a directory: error records or skips with the reason', { skip }, () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-links-'));
  const pages = join(d, 'pages');
  mkdirSync(join(pages, 'sub'), { recursive: true });
  copyFileSync(join(FIX, 'html', 'records', 'douban-list.html'), join(pages, 'a.html'));
  symlinkSync('..', join(pages, 'sub', 'up'));
  symlinkSync('missing.html', join(pages, 'dangling.html'));
  symlinkSync('self.html', join(pages, 'self.html'));
  const records = run(['html', 'records', pages, '--mode', 'structural']);
  assert.equal(records.status, 0, records.stderr);
  const lines = records.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { id?: string; file?: string; error?: string });
  const errors = lines.filter((l) => l.error !== undefined);
  assert.deepEqual(errors, [
    { id: 'dangling.html', error: 'html records: dangling.html: skipped: dangling symlink (its target does not exist)' },
    { id: 'self.html', error: 'html records: self.html: skipped: symlink loop (ELOOP)' },
    { id: 'sub/up', error: 'html records: sub/up: skipped: symlink loop (a directory already listed through another path)' },
  ]);
  assert.ok(lines.some((l) => l.file === 'a.html'), 'the good page is read');
  const text = run(['html', 'text', pages]);
  assert.equal(text.status, 0, text.stderr);
  assert.deepEqual(text.stdout.trimEnd().split('\n').map((l) => JSON.parse(l).id), ['a.html', 'dangling.html', 'self.html', 'sub/up']);
  const tag = run(['tag', pages, '--preset', 'textrank']);
  assert.equal(tag.status, 0, tag.stderr);
  assert.match(tag.stderr, /tag: 4 records \(1 tagged, 3 error records\)/u);
  const kg = run(['kg', 'import', '--out', join(d, 'kg.fkg'), `html-list:${pages}`]);
  assert.equal(kg.status, 0, kg.stderr);
  assert.match(kg.stderr, /3× html-list: unreadable directory entry .*dangling symlink/u);
});

test('eval reports every bad gold line (up to 20) in one run', { skip }, () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-gold-'));
  const good = (i: number) => JSON.stringify({ id: `g${i}`, text: '《霸王别姬》', tag: ['霸王别姬'] });
  const lines = [good(1), '{bad json', good(2), '{"id":"x","text":1,"tag":["a"]}', '{"id":"y","text":"t","tag":[]}', ...Array.from({ length: 30 }, () => '[]')];
  const gold = join(d, 'gold.jsonl');
  writeFileSync(gold, `${lines.join('\n')}\n`);
  const r = run(['eval', '--gold', gold, '--preset', 'textrank']);
  assert.equal(r.status, 3, r.stderr);
  oneLine(r.stderr);
  assert.match(r.stderr, /gold\.jsonl: 33 bad lines: .*gold\.jsonl:2: invalid JSON.*; .*gold\.jsonl:4: field "text" is not a string.*; .*gold\.jsonl:5: field "tag" is empty.*; .*gold\.jsonl:6: expected a JSON object.*; … and 13 more/u);
});

test('tag: SIGINT says what is saved and how to resume (exit 130); the resumed output is complete', { skip }, async () => {
  const kg = await demoSnapshot();
  const d = mkdtempSync(join(tmpdir(), 'filmkw-sigint-'));
  const input = join(d, 'in.jsonl');
  writeFileSync(input, `${longDocs(10000).join('\n')}\n`);
  const out = join(d, 'out.jsonl');
  const p = start(['tag', input, '--kg', kg, '--out', out]);
  for (let i = 0; i < 2400; i++) {
    if (existsSync(`${out}.progress.json`) && JSON.parse(readFileSync(`${out}.progress.json`, 'utf8')).records > 0) break;
    await new Promise((r) => setTimeout(r, 25));
  }
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

test('tag --workers 10 (and more): no MaxListeners warning, the same output as one worker', { skip }, async () => {
  const kg = await demoSnapshot();
  const d = mkdtempSync(join(tmpdir(), 'filmkw-w10-'));
  const input = join(d, 'in.jsonl');
  writeFileSync(input, `${longDocs(40).join('\n')}\n`);
  const one = run(['tag', input, '--kg', kg, '--preset', 'textrank']);
  const many = run(['tag', input, '--kg', kg, '--preset', 'textrank', '--workers', '11']);
  assert.equal(many.status, 0, many.stderr);
  assert.doesNotMatch(many.stderr, /MaxListeners|Warning/u);
  assert.equal(many.stdout, one.stdout);
});

test('html records --mode rendered: SIGTERM / SIGINT exit 143 / 130, only complete pages are written, no chromium is left', { skip: skip || (!chromium && 'needs Debian chromium at /usr/bin/chromium') }, async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-sigrender-'));
  const pages = join(d, 'pages');
  mkdirSync(pages);
  for (let i = 0; i < 200; i++) copyFileSync(join(FIX, 'html', 'records', 'douban-list.html'), join(pages, `p${String(i).padStart(3, '0')}.html`));
  for (const [sig, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    const out = join(d, `${sig}.jsonl`);
    const p = start(['html', 'records', pages, '--mode', 'rendered', '--out', out], 'ignore');
    // wait until some pages are written, then look at chromium and send the signal
    for (let i = 0; i < 1200 && !(existsSync(out) && readFileSync(out, 'utf8').split('\n').length > 8); i++) await new Promise((r) => setTimeout(r, 25));
    const kids = descendants(p.child.pid!);
    assert.ok(kids.length > 0, 'chromium runs');
    p.child.kill(sig);
    assert.equal(await p.done, code, p.stderr());
    assert.match(p.stderr(), new RegExp(`filmkw: html records: interrupted \\(${sig}\\) after \\d+ of 200 page\\(s\\)`, 'u'));
    assert.doesNotMatch(p.stderr(), /\n\s+at |internal error/u);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { file?: string; error?: string; n?: number });
    assert.ok(lines.every((l) => l.error === undefined && l.file !== undefined), 'no error record for the pages cut by the signal');
    assert.equal(lines.length % 4, 0, 'whole pages only (4 records each)');
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(kids.filter(alive), [], 'no chromium process is left');
  }
});
