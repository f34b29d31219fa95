/**
 * Issue 17, data loss, through bin/filmkw (run `npm run build` first): no command overwrites one of its
 * inputs (compared by device and inode: hard link, symlink, symlinked directory); two runs on one --out
 * do not both write it; an unbalanced csv quote costs one record; --resume notices an input edited in
 * place; a failed first --resume run leaves nothing behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSnapshot } from '../batch/demo-kg.js';
import { filmkw } from '../cli/in-process.js';
import { until } from '../helpers/wait.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const built = existsSync(join(root, 'dist', 'cli', 'main.js'));
const skip = built ? false : 'dist/ is missing: run `npm run build` first';
const run = (args: string[], opts: { cwd?: string; input?: string } = {}) => filmkw(args, opts);
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const oneLine = (stderr: string) => {
  assert.equal(stderr.trimEnd().split('\n').filter((l) => l.startsWith('filmkw:')).length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at |internal error/u, stderr);
};
const doc = (i: number) => `{"id":"d${i}","text":"第${i}条：《长津湖》里易烊千玺扮演伍万里，吴京饰演的连长伍千里是他的哥哥。"}`;

test('an output that is an input (same path, hard link, symlink, symlinked directory) is refused for every writing command; the input is intact', { skip }, async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-sameout-'));
  const kg = await demoSnapshot();
  const input = join(d, 'in.jsonl');
  writeFileSync(input, `${doc(1)}\n${doc(2)}\n`);
  linkSync(input, join(d, 'hard.jsonl'));
  symlinkSync(input, join(d, 'sym.jsonl'));
  symlinkSync(d, join(d, 'via'));
  const before = sha(input);
  for (const out of ['in.jsonl', 'hard.jsonl', 'sym.jsonl', 'via/in.jsonl']) {
    const r = await run(['tag', 'in.jsonl', '--kg', kg, '--out', out], { cwd: d });
    assert.equal(r.status, 2, `${out}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`filmkw: tag: --out ${out} is the input in\\.jsonl.*writing it would destroy the input`, 'u'));
    oneLine(r.stderr);
    assert.equal(sha(input), before, out);
  }
  // --out onto the KG snapshot read by the same run
  const kgCopy = join(d, 'kg.fkg');
  writeFileSync(kgCopy, readFileSync(kg));
  const kgBefore = sha(kgCopy);
  const onKg = await run(['tag', 'in.jsonl', '--kg', 'kg.fkg', '--out', 'kg.fkg'], { cwd: d });
  assert.equal(onKg.status, 2, onKg.stderr);
  assert.equal(sha(kgCopy), kgBefore);

  // kg import --out onto one of its sources: a kgqa file (through a hard link) and a file of a csv directory
  const kgqa = join(d, 'movies.txt');
  writeFileSync(kgqa, readFileSync(join(root, 'test', 'fixtures', 'kg-sources', 'kgqa', 'movies.txt')));
  linkSync(kgqa, join(d, 'movies-link.fkg'));
  const csvDir = join(d, 'csv');
  mkdirSync(csvDir);
  for (const f of ['entities.csv', 'relations.csv']) writeFileSync(join(csvDir, f), readFileSync(join(root, 'test', 'fixtures', 'kg-sources', 'csv-good', f)));
  const kgqaBefore = sha(kgqa);
  const entBefore = sha(join(csvDir, 'entities.csv'));
  for (const [out, src] of [['movies-link.fkg', 'kgqa:movies.txt'], ['csv/entities.csv', 'csv:csv'], ['via/csv/relations.csv', 'csv:csv']]) {
    const r = await run(['kg', 'import', '--out', out, src], { cwd: d });
    assert.equal(r.status, 2, `${out}: ${r.stderr}`);
    assert.match(r.stderr, /filmkw: kg import: --out .* is the input .*writing it would destroy the input/u);
    oneLine(r.stderr);
  }
  assert.equal(sha(kgqa), kgqaBefore);
  assert.equal(sha(join(csvDir, 'entities.csv')), entBefore);

  // html text / html records --out onto one of the input pages; dict export --out onto its --kg
  const pages = join(d, 'pages');
  mkdirSync(pages);
  const page = join(pages, 'a.html');
  writeFileSync(page, readFileSync(join(root, 'test', 'fixtures', 'html', 'records', 'douban-list.html')));
  const pageBefore = sha(page);
  for (const args of [['html', 'text', 'pages', '--out', 'pages/a.html'], ['html', 'records', 'pages', '--mode', 'structural', '--out', 'via/pages/a.html'], ['html', 'text', 'pages/a.html', '--out', 'pages/a.html']]) {
    const r = await run(args, { cwd: d });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /is the input .*writing it would destroy the input/u);
    oneLine(r.stderr);
  }
  assert.equal(sha(page), pageBefore);
  const dict = await run(['dict', 'export', '--kg', 'kg.fkg', '--out', 'kg.fkg'], { cwd: d });
  assert.equal(dict.status, 2, dict.stderr);
  assert.match(dict.stderr, /filmkw: dict export: --out kg\.fkg is the input kg\.fkg/u);
  assert.equal(sha(kgCopy), kgBefore);
  // a new output file next to the inputs is fine
  const ok = await run(['tag', 'in.jsonl', '--kg', kg, '--out', 'via/out.jsonl'], { cwd: d });
  assert.equal(ok.status, 0, ok.stderr);
  assert.deepEqual(readFileSync(join(d, 'out.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l).id), ['d1', 'd2']);
});

test('two runs on one --out: the second fails at once naming the first, the first completes intact; a stale lock is taken over', { skip }, async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-lock-'));
  const kg = await demoSnapshot();
  const input = join(d, 'in.jsonl');
  writeFileSync(input, `${doc(0)}\n`);
  const out = join(d, 'out.jsonl');
  // The first run reads stdin, which the test keeps open: it holds the lock until the test ends stdin.
  const first = spawn(process.execPath, [join(root, 'bin', 'filmkw'), 'tag', '-', '--format', 'jsonl', '--kg', kg, '--preset', 'textrank', '--out', out], { stdio: ['pipe', 'ignore', 'pipe'] });
  let firstErr = '';
  first.stderr.on('data', (b: Buffer) => (firstErr += b.toString()));
  const firstDone = new Promise<number | null>((r) => first.on('close', r));
  first.stdin.write(`${doc(1)}\n${doc(2)}\n`);
  // the first run holds the lock and has created its output (so that alias.jsonl below is not a dangling link)
  await until('the first run to take the lock and create its output', () => existsSync(`${out}.lock`) && existsSync(out));
  symlinkSync(out, join(d, 'alias.jsonl'));
  const others = [
    await run(['tag', input, '--kg', kg, '--preset', 'textrank', '--out', out]),
    await run(['tag', input, '--kg', kg, '--preset', 'textrank', '--out', out, '--resume']),
    await run(['tag', input, '--kg', kg, '--preset', 'textrank', '--out', join(d, 'alias.jsonl')]),
    await run(['html', 'text', join(root, 'test', 'fixtures', 'html', 'records', 'douban-list.html'), '--out', join(d, 'alias.jsonl')]),
  ];
  first.stdin.end(`${doc(3)}\n`);
  assert.equal(await firstDone, 0, firstErr);
  for (const r of others) {
    assert.equal(r.status, 7, r.stderr);
    assert.match(r.stderr, new RegExp(`is being written by another filmkw run \\(pid ${first.pid} on .*filmkw tag - --format jsonl`, 'u'));
    oneLine(r.stderr);
  }
  assert.deepEqual(readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l).id), ['d1', 'd2', 'd3']);
  assert.ok(!existsSync(`${out}.lock`), 'the lock is released');
  // a lock left by a process that no longer exists (SIGKILL) does not block the next run
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  writeFileSync(`${out}.lock`, JSON.stringify({ pid: Number(dead.stdout), host: hostname(), command: 'filmkw tag', started: new Date().toISOString() }));
  const after = await run(['tag', input, '--kg', kg, '--preset', 'textrank', '--out', out]);
  assert.equal(after.status, 0, after.stderr);
  assert.ok(!existsSync(`${out}.lock`));
});

test('csv: an unbalanced quote "closed" by a later row costs that one record; every other record comes out', { skip }, async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-csvq-'));
  const kg = await demoSnapshot();
  const csv = join(d, 'q.csv');
  // line 3 opens a quote that line 4's opening quote "closes"; line 6 opens one that the quote at the end
  // of line 8 closes: that is a well-formed multi-line field, indistinguishable from a legitimate one
  writeFileSync(csv, 'id,text\n1,《长津湖》\n2,"伍万里\n3,"程蝶衣",x\n4,吴京\n5,"霸王别姬\n6,张国荣\n7,尾"\n8,易烊千玺\n');
  const r = await run(['tag', csv, '--kg', kg, '--preset', 'textrank', '--id-field', 'id']);
  assert.equal(r.status, 0, r.stderr);
  const recs = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string | null; line?: number; error?: string });
  // line 3's row is the error record, line 4 is read again (and has three fields)
  assert.deepEqual(
    recs.map((x) => [x.id, x.error === undefined ? 'ok' : x.line]),
    [['1', 'ok'], [null, 3], ['3', 4], ['4', 'ok'], ['5', 'ok'], ['8', 'ok']],
    r.stdout,
  );
  assert.match(recs[1].error!, /quote opened on line 3 .*row skipped, the lines after it are read again/u);
  assert.match(r.stderr, /tag: 6 records \(4 tagged, 2 error records\)/u);
});

test('a failed first --resume run leaves no output and no checkpoint; the corrected command then runs', { skip }, async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-failfirst-'));
  const kg = await demoSnapshot();
  const csv = join(d, 'in.csv');
  writeFileSync(csv, 'id,body\n1,《长津湖》\n');
  const out = join(d, 'out.jsonl');
  const bad = await run(['tag', csv, '--kg', kg, '--out', out, '--resume']);
  assert.equal(bad.status, 3, bad.stderr);
  assert.match(bad.stderr, /no text column "text"/u);
  assert.ok(!existsSync(out) && !existsSync(`${out}.progress.json`) && !existsSync(`${out}.lock`), 'nothing left behind');
  const good = await run(['tag', csv, '--kg', kg, '--out', out, '--resume', '--text-field', 'body']);
  assert.equal(good.status, 0, good.stderr);
  assert.equal(readFileSync(out, 'utf8').trimEnd().split('\n').length, 1);
});
