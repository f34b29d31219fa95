/**
 * What a new user feeds `filmkw tag` (issue 29): a text field no record has (exit 3 with the fields and a
 * guess, nothing written), `.json` files of JSON lines or one JSON array (said on stderr), a folder (its
 * pages, or refused with what it holds; an html folder with --out and --resume), stdin without --format
 * (jsonl when it starts with {, else txt). The commands run in this process (test/cli/in-process.ts); the
 * stdin detection runs once through bin/filmkw with a real pipe (run `npm run build` first). The real
 * douban_reviews.json case is in test/integration/cli/tag-real-data.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filmkw } from './in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = (args: string[], input?: string) => filmkw(args, { input });
/** Through bin/filmkw, stdin a real pipe. */
const binary = (args: string[], input: string) => spawnSync(process.execPath, ['bin/filmkw', ...args], { cwd: root, encoding: 'utf8', input, maxBuffer: 1 << 26 });
const tmp = () => mkdtempSync(join(tmpdir(), 'filmkw-taginputs-'));
const samples = join(root, 'datasets', 'samples', 'reviews.jsonl');
const sampleLines = readFileSync(samples, 'utf8').trim().split('\n');
const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at /u, 'no stack trace');

test('a text field that none of the first records has: exit 3 naming the fields and the likely one; nothing written', async () => {
  const d = tmp();
  const file = join(d, 'reviews.jsonl');
  writeFileSync(file, sampleLines.map((l) => { const r = JSON.parse(l); return JSON.stringify({ id: r.id, review_full: [r.text], rating: ['4'] }); }).join('\n') + '\n');
  const out = join(d, 'out.jsonl');
  const r = await run(['tag', file, '--out', out]);
  assert.equal(r.status, 3, r.stderr);
  assert.equal(r.stderr, `filmkw: tag: ${file}: none of its ${sampleLines.length} records (lines 1–${sampleLines.length}) has the default text field "text" (fields: "id", "review_full", "rating"); did you mean --text-field review_full?\n`);
  assert.equal(existsSync(out), false, 'no output left behind');
  const typo = await run(['tag', file, '--text-field', 'review_ful']);
  assert.equal(typo.status, 3);
  assert.match(typo.stderr, /has --text-field review_ful \(fields: .*\); did you mean --text-field review_full\?\n$/u);
  assert.equal(typo.stdout, '');
  const ok = await run(['tag', file, '--text-field', 'review_full', '--top', '1']);
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout.trim().split('\n').length, sampleLines.length);
  // a record that has the field settles it: the ones before it are error records, exit 0
  const mixed = join(d, 'mixed.jsonl');
  writeFileSync(mixed, '{"body":"x"}\n{"text":"《长津湖》"}\n');
  const m = await run(['tag', mixed, '--top', '1']);
  assert.equal(m.status, 0, m.stderr);
  assert.deepEqual(m.stdout.trim().split('\n').map((l) => JSON.parse(l)), [{ id: '1', line: 1, error: 'field "text" is missing' }, { id: '2', keywords: [{ word: '长津湖', score: JSON.parse(m.stdout.trim().split('\n')[1]).keywords[0].score, kind: 'Movie', entityId: 'movie/name/长津湖' }] }]);
});

test('.json files: JSON lines or one JSON array (pretty or on one line), said on stderr; one object over several lines is refused', async () => {
  const d = tmp();
  const lines = join(d, 'lines.json');
  writeFileSync(lines, sampleLines.join('\n') + '\n');
  const viaJsonl = await run(['tag', samples, '--top', '2']);
  const a = await run(['tag', lines, '--top', '2']);
  assert.equal(a.status, 0, a.stderr);
  assert.match(a.stderr, new RegExp(`^tag: ${lines}: JSON lines; one record per line\n`, 'u'));
  assert.equal(a.stdout, viaJsonl.stdout);
  const records = sampleLines.map((l) => JSON.parse(l) as { id: string; text: string });
  for (const [name, text] of [['pretty.json', JSON.stringify(records, null, 2)], ['flat.json', JSON.stringify(records)]]) {
    const f = join(d, name);
    writeFileSync(f, text);
    const b = await run(['tag', f, '--top', '2']);
    assert.equal(b.status, 0, b.stderr);
    assert.match(b.stderr, new RegExp(`^tag: ${f}: one JSON array; one record per element\n`, 'u'));
    assert.equal(b.stdout, viaJsonl.stdout, name);
  }
  // without ids: the position in the array; an error element names its line
  const noIds = join(d, 'noids.json');
  writeFileSync(noIds, '[\n  {"text": "《长津湖》"},\n  {"body": "x"},\n  "just a string"\n]\n');
  const c = await run(['tag', noIds, '--top', '1']);
  assert.equal(c.status, 0, c.stderr);
  assert.deepEqual(c.stdout.trim().split('\n').map((l) => { const o = JSON.parse(l); return o.error ? o : { id: o.id }; }), [{ id: '1' }, { id: '2', line: 3, error: 'field "text" is missing' }, { id: '3', line: 4, error: 'element is a string, not a JSON object' }]);
  // a JSON array whose elements all lack the text field: exit 3 naming the lines its elements start on
  const wrong = join(d, 'wrong.json');
  writeFileSync(wrong, '[\n  {"id": "a", "review_full": "《长津湖》"},\n  {"id": "b", "review_full": "《英雄》"}\n]\n');
  const w = await run(['tag', wrong]);
  assert.equal(w.status, 3, w.stderr);
  assert.equal(w.stderr, `tag: ${wrong}: one JSON array; one record per element\nfilmkw: tag: ${wrong}: none of its 2 records (lines 2–3) has the default text field "text" (fields: "id", "review_full"); did you mean --text-field review_full?\n`);
  const one = join(d, 'one.json');
  writeFileSync(one, '{\n  "douban.html": {"text": "《长津湖》"}\n}\n');
  const e = await run(['tag', one]);
  assert.equal(e.status, 3);
  assert.match(e.stderr, new RegExp(`^filmkw: tag: ${one}:1: holds one JSON value over several lines, neither JSON lines \\(one object per line\\) nor a JSON array of records \\(invalid JSON: `, 'u'));
  noStack(e.stderr);
});

