/**
 * The re-ranker's training helpers for recipe variants (src/eval/rerank-train.ts: restrictTable,
 * filmFolds, crossValidate with folds given) and the variant flags of scripts/train-rerank.mjs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crossValidate, filmFolds, restrictTable, trainingTable, type TrainingDocument } from '../../src/eval/rerank-train.js';
import { readGold } from '../../src/eval/readers.js';
import { loadKg } from '../../src/kg/load.js';
import { RERANK_FEATURES } from '../../src/pipeline/rerank.js';

const at = (f: string): number => RERANK_FEATURES.indexOf(f as never);

/** A document of `rows` items; item r has graph rank r and the given base / idf; `keyword` is the gold item. */
function doc(id: string, rows: { base: number; idf: number }[], keyword: number): TrainingDocument {
  return {
    id,
    gold: [`${id}-w${keyword}`],
    items: rows.map((v, r) => {
      const x = new Float64Array(RERANK_FEATURES.length);
      x[at('baseRank')] = 1 / (1 + r);
      x[at('base')] = v.base;
      x[at('idf')] = v.idf;
      return { text: `${id}-w${r}`, charStart: r, phrase: false, x, label: r === keyword ? 1 : 0 };
    }),
  };
}

test('filmFolds: a film\'s documents share a fold; larger films first, each to the emptiest fold (golden)', () => {
  assert.deepEqual(filmFolds(['A', 'B', 'A', 'C', 'D', 'A', 'B', 'E'], 3), [0, 1, 0, 2, 2, 0, 1, 1]);
  // ties between films of one size go by name; one film per fold while folds are empty
  assert.deepEqual(filmFolds(['b', 'a', 'c'], 5), [1, 0, 2]);
  assert.deepEqual(filmFolds([], 5), []);
});

test('restrictTable: a smaller pool keeps the items of graph rank below it; dropped features become 0; unknown names throw', () => {
  const d = doc('d', Array.from({ length: 6 }, (_, r) => ({ base: 1 - r / 10, idf: r / 10 })), 4);
  const [small] = restrictTable([d], { pool: 3 });
  assert.deepEqual(small.items.map((it) => it.text), ['d-w0', 'd-w1', 'd-w2']);
  assert.equal(small.items[0], d.items[0], 'no drop: the rows are shared, not copied');
  const [dropped] = restrictTable([d], { drop: ['idf'] });
  assert.equal(dropped.items.length, 6);
  assert.deepEqual(dropped.items.map((it) => it.x[at('idf')]), [0, 0, 0, 0, 0, 0]);
  assert.deepEqual(dropped.items.map((it) => it.x[at('base')]), d.items.map((it) => it.x[at('base')]));
  assert.equal(d.items[3].x[at('idf')], 0.3, 'the input table is not changed');
  assert.throws(() => restrictTable([d], { drop: ['idf', 'nope'] }), /unknown feature\(s\) nope/);
});

test('crossValidate with folds by group: a model never sees the held-out group, so a rule that differs between groups fails there', () => {
  // base falls with the graph rank in both groups; group A: the keyword has the highest base; group B: the
  // keyword has the highest idf and the lowest base
  const docs: TrainingDocument[] = [];
  const groups: string[] = [];
  for (let k = 0; k < 24; k++) {
    const a = k % 2 === 0;
    const rows = Array.from({ length: 10 }, (_, r) => ({ base: 0.9 - r / 20, idf: a ? 0.5 : r === 9 ? 1 : 0.3 }));
    docs.push(doc(`d${k}`, rows, a ? 0 : 9));
    groups.push(a ? 'A' : 'B');
  }
  const params = { trees: 20, depth: 2, rate: 0.3, minLeaf: 5, bins: 16, l2: 1, objective: 'lambdarank' as const };
  const mixed = crossValidate(docs, params, 3);
  const grouped = crossValidate(docs, params, 3, filmFolds(groups, 3));
  assert.equal(mixed.f1[0], 1, 'folds by index mod 3: both rules are learned');
  assert.equal(grouped.f1[0], 0, 'folds by group: each group is scored by the other group\'s rule');
  assert.equal(grouped.predicted.length, docs.length);
  assert.equal(grouped.result.perDocument.length, docs.length);
  assert.deepEqual(crossValidate(docs, params, 3).predicted, mixed.predicted, 'deterministic');
});

const root = fileURLToPath(new URL('../../', import.meta.url));
const script = join(root, 'scripts', 'train-rerank.mjs');
const gold = join(root, 'test', 'fixtures', 'eval', 'tiny.jsonl');

