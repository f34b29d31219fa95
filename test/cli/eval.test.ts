import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExtractor } from '../../src/pipeline/extract.js';
import { readGold } from '../../src/eval/readers.js';
import { evaluate } from '../../src/eval/metrics.js';
import { roundScores } from '../../src/eval/experiments.js';

import { filmkw } from './in-process.js';

// `filmkw eval` and `filmkw experiments` in this process (./in-process.ts)
const root = fileURLToPath(new URL('../../', import.meta.url));
const run = (...args: string[]) => filmkw(args);
const tiny = 'test/fixtures/eval/tiny.jsonl';

test('eval --baseline --json: golden output on the tiny fixture', async () => {
  const r = await run('eval', '--gold', tiny, '--baseline', 'nodejieba-tfidf', '--json');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(
    r.stdout,
    '{"system":"nodejieba-tfidf","docs":2,"macro":{"1":{"p":1,"r":0.2,"f1":0.333333},"2":{"p":0.75,"r":0.3,"f1":0.428571},"3":{"p":0.666667,"r":0.4,"f1":0.5},"4":{"p":0.5,"r":0.4,"f1":0.444444},"5":{"p":0.5,"r":0.5,"f1":0.5}},"micro":{"1":{"p":1,"r":0.2,"f1":0.333333},"2":{"p":0.75,"r":0.3,"f1":0.428571},"3":{"p":0.666667,"r":0.4,"f1":0.5},"4":{"p":0.5,"r":0.4,"f1":0.444444},"5":{"p":0.5,"r":0.5,"f1":0.5}}}\n',
  );
});

test('eval: --k, --precision-denominator and the human table', async () => {
  const r = await run('eval', '--gold', tiny, '--baseline', 'nodejieba-textrank', '--k', '1-2', '--precision-denominator', 'k');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^system: nodejieba-textrank\ngold: {3}tiny\.jsonl, 2 documents\n/);
  assert.match(r.stdout, /\n {2}1 │ /);
  assert.match(r.stdout, /\n {2}2 │ /);
  assert.doesNotMatch(r.stdout, /\n {2}3 │ /);
});

test('eval: csl format', async () => {
  const r = await run('eval', '--gold', 'test/fixtures/eval/tiny-csl.tsv', '--format', 'csl', '--baseline', 'nodejieba-tfidf', '--json', '--k', '5');
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.docs, 2);
  assert.deepEqual(Object.keys(j.macro), ['5']);
});

test('eval --placement: where the gold keywords land, in the table and in --json; refused for a baseline', async () => {
  let r = await run('eval', '--gold', tiny, '--preset', 'filmkw-rerank', '--placement', '--json');
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).placement, { k: 5, docs: 2, gold: 10, counts: { top: 7, next: 1, later: 0, lower: 0, longer: 1, shorter: 0, unscored: 0, never: 1 } });
  r = await run('eval', '--gold', tiny, '--preset', 'filmkw-rerank', '--set', 'rerank.pool=3', '--placement', '--k', '1,2');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\nwhere the 10 gold keywords of 2 documents are \(K = 2\):\n {2}in the top 2 +4 +40\.0 %\n {2}ranked 3–4 +1 +10\.0 %\n/);
  assert.match(r.stdout, /\n {2}a candidate outside the re-rank pool \(never scored\) +4 +40\.0 %\n {2}never a candidate +1 +10\.0 %\n$/);
  r = await run('eval', '--gold', tiny, '--baseline', 'nodejieba-tfidf', '--placement');
  assert.equal(r.status, 2);
  assert.equal(r.stderr, 'filmkw: eval: --baseline cannot be used with --placement (--placement needs a pipeline preset: a baseline exposes no candidates)\n');
});

