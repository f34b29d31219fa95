/**
 * Issue 5 through bin/filmkw (run `npm run build` first): a truncated, foreign, empty or half-written KG
 * snapshot given to any command that reads a KG fails with one clear line naming the file and exit 3;
 * an import whose output cannot be written fails with exit 7 and says why; an import of a source with
 * nothing readable (wrong path or wrong format) fails with exit 3 and leaves an existing snapshot as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSnapshot } from '../batch/demo-kg.js';
import { filmkw } from '../cli/in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const built = existsSync(join(root, 'dist/cli/main.js'));
const SKIP = !built && 'needs `npm run build` (dist/)';
const run = (args: string[], input?: string) => filmkw(args, { input });
const dir = mkdtempSync(join(tmpdir(), 'filmkw-clikg-'));
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** stderr ends with exactly one "filmkw: …" error line and holds no stack trace. */
function oneLine(stderr: string, re: RegExp): void {
  assert.doesNotMatch(stderr, /\n\s+at |internal error|Error:/u, stderr);
  const errors = stderr.split('\n').filter((l) => l.startsWith('filmkw: '));
  assert.equal(errors.length, 1, stderr);
  assert.match(errors[0], re);
  assert.ok(stderr.endsWith(errors[0] + '\n'), stderr);
}

test('a broken snapshot given to kg stats, tag and dict export: exit 3, one line naming the file and the reason', { skip: SKIP }, async () => {
  const good = readFileSync(await demoSnapshot());
  const cases: [string, Buffer, RegExp][] = [
    ['truncated.fkg', good.subarray(0, Math.floor(good.length / 2)), /truncated file \(\d+ bytes, the header says \d+\) — the write was interrupted or the copy is incomplete$/],
    ['header-only.fkg', good.subarray(0, 40), /truncated file \(40 bytes; the header alone needs \d+\)$/],
    ['magic-only.fkg', good.subarray(0, 6), /truncated file \(6 bytes; the header is incomplete\)$/],
    ['foreign.fkg', readFileSync(join(root, 'package.json')), /not a filmkw KG snapshot \(bad magic: expected "FKWKG" at the start of the file\)$/],
    ['entities.csv', readFileSync(join(root, 'kg/demo/entities.csv')), /not a filmkw KG snapshot/],
    ['empty.fkg', Buffer.alloc(0), /empty file \(0 bytes\), not a filmkw KG snapshot$/],
    ['extended.fkg', Buffer.concat([good, Buffer.from('junk')]), /unexpected trailing data/],
    ['flipped.fkg', Buffer.concat([good.subarray(0, good.length - 100), Buffer.from([good[good.length - 100] ^ 0xff]), good.subarray(good.length - 99)]), /checksum mismatch \(the file is corrupt\)$/],
  ];
  for (const [name, bytes, why] of cases) {
    const p = join(dir, name);
    writeFileSync(p, bytes);
    const prefix = new RegExp(`^filmkw: kg snapshot ${esc(p)}: ` + why.source.replace(/^\^/, ''));
    const runs = [
      await run(['kg', 'stats', '--kg', p]),
      await run(['tag', '--format', 'txt', '--kg', p], '《长津湖》\n'),
      await run(['tag', '--format', 'txt', '--kg', p, '--workers', '2'], '《长津湖》\n'),
      await run(['dict', 'export', '--kg', p, '--out', join(dir, `${name}.dict`)]),
    ];
    for (const r of runs) {
      assert.equal(r.status, 3, `${name}: ${r.stderr}`);
      oneLine(r.stderr, prefix);
      assert.equal(r.stdout, '', name);
    }
    assert.ok(!existsSync(join(dir, `${name}.dict`)), `${name}: no dictionary written`);
  }
});

test('kg import --out that cannot be written: exit 7 with the reason in words, after nothing else changed', { skip: SKIP }, async () => {
  const noDir = join(dir, 'no', 'such', 'kg.fkg');
  const a = await run(['kg', 'import', '--out', noDir, 'csv:kg/demo']);
  assert.equal(a.status, 7, a.stderr);
  oneLine(a.stderr, new RegExp(`^filmkw: kg snapshot ${esc(noDir)}: cannot write \\(the directory ${esc(join(dir, 'no', 'such'))} does not exist, ENOENT\\); nothing was changed at that path$`));
  const isDir = join(dir, 'adir');
  mkdirSync(isDir);
  const b = await run(['kg', 'import', '--out', isDir, 'csv:kg/demo']);
  assert.equal(b.status, 7, b.stderr);
  oneLine(b.stderr, /cannot write \(it is a directory, EISDIR\)/);
  assert.deepEqual(readdirSync(isDir), []);
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.tmp-')), [], 'no temp file left');
});

