/**
 * Issue 17, crashes and wrong exits, through bin/filmkw (run `npm run build` first): a closed stdout is
 * exit 7 with one line on every command; symlink loops and dangling links in page directories are
 * error records (or skips) with the reason; `eval` reports every bad gold line. 10+ workers (no MaxListeners warning):
 * slow/many-workers.test.ts. The signal cases (SIGINT/SIGTERM on `tag` and the rendered mode) take longer
 * and are in slow/signals.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSnapshot } from '../batch/demo-kg.js';
import { startCli as start } from './cli-helpers.js';
import { filmkw } from '../cli/in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const skip = existsSync(join(root, 'dist', 'cli', 'main.js')) ? false : 'dist/ is missing: run `npm run build` first';
const run = (args: string[], input?: string) => filmkw(args, { input });
const oneLine = (stderr: string) => {
  assert.equal(stderr.trimEnd().split('\n').filter((l) => l.startsWith('filmkw:')).length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at |internal error|Warning/u, stderr);
};
const FIX = join(root, 'test', 'fixtures');


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

test('page directories with a symlink loop, a dangling link and a link to a directory: error records or skips with the reason', { skip }, async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-links-'));
  const pages = join(d, 'pages');
  mkdirSync(join(pages, 'sub'), { recursive: true });
  copyFileSync(join(FIX, 'html', 'records', 'douban-list.html'), join(pages, 'a.html'));
  symlinkSync('..', join(pages, 'sub', 'up'));
  symlinkSync('missing.html', join(pages, 'dangling.html'));
  symlinkSync('self.html', join(pages, 'self.html'));
  const records = await run(['html', 'records', pages, '--mode', 'structural']);
  assert.equal(records.status, 0, records.stderr);
  const lines = records.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { id?: string; file?: string; error?: string });
  const errors = lines.filter((l) => l.error !== undefined);
  assert.deepEqual(errors, [
    { id: 'dangling.html', error: 'html records: dangling.html: skipped: dangling symlink (its target does not exist)' },
    { id: 'self.html', error: 'html records: self.html: skipped: symlink loop (ELOOP)' },
    { id: 'sub/up', error: 'html records: sub/up: skipped: symlink loop (a directory already listed through another path)' },
  ]);
  assert.ok(lines.some((l) => l.file === 'a.html'), 'the good page is read');
  const text = await run(['html', 'text', pages]);
  assert.equal(text.status, 0, text.stderr);
  assert.deepEqual(text.stdout.trimEnd().split('\n').map((l) => JSON.parse(l).id), ['a.html', 'dangling.html', 'self.html', 'sub/up']);
  const tag = await run(['tag', pages, '--preset', 'textrank']);
  assert.equal(tag.status, 0, tag.stderr);
  assert.match(tag.stderr, /tag: 4 records \(1 tagged, 3 error records\)/u);
  const kg = await run(['kg', 'import', '--out', join(d, 'kg.fkg'), `html-list:${pages}`]);
  assert.equal(kg.status, 0, kg.stderr);
  assert.match(kg.stderr, /3× html-list: unreadable directory entry .*dangling symlink/u);
});

test('eval reports every bad gold line (up to 20) in one run', { skip }, async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-gold-'));
  const good = (i: number) => JSON.stringify({ id: `g${i}`, text: '《霸王别姬》', tag: ['霸王别姬'] });
  const lines = [good(1), '{bad json', good(2), '{"id":"x","text":1,"tag":["a"]}', '{"id":"y","text":"t","tag":[]}', ...Array.from({ length: 30 }, () => '[]')];
  const gold = join(d, 'gold.jsonl');
  writeFileSync(gold, `${lines.join('\n')}\n`);
  const r = await run(['eval', '--gold', gold, '--preset', 'textrank']);
  assert.equal(r.status, 3, r.stderr);
  oneLine(r.stderr);
  assert.match(r.stderr, /gold\.jsonl: 33 bad lines: .*gold\.jsonl:2: invalid JSON.*; .*gold\.jsonl:4: field "text" is not a string.*; .*gold\.jsonl:5: field "tag" is empty.*; .*gold\.jsonl:6: expected a JSON object.*; … and 13 more/u);
});
