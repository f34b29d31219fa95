/**
 * `filmkw tag --format html` (src/io/readers.ts html format): one record per page of a file or a
 * directory, same ids and texts as `filmkw html text` piped into `filmkw tag --id-field id`, error
 * records for bad pages, format inferred for .html files and directories. Run `npm run build` first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRecords } from '../../src/io/readers.js';
import { filmkw } from './in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const FIX = join(root, 'test', 'fixtures', 'html', 'maintext');
const run = (args: string[], input?: string) => filmkw(args, { input });

function pagesDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-taghtml-'));
  mkdirSync(join(d, 'z'));
  copyFileSync(join(FIX, 'decay.html'), join(d, 'z', 'review.html'));
  copyFileSync(join(FIX, 'jsonld.html'), join(d, 'a.html'));
  copyFileSync(join(FIX, 'br-text.html'), join(d, 'b.htm'));
  writeFileSync(join(d, 'c-empty.html'), '');
  return d;
}

test('reader: html records in sorted path order, error record for a bad page', async () => {
  const d = pagesDir();
  const recs = [];
  for await (const r of readRecords(d, { format: 'html' })) recs.push(r);
  assert.deepEqual(recs.map((r) => [r.line, r.id, 'error' in r]), [[1, 'a.html', false], [2, 'b.htm', false], [3, 'c-empty.html', true], [4, 'z/review.html', false]]);
  assert.match((recs[3] as { text: string }).text, /^《霸王别姬》由陈凯歌执导/);
  assert.match((recs[2] as { error: string }).error, /c-empty\.html: empty page/);
  const small = [];
  for await (const r of readRecords(join(d, 'a.html'), { format: 'html', maxRecordBytes: 100 })) small.push(r);
  assert.match((small[0] as { error: string }).error, /larger than 100 bytes/);
  await assert.rejects(async () => {
    for await (const _ of readRecords(d, { format: 'html', textField: 'x' })) void _;
  }, /do not apply to --format html/);
});

test('tag --format html <dir> = html text | tag --id-field id; directory and .html inferred', async () => {
  const d = pagesDir();
  const one = await run(['tag', '--format', 'html', d, '--top', '4']);
  assert.equal(one.status, 0, one.stderr);
  const lines = one.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; keywords?: unknown; error?: string });
  assert.deepEqual(lines.map((l) => l.id), ['a.html', 'b.htm', 'c-empty.html', 'z/review.html']);
  assert.ok(lines[2]!.error);
  const inferred = await run(['tag', d, '--top', '4']);
  assert.equal(inferred.status, 0, inferred.stderr);
  assert.equal(inferred.stdout, one.stdout);
  const text = await run(['html', 'text', d]);
  const two = await run(['tag', '--format', 'jsonl', '--id-field', 'id', '-', '--top', '4'], text.stdout);
  assert.equal(two.status, 0, two.stderr);
  const strip = (s: string) => s.trim().split('\n').map((l) => JSON.parse(l) as { id: string; keywords?: unknown }).filter((l) => l.keywords).map((l) => JSON.stringify([l.id, l.keywords]));
  assert.deepEqual(strip(two.stdout), strip(one.stdout));
  const file = await run(['tag', join(d, 'z', 'review.html'), '--top', '4']);
  assert.equal(file.status, 0, file.stderr);
  assert.equal((JSON.parse(file.stdout) as { id: string }).id, 'review.html');
  const bad = await run(['tag', '--format', 'html', d, '--text-field', 'x']);
  assert.equal(bad.status, 2, bad.stderr);
});
