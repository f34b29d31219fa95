/**
 * Issue 17, security and ranges: keys from untyped input (--set, library overrides, experiment configs,
 * field names, JSON records) are looked up as own properties only; `__proto__`, `constructor`,
 * `toString`… are refused with exit 2 and a clear message, and nothing reaches Object.prototype. Every
 * numeric option has a range. The CLI cases run bin/filmkw (run `npm run build` first).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FilmkwError } from '../../src/errors.js';
import { createExtractor, resolveOptions } from '../../src/index.js';
import { parseExperimentConfig, planSystems } from '../../src/eval/experiments.js';
import { SystemBuilder } from '../../src/eval/factory.js';
import { parseGold } from '../../src/eval/readers.js';
import { readJsonLines } from '../../src/kg/sources/common.js';
import { filmkw } from '../cli/in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const skip = existsSync(join(root, 'dist', 'cli', 'main.js')) ? false : 'dist/ is missing: run `npm run build` first';
const run = (args: string[], input?: string) => filmkw(args, { input });
const oneLine = (stderr: string) => {
  assert.equal(stderr.trimEnd().split('\n').filter((l) => l.startsWith('filmkw:')).length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at |internal error/u, stderr);
};
const usage = (re: RegExp) => (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && re.test(e.message);
const prototypeIntact = () => {
  assert.equal(Object.prototype.toString.call([]), '[object Array]');
  assert.equal(String({}), '[object Object]');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
};

const BAD_KEYS = ['__proto__.toString', '__proto__', 'constructor.prototype', 'constructor', 'graph.constructor', 'rank.toString', 'toString', 'hasOwnProperty', 'graph.__proto__', 'prototype.x'];

test('--set with a built-in object key: exit 2 with a clear message for tag and eval, never exit 70', { skip }, async () => {
  // every key through the parser in-process is the library test below; here the CLI path, one spawn each
  const cli: [string, string][] = [['__proto__.toString', '1'], ['__proto__', '{"polluted":1}'], ['constructor.prototype', '1'], ['graph.constructor', '1'], ['rank.toString', '1'], ['hasOwnProperty', '1']];
  for (const [key, value] of cli) {
    const r = await run(['tag', '-', '--format', 'txt', '--preset', 'textrank', '--set', `${key}=${value}`], '《霸王别姬》\n');
    assert.equal(r.status, 2, `${key}: ${r.stderr}`);
    assert.match(r.stderr, /is not allowed: "(__proto__|constructor|prototype|toString|hasOwnProperty)" is a built-in property of JavaScript objects/u, key);
    oneLine(r.stderr);
    assert.equal(r.stdout, '');
  }
  for (const key of ['__proto__.toString', 'rank.constructor']) {
    const e = await run(['eval', '--gold', 'test/fixtures/eval/tiny.jsonl', '--preset', 'textrank', '--set', `${key}=1`]);
    assert.equal(e.status, 2, `eval ${key}: ${e.stderr}`);
    oneLine(e.stderr);
  }
  // an object value whose own keys are hostile
  const nested = await run(['tag', '-', '--format', 'txt', '--set', 'graph={"__proto__":{"polluted":1}}'], '程蝶衣\n');
  assert.equal(nested.status, 2, nested.stderr);
  assert.match(nested.stderr, /"graph\.__proto__" is not allowed/u);
  for (const flag of ['--text-field', '--id-field']) {
    const r = await run(['tag', '-', '--format', 'jsonl', flag, 'constructor'], '{"text":"x"}\n');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`tag: ${flag}: "constructor" is not allowed`, 'u'));
  }
  const gold = await run(['eval', '--gold', 'test/fixtures/eval/tiny.jsonl', '--preset', 'textrank', '--id-field', 'toString']);
  assert.equal(gold.status, 2, gold.stderr);
  oneLine(gold.stderr);
});

test('library: hostile override keys are refused and never reach Object.prototype', async () => {
  const hostile: Record<string, unknown>[] = [
    { '__proto__.toString': 1 },
    JSON.parse('{"__proto__": {"polluted": 1}}') as Record<string, unknown>,
    { graph: JSON.parse('{"__proto__": {"polluted": 1}}') as unknown },
    { 'constructor.prototype': { polluted: 1 } },
    { 'rank.toString': 1 },
    { toString: 1 },
    ...BAD_KEYS.map((k) => ({ [k]: 1 })),
    ...BAD_KEYS.map((k) => ({ [k]: { polluted: 1 } })),
  ];
  for (const overrides of hostile) {
    assert.throws(() => resolveOptions('textrank', overrides), usage(/is not allowed: .* is a built-in property of JavaScript objects/u), JSON.stringify(Object.keys(overrides)));
    await assert.rejects(async () => createExtractor({ preset: 'textrank', overrides, kg: null }), usage(/is not allowed/u));
    prototypeIntact();
  }
  // experiment configs: the same check through the system builder (a sweep value, a system's overrides)
  const config = parseExperimentConfig(
    JSON.parse('{"name":"x","groups":[{"id":"g","title":"g","systems":[{"label":"a","preset":"textrank","overrides":{"__proto__":{"polluted":1}}}]}]}'),
    'config.json',
  );
  await assert.rejects(new SystemBuilder({ kg: null }).validate(planSystems(config).map((p) => p.spec)), usage(/__proto__/u));
  prototypeIntact();
});

test('untyped records: gold lines and KG JSON lines are read by own properties only', async () => {
  // a gold line whose only "id" is inherited gets the line id, not Object.prototype's
  const docs = parseGold('{"text":"x","tag":["x"],"constructor":1}\n', 'g.jsonl', { idField: 'id' });
  assert.equal(docs[0].id, 'g.jsonl:1');
  assert.throws(() => parseGold('{"tag":["x"]}\n', 'g.jsonl', { textField: 'toString' }), usage(/eval: textField: "toString" is not allowed/u));
  const d = mkdtempSync(join(tmpdir(), 'filmkw-keys-'));
  const f = join(d, 'movies.txt');
  writeFileSync(f, '{"id":"1","name":"霸王别姬","__proto__":{"polluted":1}}\n');
  const seen: Record<string, unknown>[] = [];
  for await (const { value } of readJsonLines(f, 'movies.txt', () => undefined)) seen.push(value);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].constructor, undefined, 'no inherited properties on a record');
  assert.equal(Object.getPrototypeOf(seen[0]), null);
  prototypeIntact();
});

test('every numeric option has a range: values that would empty the output or run forever are exit 2', { skip }, async () => {
  const cases: [string[], RegExp][] = [
    [['--set', 'graph.lambda=1e308'], /bad value for graph\.lambda: 1e\+308 \(expected a number ≥ 0 and ≤ 1000\)/u],
    [['--set', 'rank.maxIter=1e9'], /bad value for rank\.maxIter: 1000000000 \(expected an integer ≥ 1 and ≤ 10000\)/u],
    [['--set', 'rank.tol=0'], /bad value for rank\.tol/u],
    [['--set', 'graph.window=100000'], /bad value for graph\.window/u],
    [['--set', 'graph.kgEdgeWeight=1e300'], /bad value for graph\.kgEdgeWeight/u],
    [['--set', 'output.topK=1e6'], /bad value for output\.topK/u],
    [['--top', '100000'], /--top must be at most 1000, got 100000/u],
    [['--max-record-bytes', '99999999999'], /--max-record-bytes must be at most 1073741824/u],
    [['--checkpoint-records', '99999999999'], /--checkpoint-records must be at most 1000000000/u],
    [['--checkpoint-records', '-3'], /--checkpoint-records must be an integer ≥ 1, got "-3"/u],
  ];
  for (const [args, re] of cases) {
    const r = await run(['tag', '-', '--format', 'txt', ...args], '《霸王别姬》\n');
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    oneLine(r.stderr);
  }
  const k = await run(['eval', '--gold', 'test/fixtures/eval/tiny.jsonl', '--baseline', 'nodejieba-tfidf', '--k', '1-1000000000']);
  assert.equal(k.status, 2, k.stderr);
  assert.match(k.stderr, /K must be at most 1000/u);
  const margin = await run(['dict', 'export', '--out', join(tmpdir(), 'x.dict'), '--freq-margin', '1e300']);
  assert.equal(margin.status, 2, margin.stderr);
});

test('rendered mode: only data: and about:blank load (no file:, no network); the sandbox is off only as root, and that is said', async () => {
  const { allowedUrl, chromiumArgs, sandboxNote } = await import('../../src/html/render.js');
  for (const url of ['file:///etc/passwd', 'file://localhost/etc/hostname', 'http://127.0.0.1/', 'https://movie.douban.com/', 'ws://x/', 'chrome://settings', 'blob:null/1']) assert.equal(allowedUrl(url), false, url);
  for (const url of ['data:text/html,<p>x</p>', 'data:image/png;base64,AAAA', 'about:blank']) assert.equal(allowedUrl(url), true, url);
  assert.ok(chromiumArgs(0).includes('--no-sandbox'));
  assert.ok(!chromiumArgs(1000).includes('--no-sandbox'));
  assert.match(sandboxNote(0)!, /running as root, so chromium runs without its sandbox/u);
  assert.equal(sandboxNote(1000), undefined);
});

test('the library by its package name, from inside the checkout (package.json "exports"): the README snippet runs', { skip }, async () => {
  const snippet = [
    "import { createExtractor, loadKg } from 'filmkw';",
    'const kg = await loadKg({});',
    "const extractor = createExtractor({ preset: 'textrank+mkg', kg });",
    "console.log(JSON.stringify(extractor.extract('以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。', { topK: 5 })));",
  ].join('\n');
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', snippet], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.ok((JSON.parse(r.stdout) as { word: string }[]).some((k) => k.word === '伍万里'), r.stdout);
});