test('eval --by: macro scores per group of a jsonl field, in the table and in --json; (none) for records without it; refused for csl, an empty name and a field no record has', async () => {
  let r = await run('eval', '--gold', tiny, '--baseline', 'nodejieba-tfidf', '--by', 'id', '--json', '--k', '1,5');
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.by, 'id');
  assert.deepEqual(j.groups.map((g: { group: string; docs: number; macro: Record<string, { f1: number }> }) => [g.group, g.docs, g.macro['1'].f1]), [['d1', 1, 0.333333], ['2', 1, 0.333333]]);
  // only the second record has "body": the first is in the group (none)
  r = await run('eval', '--gold', tiny, '--baseline', 'nodejieba-tfidf', '--by', 'body', '--k', '1');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\nmacro F1 by body:\n {3}docs │ {3}F1@1 │ body\n {6}1 │ 0\.3333 │ \(none\)\n {6}1 │ 0\.3333 │ 唢呐艺人焦三爷收徒天鸣，传承百鸟朝凤。\n$/);
  // no record has "kind" (a typo): an input error naming the file and the field, no table
  r = await run('eval', '--gold', tiny, '--baseline', 'nodejieba-tfidf', '--by', 'kind', '--k', '1');
  assert.equal(r.status, 3, r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'filmkw: test/fixtures/eval/tiny.jsonl: no record has a value in the field "kind" (--by); the first record\'s fields: id, text, tag\n');
  for (const empty of ['', ' ']) {
    r = await run('eval', '--gold', tiny, '--baseline', 'nodejieba-tfidf', '--by', empty);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `filmkw: eval: --by must be a field name, got ${JSON.stringify(empty)}\n`);
  }
  r = await run('eval', '--gold', 'test/fixtures/eval/tiny-csl.tsv', '--format', 'csl', '--baseline', 'nodejieba-tfidf', '--by', 'kind');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--by kind\) need the jsonl format/);
});

test('eval: unknown baseline → exit 2 listing the valid ones', async () => {
  const r = await run('eval', '--gold', tiny, '--baseline', 'jieba');
  assert.equal(r.status, 2);
  assert.equal(r.stderr, 'filmkw: eval: --baseline must be nodejieba-tfidf, nodejieba-textrank, nodejieba-tfidf+dict or nodejieba-textrank+dict, got "jieba"\n');
});

test('eval: neither or both of --preset/--baseline, bad --k, bad --set → exit 2', async () => {
  for (const args of [[], ['--preset', 'textrank', '--baseline', 'nodejieba-tfidf'], ['--baseline', 'nodejieba-tfidf', '--k', 'x'], ['--baseline', 'nodejieba-tfidf', '--set', 'window=3']]) {
    const r = await run('eval', '--gold', tiny, ...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
  assert.equal((await run('eval', '--baseline', 'nodejieba-tfidf')).status, 2, 'missing --gold');
});

test('eval: bad gold file → exit 3 with file:line', async () => {
  let r = await run('eval', '--gold', 'test/fixtures/eval/bad-tag.jsonl', '--baseline', 'nodejieba-tfidf');
  assert.equal(r.status, 3);
  assert.match(r.stderr, /test\/fixtures\/eval\/bad-tag\.jsonl:1: field "tag" is not an array/);
  r = await run('eval', '--gold', 'test/fixtures/eval/bad-cols.tsv', '--format', 'csl', '--baseline', 'nodejieba-tfidf');
  assert.equal(r.status, 3);
  assert.match(r.stderr, /bad-cols\.tsv:\d+: expected 3 tab-separated columns/);
  r = await run('eval', '--gold', 'no/such/file.jsonl', '--baseline', 'nodejieba-tfidf');
  assert.equal(r.status, 3);
  assert.match(r.stderr, /no\/such\/file\.jsonl: cannot read gold file \(ENOENT\)/);
});

test('experiments: --only with an unknown part is exit 2 naming the valid parts, before any run (the runs: test/integration/cli/experiments-cli.test.ts)', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'filmkw-cli-exp-')), 'out');
  const bad = await run('experiments', '--gold', tiny, '--config', 'test/fixtures/eval/experiments-baselines.json', '--out', out, '--only', 'fig9');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown part "fig9" .*\(valid: baselines\)/);
});

test('eval --preset --set --json equals the library evaluation of the same extractor', async () => {
  const r = await run('eval', '--gold', tiny, '--preset', 'textrank', '--set', 'graph.window=3', '--json');
  assert.equal(r.status, 0, r.stderr);
  const docs = readGold(join(root, tiny));
  const extractor = createExtractor({ preset: 'textrank', overrides: { 'graph.window': 3 } });
  const result = evaluate(docs.map((d) => ({ id: d.id, gold: d.gold, predicted: extractor.extract(d.text, { topK: 10 }).map((k) => k.word) })));
  assert.equal(r.stdout, JSON.stringify({ system: 'textrank [graph.window=3]', docs: 2, macro: roundScores(result.macro), micro: roundScores(result.micro) }) + '\n');
});