test('a folder: read for its web pages; one without pages is refused naming what it holds; an html folder with --out and --resume', async () => {
  const r = await run(['tag', 'datasets/samples/']);
  assert.equal(r.status, 2);
  assert.equal(r.stderr, 'filmkw: tag: datasets/samples/ is a folder without web pages (.html, .htm), the only kind of file a folder input is read for; it holds 1 .csv, 1 .jsonl, 1 .txt: give one file as INPUT (e.g. tag datasets/samples/reviews.jsonl)\n');
  const d = tmp();
  const out = join(d, 'o.jsonl');
  const withOut = await run(['tag', 'datasets/samples/', '--out', out]);
  assert.equal(withOut.status, 2, 'refused before the output is opened (was EISDIR, exit 70)');
  assert.equal(existsSync(out), false);
  const html = await run(['tag', 'datasets/samples', '--format', 'html']);
  assert.equal(html.status, 3);
  assert.equal(html.stderr, 'filmkw: tag: datasets/samples: no web pages (.html, .htm) in this folder to read as --format html\n');
  // a folder of pages, written to a file (its identity is the pages' paths and bytes), and resumed
  const pages = join(d, 'pages');
  mkdirSync(pages);
  cpSync(join(root, 'test/fixtures/html/records'), pages, { recursive: true });
  const first = await run(['tag', pages, '--out', out, '--top', '2']);
  assert.equal(first.status, 0, first.stderr);
  const stdout = await run(['tag', pages, '--top', '2']);
  assert.equal(readFileSync(out, 'utf8'), stdout.stdout);
  const resumed = await run(['tag', pages, '--out', out, '--top', '2', '--resume']);
  assert.equal(resumed.status, 2, 'finished run: --resume refused as for a file');
  assert.match(resumed.stderr, /no .*progress\.json/u);
});

test('stdin without --format: jsonl when it starts with {, else txt, said on stderr; the Unix-filter contract holds', async () => {
  const jsonl = binary(['tag', '-', '--top', '2'], `\n${sampleLines.slice(0, 3).join('\n')}\n`);
  assert.equal(jsonl.status, 0, jsonl.stderr);
  assert.match(jsonl.stderr, /^tag: reading stdin as jsonl \(it starts with \{; --format to choose\)\n/u);
  assert.equal(jsonl.stdout, (await run(['tag', '-', '--format', 'jsonl', '--top', '2'], `\n${sampleLines.slice(0, 3).join('\n')}\n`)).stdout);
  assert.equal(jsonl.stdout.split('\n').length - 1, 4, 'one line per input line, the blank one included');
  const texts = sampleLines.slice(0, 2).map((l) => JSON.parse(l).text).join('\n') + '\n';
  const txt = await run(['tag', '-', '--top', '2'], texts);
  assert.equal(txt.status, 0, txt.stderr);
  assert.match(txt.stderr, /^tag: reading stdin as txt \(it does not start with \{; --format to choose\)\n/u);
  assert.equal(txt.stdout, (await run(['tag', '-', '--format', 'txt', '--top', '2'], texts)).stdout);
  const empty = await run(['tag', '-'], '');
  assert.equal(empty.status, 0, empty.stderr);
  assert.equal(empty.stdout, '');
});

test('--set output.scoreScale under the re-ranker (the default preset) is refused with the reason; under filmkw it rescales', async () => {
  const r = await run(['tag', samples, '--set', 'output.scoreScale=minMax10']);
  assert.equal(r.status, 2);
  assert.equal(r.stderr, 'filmkw: tag: output.scoreScale=minMax10 does not apply under the re-ranker (rerank.enabled, as in the preset filmkw-rerank): its scores are σ(logit), already between 0 and 1, and keep their order; rescale graph scores with another preset (e.g. --preset filmkw)\n');
  const graph = await run(['tag', samples, '--set', 'output.scoreScale=minMax10', '--preset', 'filmkw']);
  assert.equal(graph.status, 0, graph.stderr);
  for (const l of graph.stdout.trim().split('\n')) assert.equal(JSON.parse(l).keywords[0].score, 1, 'top keyword 1 under minMax10');
});
