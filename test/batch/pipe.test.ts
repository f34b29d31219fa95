/**
 * `filmkw tag - --format jsonl` (stdin to stdout, no extra flag), the Unix-filter contract
 * (src/batch/pipe.ts), run in this process (test/cli/in-process.ts): partitions through separate runs
 * concatenate to one run (./pipe-cases.ts; the txt case through bin/filmkw processes with real pipes, as
 * Spark's RDD.pipe does, is test/integration/batch/pipe-processes.test.ts), `tag - --out` is not a filter,
 * UTF-16 and GBK input, csv, `--pipe` and the document context.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { partitionsConcatenate, tag, texts } from './pipe-cases.js';

for (const format of ['jsonl', 'jsonl-noid'] as const) {
  test(`tag - --format jsonl${format === 'jsonl-noid' ? ' (records without ids)' : ''}: partitions through separate runs concatenate to one run`, () => partitionsConcatenate(format, false));
}

test('tag - --out FILE is not a filter: ids are line numbers, error records carry their line, blank lines are not records', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'filmkw-pipe-')), 'o.jsonl');
  const r = await tag(['--format', 'jsonl', '--out', out], '{"text":"程蝶衣"}\n\n{"id":7,"text":"巩俐"}\n{"text":\n');
  assert.equal(r.status, 0, r.stderr);
  const recs = readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string; line?: number });
  assert.deepEqual(recs.map((x) => [x.id, x.line]), [['1', undefined], ['7', undefined], ['4', 4]]);
  // the same input to stdout: the filter
  const f = await tag(['--format', 'jsonl'], '{"text":"程蝶衣"}\n\n{"id":7,"text":"巩俐"}\n{"text":\n');
  assert.deepEqual(f.stdout.trimEnd().split('\n').map((l) => (JSON.parse(l) as { id: string | null }).id), [null, null, '7', null]);
  assert.doesNotMatch(f.stdout, /"line":/u);
});

test('tag - in UTF-16 (by its BOM) and GBK: one line out per line in, as for UTF-8 (lines are counted after decoding)', async () => {
  // 上 is 0A 4E in UTF-16LE: a byte count of 0x0A would see an extra line
  const text = '上海的电影\n\n程蝶衣上场\n\n';
  const utf8 = await tag(['--format', 'txt'], text);
  assert.equal(utf8.stdout.split('\n').length - 1, 4);
  const le = await tag(['--format', 'txt'], Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
  assert.equal(le.status, 0, le.stderr);
  assert.equal(le.stdout, utf8.stdout);
  assert.match(le.stderr, /read as utf-16le/u);
  const gbk = await tag(['--format', 'txt', '--encoding', 'gbk'], iconv.encode(text, 'gbk'));
  assert.equal(gbk.stdout, utf8.stdout);
});

test('tag - --format csv is not a filter (a header row): the record id is its line number, as from a file', async () => {
  const r = await tag(['--format', 'csv'], 'text\n程蝶衣\n');
  assert.equal(r.status, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as { id: string }).id, '2');
});

test('tag --pipe takes only one-record-per-line formats', async () => {
  const r = await tag(['--format', 'csv', '--pipe'], 'text\na\n');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^filmkw: tag: --pipe reads one record per line: --format txt or jsonl, not csv\n$/u);
});

test('tag - --film-field --title-field (the document context) keeps the filter contract: partitions concatenate to one run, one line per line', async () => {
  const films = ['长津湖', '没有这部电影', ''];
  const input = texts.map((t, i) => JSON.stringify({ id: `f${i}`, text: t.replace(/\s+/gu, ' '), film: films[i % 3], headline: `标题${i}` }));
  const args = ['--format', 'jsonl', '--id-field', 'id', '--film-field', 'film', '--title-field', 'headline', '--explain'];
  const whole = await tag(args, `${input.join('\n')}\n`);
  assert.equal(whole.status, 0, whole.stderr);
  assert.equal(whole.stdout.trimEnd().split('\n').length, input.length);
  assert.match(whole.stderr, /tag: WARNING: 1 film of \d+ records? not in the KG \("没有这部电影"\)/u);
  let joined = '';
  for (const [a, b] of [[0, 2], [2, input.length]]) joined += (await tag(args, `${input.slice(a, b).join('\n')}\n`)).stdout;
  assert.equal(joined, whole.stdout);
});
