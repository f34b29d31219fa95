/**
 * Reliability of `filmkw tag` through bin/filmkw (issue 5): bad input files never crash the run and
 * never drop a record; every user or environment mistake ends with one clear line on stderr and a
 * documented exit code, not a stack trace. Run `npm run build` first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoSnapshot } from '../batch/demo-kg.js';
import { filmkw } from '../cli/in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = (args: string[], input?: string | Buffer) => filmkw(args, { input });
const dir = mkdtempSync(join(tmpdir(), 'filmkw-clierr-'));
const file = (name: string, data: string | Buffer) => {
  const p = join(dir, name);
  writeFileSync(p, data);
  return p;
};
const records = (stdout: string) => (stdout === '' ? [] : stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string | null; line?: number; error?: string; keywords?: unknown[] }));
const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at |internal error/u, s);

test('bad input files: one output record per non-blank line, exit 0, no stack trace', async () => {
  const kg = await demoSnapshot();
  const garbage = Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919 + (i >> 3)) % 256));
  const cases: [string, string | Buffer, string[], number][] = [
    ['garbage.jsonl', garbage, [], garbage.toString('utf8').split('\n').filter((l) => l.replace(/\r$/u, '').trim() !== '').length],
    ['garbage.txt', garbage, [], garbage.toString('utf8').split('\n').filter((l) => l.replace(/\r$/u, '').trim() !== '').length],
    ['bad-utf8.jsonl', Buffer.concat([Buffer.from('{"text":"长津'), Buffer.from([0xe6, 0xb9]), Buffer.from('湖"}\n{"text":"ok"}\n')]), [], 2],
    ['bom-crlf.csv', '\uFEFFid,text\r\n1,"《长津湖》\r\n易烊千玺"\r\n\r\n2,"unbalanced\r\n3,after\r\n', ['--id-field', 'id'], 3],
    ['empty.jsonl', '', [], 0],
    ['blank.txt', '\n\n   \r\n', [], 0],
    ['punct.txt', '！！！\n……\n🎬🍿\nOnly Latin\n', [], 4],
    ['mixed.tsv', 'text\n電影\n"引号\nx\ty\n', [], 3],
  ];
  for (const [name, data, extra, expected] of cases) {
    const r = await run(['tag', file(name, data), '--kg', kg, '--preset', 'textrank', ...extra]);
    assert.equal(r.status, 0, `${name}: ${r.stderr}`);
    noStack(r.stderr);
    const recs = records(r.stdout);
    assert.equal(recs.length, expected, name);
    assert.match(r.stderr, new RegExp(`tag: ${expected} records`, 'u'), name);
    for (const x of recs) assert.ok(x.keywords !== undefined || (typeof x.error === 'string' && typeof x.line === 'number'), `${name}: ${JSON.stringify(x)}`);
  }
  const bad = await run(['tag', join(dir, 'bad-utf8.jsonl'), '--kg', kg]);
  assert.match(bad.stderr, /1 with invalid UTF-8 \(replaced by U\+FFFD\)/u);
  const csv = records((await run(['tag', join(dir, 'bom-crlf.csv'), '--kg', kg, '--id-field', 'id'])).stdout);
  assert.deepEqual(csv.map((x) => [x.id, x.line ?? null, x.error ?? null]), [['1', null, null], [null, 5, 'quote opened on line 5 is never closed; row skipped'], ['3', null, null]]);
});

test('environment mistakes: input is a directory (3), output is a directory (7), output closed early (7); clear one-line messages', async () => {
  const kg = await demoSnapshot();
  const inDir = await run(['tag', dir, '--format', 'jsonl', '--kg', kg]);
  assert.equal(inDir.status, 3);
  assert.match(inDir.stderr, /input is a directory/u);
  noStack(inDir.stderr);
  const src = file('some.txt', Array.from({ length: 3000 }, (_, i) => `第${i}条：《长津湖》里易烊千玺扮演伍万里。`).join('\n'));
  const outDir = await run(['tag', src, '--kg', kg, '--out', dir]);
  assert.equal(outDir.status, 7, outDir.stderr);
  assert.match(outDir.stderr, /cannot write .*EISDIR/u);
  noStack(outDir.stderr);
  // Like `filmkw tag big.txt | head -1`: the reader goes away after the first line.
  const child = spawn(process.execPath, ['bin/filmkw', 'tag', src, '--kg', kg, '--preset', 'textrank'], { cwd: root });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 7, stderr);
  assert.match(stderr, /output was closed early \(EPIPE/u);
  noStack(stderr);
});

test('stdin: records from a pipe, and an empty pipe gives no records', async () => {
  const kg = await demoSnapshot();
  const r = await run(['tag', '-', '--format', 'txt', '--kg', kg, '--preset', 'textrank'], '《霸王别姬》\n\n程蝶衣\n');
  assert.equal(r.status, 0, r.stderr);
  // stdin to stdout is the Unix filter (src/batch/pipe.ts): one line per input line, the blank one too
  assert.deepEqual(records(r.stdout).map((x) => x.id), [null, null, null]);
  assert.equal(r.stdout.split('\n')[1], '{"id":null,"keywords":[]}');
  const e = await run(['tag', '--format', 'jsonl', '--kg', kg], '');
  assert.equal(e.status, 0, e.stderr);
  assert.equal(e.stdout, '');
  assert.match(e.stderr, /tag: 0 records/u);
});
