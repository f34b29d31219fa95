import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoSnapshot } from '../batch/demo-kg.js';
import { describeOptions } from '../../src/pipeline/options.js';

import { filmkw } from './in-process.js';

// `filmkw tag` in this process (./in-process.ts); test/cli/main.test.ts runs bin/filmkw itself.
const root = fileURLToPath(new URL('../../', import.meta.url));
const run = (args: string[], input?: string) => filmkw(args, { input });
const tmp = () => mkdtempSync(join(tmpdir(), 'filmkw-tagcli-'));
const samples = join(root, 'datasets', 'samples', 'reviews.jsonl');
const golden = (name: string) => join(root, 'test', 'fixtures', 'io', name);
const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at /u, 'no stack trace');

test('tag --help lists every option with its default', async () => {
  const r = await run(['tag', '--help']);
  assert.equal(r.status, 0, r.stderr);
  for (const o of ['--format', '--text-field', '--id-field', '--kg', '--neo4j', '--preset', '--set', '--backend', '--top', '--explain', '--out', '--workers', '--resume', '--checkpoint-records', '--max-record-bytes', '--fail-on-error']) {
    assert.match(r.stdout, new RegExp(`\\n\\s+${o}[ <]`, 'u'), o);
  }
  for (const d of ['default: from the file extension', 'default: "text"', 'default: the bundled demo KG', 'default: "filmkw-rerank"', 'default: "node-rs"', "default: the preset's output.topK, 5", 'default: stdout', 'default: 1)', 'default: false', 'default: 16777216)']) {
    assert.ok(r.stdout.replace(/\s+/gu, ' ').includes(d), d);
  }
  assert.ok(r.stdout.replace(/\s+/gu, ' ').includes("--explain add per keyword the co-occurrence, KG and semantic contributions; with the re-ranker (filmkw-rerank, the default) also its logit and each feature's contribution to it; `why` reads them in plain words (every term: filmkw glossary)"), '--explain names the re-ranker\'s feature contributions');
  assert.match(r.stdout.replace(/\s+/gu, ' '), /textrank, textrank\+w, textrank\+w\+g, textrank\+w\+g\+r, positionrank, positionrank\+mkg, jieba-textrank, cppjieba-textrank, filmkw, filmkw-rerank \(default/u);
  // every --set key, with its values and the default preset's value
  const pipeline = r.stdout.slice(r.stdout.indexOf('Pipeline options for --set'));
  assert.match(pipeline, /^Pipeline options for --set group\.key=value \(values and defaults of the preset filmkw-rerank;/u);
  for (const line of ["graph.window: an integer ≥ 2 and ≤ 100 (default 5)", "prior.idf: 'off' | 'multiply' (default \"multiply\")", "candidates.posFilter: 'containsNV' | 'containsNVorX' | 'startsWithNV' | 'none' | a list of POS tags (default \"none\")", "semantic.enabled: true | false (default false)", "rerank.enabled: true | false (default true)"]) {
    assert.ok(pipeline.includes(`  ${line}\n`), line);
  }
  assert.equal(pipeline.split('\n').filter((l) => /^  [A-Za-z]+\.[A-Za-z]+: /u.test(l)).length, describeOptions().length, 'one line per option key');
});

test('tag: user mistakes give a clear message and a documented exit code, never a stack trace', async () => {
  const d = tmp();
  const kg = await demoSnapshot();
  writeFileSync(join(d, 'x.xml'), '<text>a</text>\n');
  writeFileSync(join(d, 'nohdr.csv'), 'id,body\n1,x\n');
  const cases: [string[], number, RegExp][] = [
    [['tag', samples, '--preset', 'textrank+foo', '--kg', kg], 2, /unknown preset "textrank\+foo"; valid presets: textrank, textrank\+w, .*cppjieba-textrank/u],
    [['tag', join(d, 'missing.jsonl')], 3, /input file not found: .*missing\.jsonl/u],
    [['tag', samples, '--bogus'], 2, /^filmkw: tag: unknown option '--bogus' \(see filmkw tag --help\)\n$/u],
    [['tag', samples, '--tpo', '3'], 2, /^filmkw: tag: unknown option '--tpo' \(did you mean --top\?\)\n$/u],
    [['bogus'], 2, /^filmkw: unknown command 'bogus' \(did you mean corpus\?\); commands: tag, kg, dict, eval, .*corpus\n$/u],
    [['tag', samples, '--text-field', ''], 2, /--text-field must name a field, got an empty string/u],
    [['tag', samples, '--id-field', ' '], 2, /--id-field must name a field, got an empty string/u],
    [['tag', samples, '--workers', '65'], 2, /--workers must be at most 64 .*got 65/u],
    [['tag', samples, '--format', 'xml'], 2, /^filmkw: tag: --format must be jsonl, json, csv, tsv, txt or html, got "xml"\n$/u],
    [['tag', join(d, 'x.xml')], 2, /cannot tell the format of .*x\.xml from its extension; pass --format jsonl\|json\|csv\|tsv\|txt/u],
    [['tag', samples, '--top', '0'], 2, /--top must be an integer ≥ 1, got 0/u],
    [['tag', samples, '--workers', 'two'], 2, /--workers must be an integer ≥ 1, got "two"/u],
    [['tag', samples, '--backend', 'hanlp'], 2, /^filmkw: tag: --backend must be node-rs or nodejieba, got "hanlp"\n$/u],
    [['tag', samples, '--kg', join(d, 'nokg.fkg')], 3, /KG not found: .*nokg\.fkg/u],
    [['tag', samples, '--kg', kg, '--neo4j'], 2, /^filmkw: tag: --kg cannot be used with --neo4j\n$/u],
    [['tag', join(d, 'nohdr.csv'), '--kg', kg], 3, /nohdr\.csv:1: no text column "text" in the header \(columns: "id", "body"\)/u],
    [['tag', samples, '--kg', kg, '--set', 'graph.nope=1'], 2, /nope/u],
    [['tag', samples, '--kg', kg, '--resume'], 2, /--resume needs --out/u],
    [['tag', samples, '--kg', kg, '--out', join(d, 'no', 'such', 'dir.jsonl')], 7, /cannot write .*dir\.jsonl/u],
  ];
  for (const [args, code, re] of cases) {
    const r = await run(args, '');
    assert.equal(r.status, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re, args.join(' '));
    noStack(r.stderr);
    assert.equal(r.stdout, '', `${args.join(' ')}: nothing on stdout`);
  }
});

test('tag golden output: error records, array texts, empty and odd texts (parity preset, demo KG)', async () => {
  const kg = await demoSnapshot();
  const r = await run(['tag', golden('tag-golden.jsonl'), '--id-field', 'id', '--kg', kg, '--preset', 'cppjieba-textrank', '--top', '4']);
  assert.equal(r.status, 0, r.stderr);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden('tag-golden.out.jsonl'), r.stdout);
  assert.equal(r.stdout, readFileSync(golden('tag-golden.out.jsonl'), 'utf8'));
  const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string | null; line?: number; error?: string });
  assert.equal(lines.length, 10, 'one line per non-blank input line');
  assert.deepEqual(
    lines.filter((l) => l.error).map((l) => [l.id, l.line, l.error!.replace(/:.*/u, '')]),
    [
      ['g7', 8, 'field "text" is missing'],
      [null, 9, 'invalid JSON'],
      [null, 11, 'line is a string, not a JSON object'],
    ],
  );
  assert.match(r.stderr, /^tag: 10 records \(7 tagged, 3 error records\), /mu);
  // Exit code 1 only with --fail-on-error.
  const f = await run(['tag', golden('tag-golden.jsonl'), '--id-field', 'id', '--kg', kg, '--fail-on-error']);
  assert.equal(f.status, 1, f.stderr);
});