test('train:rerank variant flags: CV of a variant with the paired comparison, nothing written; bad flags are one clear line', { skip: !existsSync(join(root, 'dist', 'index.js')) && 'needs npm run build' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-rerank-variant-'));
  try {
    const out = join(dir, 'model.json');
    const run = (...extra: string[]) => spawnSync(process.execPath, [script, '--gold', gold, '--kg', join(root, 'kg', 'demo'), ...extra], { encoding: 'utf8' });
    const variant = run('--pool', '5', '--depth', '2', '--drop', 'idf,digit', '--set', 'phrases.maxTokens=2', '--grouped', '--compare');
    assert.equal(variant.status, 0, variant.stderr);
    // an optional feature: trained on with --with, zero in --compare's recipe
    const optional = run('--with', 'positionRank', '--compare');
    assert.equal(optional.status, 0, optional.stderr);
    assert.match(optional.stderr, /ΔF1@5 [+-][0-9.]+ /);
    assert.match(variant.stderr, /5-fold CV \(folds by film\) macro F1@1\.\.5 with context:( [0-9.]+){5}\n.*without context:( [0-9.]+){5}\n.*without context or corpus statistics:( [0-9.]+){5}/);
    for (let k = 1; k <= 5; k++) assert.match(variant.stderr, new RegExp(`ΔF1@${k} [+-][0-9.]+ \\[-?[0-9.]+, -?[0-9.]+\\], \\d+ better / \\d+ worse`));
    assert.ok(!existsSync(out));
    // with --out, the variant's model is written with its recipe recorded
    const written = run('--pool', '5', '--set', 'phrases.maxTokens=2', '--out', out);
    assert.equal(written.status, 0, written.stderr);
    assert.match(written.stderr, /wrote .*model\.json/);
    const bad: [string[], RegExp][] = [
      [['--pool', '5'], /a variant without --cv, --compare or --out does nothing/],
      [['--pool', '5', '--check', '--out', out], /--check compares the committed recipe/],
      [['--pool', 'x', '--cv'], /--pool must be a positive integer, got "x"/],
      [['--drop', 'nope', '--cv'], /unknown feature\(s\) nope/],
      [['--with', 'base', '--cv'], /base is not an optional feature/],
      [['--set', 'phrases.maxTokens', '--cv'], /--set phrases\.maxTokens: expected key=value/],
      [['--set', 'phrases.nope=1', '--cv'], /nope/],
    ];
    for (const [args, message] of bad) {
      const r = run(...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^filmkw: train-rerank: /m);
      assert.match(r.stderr, message);
      assert.ok(!/\n\s+at /.test(r.stderr), 'no stack trace');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('train:rerank --gold twice: the files\' documents together, each file recorded; a duplicate id or file is one line; --pool above the preset\'s reads the larger pool', { skip: !existsSync(join(root, 'dist', 'index.js')) && 'needs npm run build' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-rerank-gold2-'));
  try {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    const dup = join(dir, 'dup.jsonl');
    writeFileSync(a, '{"id":"a1","film":"长津湖","text":"《长津湖》由吴京、易烊千玺主演，讲述抗美援朝战争中伍万里的成长。","tag":["长津湖","吴京"]}\n');
    writeFileSync(b, '{"id":"b1","film":"百鸟朝凤","text":"唢呐艺人焦三爷收徒天鸣，传承百鸟朝凤。","tag":["唢呐","焦三爷"]}\n{"id":"b2","text":"吴京主演的战狼讲述冷锋的故事。","tag":["战狼","冷锋"]}\n');
    writeFileSync(dup, '{"id":"x","text":"唢呐","tag":["唢呐"]}\n{"id":"a1","text":"唢呐班","tag":["唢呐班"]}\n');
    const out = join(dir, 'model.json');
    const run = (...extra: string[]) => spawnSync(process.execPath, [script, '--kg', join(root, 'kg', 'demo'), ...extra], { encoding: 'utf8' });
    const both = run('--gold', a, '--gold', b, '--trees', '3', '--grouped', '--compare', '--out', out);
    assert.equal(both.status, 0, both.stderr);
    assert.match(both.stderr, /train-rerank: 3 documents \(a\.jsonl 1 \+ b\.jsonl 2\), 0 with a film, \d+ candidates/);
    assert.match(both.stderr, /ΔF1@5 [+-][0-9.]+ /);
    const training = JSON.parse(readFileSync(out, 'utf8')).training;
    assert.deepEqual(training.files.map((f: { file: string }) => f.file), ['a.jsonl', 'b.jsonl']);
    assert.ok(training.files.every((f: { sha256: string; bytes: number }) => /^[0-9a-f]{64}$/.test(f.sha256) && f.bytes > 0));
    assert.equal(training.documents, 3);
    assert.equal(training.file, undefined);
    const one = run('--gold', a, '--trees', '3', '--out', out, '--force');
    assert.equal(one.status, 0, one.stderr);
    assert.equal(JSON.parse(readFileSync(out, 'utf8')).training.file, 'a.jsonl', 'one file: recorded as before');
    // a pool above the preset's 60 reads the candidates with that pool (not an error)
    const pool = run('--gold', b, '--pool', '100', '--trees', '3', '--compare');
    assert.equal(pool.status, 0, pool.stderr);
    assert.match(pool.stderr, /ΔF1@1 /);
    const bad: [string[], number, RegExp][] = [
      [['--gold', a, '--gold', dup, '--cv'], 3, /dup\.jsonl:2: id "a1" is also in a\.jsonl:1/],
      [['--gold', a, '--gold', a, '--cv'], 2, /--gold names the same file twice/],
      [['--gold', a, '--gold', b, '--grouped', '--check'], 2, /--check compares the committed recipe/],
      [['--gold', a, '--gold', join(dir, 'none.jsonl'), '--cv'], 3, /none\.jsonl: no such file/],
    ];
    for (const [args, code, message] of bad) {
      const r = run(...args);
      assert.equal(r.status, code, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^filmkw: train-rerank: [^\n]+\n$/);
      assert.match(r.stderr, message);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('trainingTable: an optional feature is read only when asked for; the other columns do not change', { skip: !existsSync(gold) && 'needs the tiny fixture' }, async () => {
  const kg = await loadKg({});
  const docs = readGold(gold);
  const j = at('positionRank');
  const plain = trainingTable(docs, kg);
  const withPr = trainingTable(docs, kg, {}, ['positionRank']);
  const rows = (t: TrainingDocument[]) => t.flatMap((d) => d.items);
  assert.ok(rows(plain).length > 0);
  assert.ok(rows(plain).every((it) => it.x[j] === 0));
  assert.ok(rows(withPr).some((it) => it.x[j] > 0) && rows(withPr).every((it) => it.x[j] >= 0 && it.x[j] <= 1));
  assert.deepEqual(rows(withPr).map((it) => [it.text, it.label, ...it.x.subarray(0, j)]), rows(plain).map((it) => [it.text, it.label, ...it.x.subarray(0, j)]));
  assert.throws(() => trainingTable(docs, kg, {}, ['idf']), /idf is not an optional feature/);
});

test('train:rerank: a bad input, KG, model or output path is one line with the README exit code, before any training', { skip: !existsSync(join(root, 'dist', 'index.js')) && 'needs npm run build' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-rerank-errors-'));
  try {
    const badGold = join(dir, 'bad.jsonl');
    writeFileSync(badGold, '{"id":1,"text":"唢呐","tag":["唢呐"]}\n{"id":2,"text":\n');
    const notKg = join(dir, 'not-a-kg.fkg');
    writeFileSync(notKg, 'hello\n');
    const notJson = join(dir, 'notjson.json');
    writeFileSync(notJson, 'not json\n');
    const demo = join(root, 'kg', 'demo');
    const cases: [string, string[], number, RegExp][] = [
      ['malformed gold', ['--gold', badGold, '--kg', demo], 3, /bad\.jsonl:2: invalid JSON/],
      ['missing gold', ['--gold', join(dir, 'none.jsonl'), '--kg', demo], 3, /none\.jsonl: no such file/],
      ['KG that is not a snapshot', ['--gold', gold, '--kg', notKg, '--cv'], 3, /not-a-kg\.fkg: not a filmkw KG snapshot/],
      ['missing KG', ['--gold', gold, '--kg', join(dir, 'none.fkg'), '--cv'], 3, /none\.fkg: no such KG snapshot/],
      ['--check of a file that is not JSON', ['--gold', gold, '--kg', demo, '--check', '--out', notJson], 3, /notjson\.json: not a model to check \(invalid JSON: /],
      ['--check of a missing model', ['--gold', gold, '--kg', demo, '--check', '--out', join(dir, 'none.json')], 3, /none\.json: no such model to check/],
      ['--out in a missing directory', ['--gold', gold, '--kg', demo, '--out', join(dir, 'nodir', 'x.json')], 7, /cannot write .*nodir[/\\]x\.json \(the directory .*nodir does not exist\)/],
      ['--out a directory', ['--gold', gold, '--kg', demo, '--out', dir, '--force'], 7, /cannot write .* \(it is a directory\)/],
      ['--out the gold file', ['--gold', gold, '--kg', demo, '--out', gold, '--force'], 2, /--out .*tiny\.jsonl is the input/],
      ['--depth above the cap', ['--gold', gold, '--kg', demo, '--depth', '30', '--cv'], 2, /--depth 30: at most 12 \(every tree is scored as a complete binary tree/],
      ['--depth 13', ['--gold', gold, '--kg', demo, '--depth', '13', '--cv'], 2, /--depth 13: at most 12/],
      ['unknown --drop', ['--gold', gold, '--kg', demo, '--drop', 'nope', '--cv'], 2, /unknown feature\(s\) nope/],
    ];
    for (const [what, args, code, message] of cases) {
      const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
      assert.equal(r.status, code, `${what}: ${r.stderr}`);
      assert.match(r.stderr, /^filmkw: train-rerank: [^\n]+\n$/, `${what}: one line: ${r.stderr}`);
      assert.match(r.stderr, message, what);
      assert.ok(!r.stderr.includes('\n    at '), `${what}: no stack trace`);
      assert.doesNotMatch(r.stderr, /documents, \d+ candidates/, `${what}: failed before the training table`);
    }
    assert.ok(!existsSync(join(dir, 'nodir')));
    assert.deepEqual(readdirSync(dir).sort(), ['bad.jsonl', 'not-a-kg.fkg', 'notjson.json'], 'no probe or temp file left');
    // the committed depth and the cap itself are accepted
    const ok = spawnSync(process.execPath, [script, '--gold', gold, '--kg', demo, '--depth', '12', '--trees', '3', '--cv'], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
