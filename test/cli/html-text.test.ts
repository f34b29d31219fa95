/**
 * `filmkw html text` through bin/filmkw (run `npm run build` first): JSONL one line per page in sorted
 * path order, error records for bad pages, --out, option errors, exit codes; output feeds `filmkw tag`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filmkw } from './in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const FIX = join(root, 'test', 'fixtures', 'html', 'maintext');
const run = (...args: string[]) => filmkw(args);

function pagesDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-htmltext-'));
  mkdirSync(join(d, 'b'));
  copyFileSync(join(FIX, 'decay.html'), join(d, 'b', 'review.htm'));
  copyFileSync(join(FIX, 'jsonld.html'), join(d, 'a.html'));
  copyFileSync(join(FIX, 'truncated.html'), join(d, 'c-truncated.html'));
  writeFileSync(join(d, 'd-empty.html'), '');
  writeFileSync(join(d, 'e-binary.html'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
  writeFileSync(join(d, 'notes.txt'), 'not a page');
  return d;
}

test('html text <dir>: one line per page, sorted, error records for bad pages, exit 0', async () => {
  const d = pagesDir();
  const r = await run('html', 'text', d);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
  assert.deepEqual(lines.map((l) => l.id), ['a.html', 'b/review.htm', 'c-truncated.html', 'd-empty.html', 'e-binary.html']);
  assert.deepEqual(Object.keys(lines[0]!), ['id', 'url', 'title', 'text', 'author', 'date']);
  assert.equal(lines[0]!.author, '新京报书评周刊');
  assert.match(lines[1]!.text!, /^《霸王别姬》由陈凯歌执导/);
  assert.match(lines[2]!.error!, /c-truncated\.html: no main text found \(the page looks truncated/);
  assert.match(lines[3]!.error!, /d-empty\.html: empty page/);
  assert.match(lines[4]!.error!, /e-binary\.html: not HTML/);
  assert.match(r.stderr, /5 page\(s\), 2 with main text, 3 error record\(s\)/);
  const again = await run('html', 'text', d);
  assert.equal(again.stdout, r.stdout, 'deterministic');
  assert.equal((await run('html', 'text', d, '--fail-on-error')).status, 1);
});

test('html text: a truncated page that still holds its main text, and a charset that does not fit, come with a warning', async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-htmltext-warn-'));
  const body = '<p>' + '第一段影评正文，讲述电影的故事和人物。'.repeat(8) + '</p><p>' + '第二段影评正文，谈表演与摄影。'.repeat(8) + '</p>';
  writeFileSync(join(d, 'cut.html'), `<html><head><meta charset="utf-8"><title>影评</title></head><body><div id="nav"><a href="/">首页</a><a href="/x">影评</a></div><div id="main">${body}`);
  writeFileSync(join(d, 'gbk-declared.html'), `<html><head><meta charset="gbk"><title>影评</title></head><body><div id="main">${body}</div></body></html>`);
  const r = await run('html', 'text', d);
  assert.equal(r.status, 0, r.stderr);
  const [cut, gbk] = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
  assert.match(cut!.text!, /^第一段影评正文/);
  assert.match(cut!.text!, /第二段影评正文，谈表演与摄影。$/);
  assert.match(cut!.warning!, /^no <\/body> or <\/html> at the end; the page may be truncated$/);
  assert.match(gbk!.warning!, /^declared charset gbk but the bytes are valid UTF-8; decoded as UTF-8$/);
  assert.match(gbk!.text!, /^第一段影评正文/);
});

test('html text <file> --out; the output is read by filmkw tag', async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-htmltext-out-'));
  const out = join(d, 'pages.jsonl');
  const r = await run('html', 'text', join(FIX, 'decay.html'), '--out', out);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '');
  const rec = JSON.parse(readFileSync(out, 'utf8').trim()) as { id: string; text: string };
  assert.equal(rec.id, 'decay.html');
  const t = await run('tag', out, '--top', '3');
  assert.equal(t.status, 0, t.stderr);
  const tagged = JSON.parse(t.stdout.trim().split('\n')[0]!) as { id: unknown };
  assert.equal(tagged.id, 'decay.html', 'tag uses the record\'s own id');
});

test('html text: --stop-at child keeps one paragraph; option and path errors', async () => {
  const r = await run('html', 'text', join(FIX, 'decay.html'), '--stop-at', 'child');
  assert.equal(r.status, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as { text: string }).text.split('\n').length, 1);
  const bad: [string[], number, RegExp][] = [
    [['html', 'text', join(FIX, 'decay.html'), '--decay', '2'], 2, /--decay must be a number in \[0, 1\]/],
    [['html', 'text', join(FIX, 'decay.html'), '--stop-at', 'parent'], 2, /--stop-at must be current or child/],
    [['html', 'text', join(FIX, 'no-such-dir')], 3, /html text: .*no-such-dir: no such file or directory/],
    [['html', 'text', join(FIX, 'decay.html'), '--out', join(FIX, 'no', 'dir', 'x.jsonl')], 7, /cannot write/],
  ];
  for (const [args, code, re] of bad) {
    const x = await run(...args);
    assert.equal(x.status, code, `${args.join(' ')}: ${x.stderr}`);
    assert.match(x.stderr, re);
  }
});