test('tag: --workers 2 gives the same bytes as --workers 1; a document alone equals the document in the batch', async () => {
  const kg = await demoSnapshot();
  const d = tmp();
  const args = ['tag', samples, '--id-field', 'id', '--kg', kg, '--explain'];
  const one = await run([...args, '--out', join(d, 'w1.jsonl')]);
  const two = await run([...args, '--out', join(d, 'w2.jsonl'), '--workers', '2']);
  assert.equal(one.status, 0, one.stderr);
  assert.equal(two.status, 0, two.stderr);
  assert.match(two.stderr, /2 workers/u);
  const batch = readFileSync(join(d, 'w1.jsonl'), 'utf8');
  assert.equal(readFileSync(join(d, 'w2.jsonl'), 'utf8'), batch);
  const lines = batch.trimEnd().split('\n');
  assert.equal(lines.length, 12);
  const first = JSON.parse(lines[0]) as { id: string; keywords: { word: string; kind?: string; entityId?: string; explain?: unknown }[] };
  assert.equal(first.id, 'sample-01');
  for (const w of ['易烊千玺', '伍万里', '长津湖']) assert.ok(first.keywords.some((k) => k.word === w), `${w} in ${lines[0]}`);
  assert.ok(first.keywords.every((k) => k.explain !== undefined));
  assert.ok(first.keywords.some((k) => k.kind === 'Movie' && k.entityId !== undefined));
  // Each sample alone, through stdin.
  const input = readFileSync(samples, 'utf8').trimEnd().split('\n');
  for (const i of [0, 5, 11]) {
    const alone = await run(['tag', '-', '--format', 'jsonl', '--id-field', 'id', '--kg', kg, '--explain'], `${input[i]}\n`);
    assert.equal(alone.status, 0, alone.stderr);
    assert.equal(alone.stdout, `${lines[i]}\n`, `sample ${i + 1} alone`);
  }
});