test('eval: unknown preset → exit 2 listing presets and baselines; bad --set value or --backend → exit 2', async () => {
  let r = await run('eval', '--gold', tiny, '--preset', 'textrank+x');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown preset "textrank\+x" \(valid presets: textrank, .*positionrank.*; baselines: nodejieba-tfidf/);
  r = await run('eval', '--gold', tiny, '--preset', 'textrank', '--set', 'graph.window=x');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /graph\.window/);
  r = await run('eval', '--gold', tiny, '--preset', 'textrank', '--backend', 'hanlp');
  assert.equal(r.status, 2);
  assert.equal(r.stderr, 'filmkw: eval: --backend must be node-rs or nodejieba, got "hanlp"\n');
});

test('eval --ts and --kg-aliases through the CLI (demo KG): each option credits exactly its document', async () => {
  // doc "alias": gold 刺激1995 is an alias of 肖申克的救赎 in the demo KG; the system returns 3 words, one
  // of them 肖申克的救赎. doc "trad": gold in traditional script (音樂, 攝影); the system returns 4 words,
  // 音乐 and 摄影 among them. So P@5 = 1/3 resp. 2/4 when the option is on, R = 1.
  const file = 'test/fixtures/eval/match-options.jsonl';
  const at5 = async (...flags: string[]) => {
    const r = await run('eval', '--gold', file, '--preset', 'textrank+w', '--k', '5', '--json', ...flags);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout).macro['5'];
  };
  assert.deepEqual(await at5(), { p: 0, r: 0, f1: 0 });
  assert.deepEqual(await at5('--ts'), { p: 0.25, r: 0.5, f1: 0.333333 });
  assert.deepEqual(await at5('--kg-aliases'), { p: 0.166667, r: 0.5, f1: 0.25 });
  assert.deepEqual(await at5('--ts', '--kg-aliases'), { p: 0.416667, r: 1, f1: 0.583333 });
});

test('eval: the document context (doubanId, title) is read by default when the gold file has it, --film-field none turns it off; a field no record has is one line, exit 3', async () => {
  const { writeFileSync } = await import('node:fs');
  const { loadKg } = await import('../../src/kg/load.js');
  const d = mkdtempSync(join(tmpdir(), 'filmkw-eval-ctx-'));
  const gold = join(d, 'g.jsonl');
  writeFileSync(gold, [
    { id: 'a', text: '《长津湖》由吴京、易烊千玺主演，讲述伍万里的成长。吴京还主演了《战狼2》。', tag: ['长津湖', '伍万里'], doubanId: '长津湖', title: '长津湖' },
    { id: 'b', text: '战狼2里吴京饰演冷锋，冷锋的故事。', tag: ['冷锋', '吴京'] },
  ].map((o) => JSON.stringify(o)).join('\n') + '\n');
  const kg = await loadKg({});
  const ex = createExtractor({ preset: 'filmkw-rerank', kg });
  const docs = readGold(gold, { filmField: 'doubanId', titleField: 'title' });
  const expected = (context: boolean) => roundScores(evaluate(docs.map((x) => ({ id: x.id, gold: x.gold, predicted: ex.extract(x.text, { topK: 10, ...(context ? { film: x.film, title: x.title } : {}) }).map((k) => k.word) }))).macro);
  const auto = await run('eval', '--gold', gold, '--preset', 'filmkw-rerank', '--json');
  assert.equal(auto.status, 0, auto.stderr);
  assert.deepEqual(JSON.parse(auto.stdout).macro, expected(true));
  const none = await run('eval', '--gold', gold, '--preset', 'filmkw-rerank', '--json', '--film-field', 'none', '--title-field', 'none');
  assert.deepEqual(JSON.parse(none.stdout).macro, expected(false));
  const typo = await run('eval', '--gold', gold, '--preset', 'filmkw-rerank', '--film-field', 'doubanid');
  assert.equal(typo.status, 3);
  assert.match(typo.stderr, /^filmkw: .*g\.jsonl: no record has a value in the field "doubanid" \(--film-field\)/u);
  assert.equal(typo.stderr.trimEnd().split('\n').length, 1);
  const help = await run('eval', '--help');
  assert.match(help.stdout.replace(/\s+/gu, ' '), /--film-field <field> .*auto: "doubanId" when the file has it; none: no film \(default: "auto"\)/u);
  rmSync(d, { recursive: true, force: true });
});