test('kg import of a source with nothing readable: exit 3, and an existing snapshot at --out is left unchanged', { skip: SKIP }, async () => {
  const out = join(dir, 'keep.fkg');
  const first = await run(['kg', 'import', '--out', out, 'csv:kg/demo']);
  assert.equal(first.status, 0, first.stderr);
  const before = sha(out);
  const headerOnly = join(dir, 'header-only-csv');
  mkdirSync(headerOnly);
  writeFileSync(join(headerOnly, 'entities.csv'), 'id,kind,name,aliases,movie\n');
  writeFileSync(join(headerOnly, 'relations.csv'), 'from,relation,to,movie\n');
  const emptyDir = join(dir, 'no-pages');
  mkdirSync(emptyDir);
  const cases: [string[], RegExp][] = [
    [[`csv:${headerOnly}`], /^filmkw: kg import: csv:.*header-only-csv: no record found; is it in the project csv \(kg\/FORMAT\.md\) format\?$/],
    [[`html-list:${join(root, 'kg/demo/entities.csv')}`], /^filmkw: kg import: html-list:.*entities\.csv: no readable record \(1 bad\); is it in the saved Douban list pages \(HTML\) format\?$/],
    [[`html-list:${emptyDir}`], /^filmkw: kg import: html-list:.*no-pages: no record found/],
    [[`kgqa:${join(root, 'kg/demo/entities.csv')}`], /^filmkw: kg import: kgqa:.*entities\.csv: no readable record \(\d+ bad\); is it in the DouBan-KGQA JSON lines format\?$/],
    [[`douban-csv:${join(root, 'kg/demo/entities.csv')}`], /^filmkw: kg import: entities\.csv:1: missing column\(s\) "movie_id", "title" in the header$/],
    [[`openkg:${join(root, 'kg/demo')}`], /^filmkw: kg import: openkg source .*demo: .*Movie\.csv: no such file or directory$/],
    [['csv:kg/demo', `csv:${headerOnly}`], /no record found/],
  ];
  for (const [srcs, re] of cases) {
    const r = await run(['kg', 'import', '--out', out, ...srcs]);
    assert.equal(r.status, 3, `${srcs}: ${r.stderr}`);
    oneLine(r.stderr, re);
    assert.equal(sha(out), before, `${srcs}: the old snapshot is unchanged`);
  }
});

test('kg import --neo4j: an unreachable server or wrong password fails before the sources are read (exit 4 / 5, one line)', { skip: SKIP }, async () => {
  const { FakeBolt } = await import('../fixtures/neo4j/fake-bolt.js');
  /** Async: the scripted server runs in this process. */
  const runAsync = (args: string[], env: Record<string, string>) =>
    new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const clean = { ...process.env };
      for (const k of Object.keys(clean)) if (k.startsWith('NEO4J_') || k.startsWith('FILMKW_NEO4J_')) delete clean[k];
      const child = spawn(process.execPath, ['bin/filmkw', ...args], { cwd: root, env: { ...clean, ...env } });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (status) => resolve({ status, stderr }));
    });
  // a source that would take long to read, and one that does not even exist: neither is looked at
  const sources = ['csv:kg/demo', `douban-csv:${join(dir, 'no-such.csv')}`];
  const refused = await runAsync(['kg', 'import', '--neo4j', ...sources], { NEO4J_URI: 'bolt://127.0.0.1:1', NEO4J_PASSWORD: 'x' });
  assert.equal(refused.status, 4, refused.stderr);
  oneLine(refused.stderr, /^filmkw: neo4j: cannot connect to bolt:\/\/127\.0\.0\.1:1: is the server running\? \(connect ECONNREFUSED 127\.0\.0\.1:1\)$/);
  assert.doesNotMatch(refused.stderr, /kg import: reading/);
  const fb = await new FakeBolt({ user: 'neo4j', password: 'pw' }).start();
  try {
    const env = { NEO4J_URI: `bolt://127.0.0.1:${fb.port}`, NEO4J_USER: 'neo4j', NEO4J_PASSWORD: 'wrong' };
    const auth = await runAsync(['kg', 'import', '--neo4j', ...sources], env);
    assert.equal(auth.status, 5, auth.stderr);
    oneLine(auth.stderr, /^filmkw: neo4j: authentication failed for user "neo4j" at bolt:\/\/127\.0\.0\.1:\d+: .*; check NEO4J_USER and NEO4J_PASSWORD$/);
    assert.doesNotMatch(auth.stderr, /kg import: reading/);
    // with the right password the missing source is found next (the check does not hide input errors)
    const missing = await runAsync(['kg', 'import', '--neo4j', ...sources], { ...env, NEO4J_PASSWORD: 'pw' });
    assert.equal(missing.status, 3, missing.stderr);
    oneLine(missing.stderr, /^filmkw: kg import: douban-csv source: .*no-such\.csv: no such file or directory$/);
    assert.equal(fb.graph.nodes.size, 0);
  } finally {
    await fb.stop();
  }
});

test('kg import: a douban-csv whose header line is an unclosed quote says so (exit 3), not "empty file"', { skip: SKIP }, async () => {
  const f = join(dir, 'quote-only.csv');
  writeFileSync(f, '"movie_id,title\r\n');
  const r = await run(['kg', 'import', '--out', join(dir, 'q.fkg'), `douban-csv:${f}`]);
  assert.equal(r.status, 3, r.stderr);
  oneLine(r.stderr, /^filmkw: kg import: quote-only\.csv:1: unreadable header \(unclosed quote\)$/);
});