test('tag: the same texts as jsonl, csv and txt give the same keywords', async () => {
  const kg = await demoSnapshot();
  const kw = async (args: string[]) => {
    const r = await run(['tag', ...args, '--kg', kg, '--preset', 'textrank']);
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trimEnd().split('\n').map((l) => JSON.stringify((JSON.parse(l) as { keywords: unknown }).keywords));
  };
  const jsonl = await kw([samples]);
  assert.equal(jsonl.length, 12);
  assert.deepEqual(await kw([join(root, 'datasets', 'samples', 'reviews.csv'), '--id-field', 'id']), jsonl);
  assert.deepEqual(await kw([join(root, 'datasets', 'samples', 'reviews.txt')]), jsonl);
});

test('tag --out writes no progress file once finished; --resume then refuses to overwrite', async () => {
  const kg = await demoSnapshot();
  const d = tmp();
  const out = join(d, 'o.jsonl');
  const r = await run(['tag', samples, '--kg', kg, '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(!existsSync(`${out}.progress.json`));
  assert.equal(r.stdout, '');
  const again = await run(['tag', samples, '--kg', kg, '--out', out, '--resume']);
  assert.equal(again.status, 2);
  assert.match(again.stderr, /no .*o\.jsonl\.progress\.json \(the run finished/u);
});

test('tag with a format-1 snapshot: tags, and says once on stderr that the file loads slowly and how to rewrite it', async () => {
  const old = join(root, 'test', 'fixtures', 'kg', 'small-format1.fkg');
  const r = await run(['tag', '-', '--format', 'jsonl', '--id-field', 'id', '--kg', old, '--preset', 'textrank+w+g+r'], '{"id":"a","text":"《霸王别姬》是陈凯歌导演的电影，张国荣主演。"}\n');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim().split('\n').length, 1);
  assert.match(JSON.parse(r.stdout).keywords.map((k: { word: string }) => k.word).join(' '), /\S/u);
  const said = r.stderr.split('\n').filter((l) => l.includes('format 1, written by an older filmkw'));
  assert.equal(said.length, 1, r.stderr);
  assert.match(said[0], /re-run `filmkw kg import` to rewrite it in format \d/u);
  noStack(r.stderr);
});

test('tag without --kg uses the bundled demo KG', async () => {
  const kg = await demoSnapshot();
  const a = await run(['tag', samples, '--id-field', 'id']);
  const b = await run(['tag', samples, '--id-field', 'id', '--kg', kg]);
  assert.equal(a.status, 0, a.stderr);
  assert.match(a.stderr, /KG demo \(bundled\)/u);
  assert.equal(a.stdout, b.stdout);
});

test('tag --preset filmkw-rerank --explain (real CLI): per keyword the re-ranker\'s logit = bias + Σ feature contributions, score = σ(logit), same bytes with 2 workers and on a re-run', async () => {
  const { RERANK_FEATURES } = await import('../../src/pipeline/rerank.js');
  const kg = await demoSnapshot();
  const d = tmp();
  const args = ['tag', samples, '--id-field', 'id', '--kg', kg, '--preset', 'filmkw-rerank', '--explain'];
  const one = await run([...args, '--out', join(d, 'a.jsonl')]);
  const again = await run([...args, '--out', join(d, 'b.jsonl')]);
  const two = await run([...args, '--out', join(d, 'c.jsonl'), '--workers', '2']);
  for (const r of [one, again, two]) assert.equal(r.status, 0, r.stderr);
  const bytes = readFileSync(join(d, 'a.jsonl'), 'utf8');
  assert.equal(readFileSync(join(d, 'b.jsonl'), 'utf8'), bytes);
  assert.equal(readFileSync(join(d, 'c.jsonl'), 'utf8'), bytes);
  type Explained = { word: string; score: number; explain: { rerank: { logit: number; bias: number; features: { feature: string; value: number; contribution: number }[] } } };
  const docs = bytes.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string; keywords: Explained[] });
  assert.equal(docs.length, 12);
  let keywords = 0;
  for (const doc of docs) {
    assert.ok(doc.keywords.length > 0 && doc.keywords.length <= 5, doc.id);
    for (let i = 1; i < doc.keywords.length; i++) assert.ok(doc.keywords[i - 1].score >= doc.keywords[i].score, `${doc.id}: scores in order`);
    for (const k of doc.keywords) {
      keywords++;
      const r = k.explain.rerank;
      assert.ok(r.features.length > 0, `${doc.id} ${k.word}: contributions listed`);
      // rounded to 6 decimals each: the sum may be off by a few units of the last place
      const sum = r.bias + r.features.reduce((a, f) => a + f.contribution, 0);
      assert.ok(Math.abs(sum - r.logit) < 1e-6 * (r.features.length + 2), `${doc.id} ${k.word}: ${sum} vs ${r.logit}`);
      assert.ok(Math.abs(1 / (1 + Math.exp(-r.logit)) - k.score) < 1e-6, `${doc.id} ${k.word}: score = σ(logit)`);
      for (const f of r.features) assert.ok((RERANK_FEATURES as readonly string[]).includes(f.feature), f.feature);
      for (let i = 1; i < r.features.length; i++) assert.ok(Math.abs(r.features[i - 1].contribution) >= Math.abs(r.features[i].contribution), `${k.word}: largest first`);
    }
  }
  assert.ok(keywords >= 40, `${keywords} keywords`);
  // the sample about 长津湖 keeps its film and lead
  assert.ok(docs[0].keywords.some((k) => k.word === '长津湖'), JSON.stringify(docs[0].keywords.map((k) => k.word)));
});

test('tag --checkpoint-records does not go with --queue (exit 2, one line)', async () => {
  const r = await run(['tag', samples, '--queue', 'redis://127.0.0.1:1', '--out', join(tmp(), 'o.jsonl'), '--checkpoint-records', '5']);
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr, 'filmkw: tag: --checkpoint-records cannot be used with --queue (its checkpoint follows the finished chunks)\n');
  noStack(r.stderr);
});
