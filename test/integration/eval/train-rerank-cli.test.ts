/**
 * `npm run train:rerank` (scripts/train-rerank.mjs, run as a process; it reads dist/, so `npm run build`
 * first) on the tiny fixture: the model it writes (training file hash, byte-identical re-run, no overwrite
 * without --force, --check), the recipe-variant flags (CV, --compare, --out), and one clear line with the
 * README exit code for each bad input, before any training. The training helpers themselves are unit-tested
 * in test/eval/rerank-train.test.ts and test/pipeline/rerank.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectOneLineErrors } from '../../helpers/one-line-errors.js';
import { parseRerankModel } from '../../../src/pipeline/rerank-model.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = join(root, 'scripts', 'train-rerank.mjs');
const gold = join(root, 'test', 'fixtures', 'eval', 'tiny.jsonl');

test('npm run train:rerank (scripts/train-rerank.mjs): writes a model with the training file hash, byte-identical on a re-run, refuses to overwrite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-rerank-'));
  try {
    const out = join(dir, 'model.json');
    const run = (...extra: string[]) => spawnSync(process.execPath, [script, '--gold', gold, '--kg', join(root, 'kg', 'demo'), '--out', out, ...extra], { encoding: 'utf8' });
    const first = run();
    assert.equal(first.status, 0, first.stderr);
    const bytes = readFileSync(out, 'utf8');
    const model = parseRerankModel(JSON.parse(bytes), out);
    assert.equal(model.training?.sha256, createHash('sha256').update(readFileSync(gold)).digest('hex'));
    assert.equal(model.training?.documents, 2);
    const again = run();
    assert.equal(again.status, 2);
    assert.match(again.stderr, /^filmkw: train-rerank: .*model\.json exists; pass --force/m);
    const forced = run('--force');
    assert.equal(forced.status, 0, forced.stderr);
    assert.equal(readFileSync(out, 'utf8'), bytes);
    // --check retrains and compares without writing: 0 when identical, 1 when the file differs
    const same = run('--check');
    assert.equal(same.status, 0, same.stderr);
    assert.match(same.stderr, /is byte-identical to the trained model/);
    writeFileSync(out, bytes.replace('"documents":2', '"documents":3'));
    const differs = run('--check');
    assert.equal(differs.status, 1, differs.stderr);
    assert.match(differs.stderr, /differs from the trained model/);
    assert.equal(readFileSync(out, 'utf8'), bytes.replace('"documents":2', '"documents":3'));
    writeFileSync(join(dir, 'x'), '');
    const missing = spawnSync(process.execPath, [script, '--gold', join(dir, 'nope.jsonl'), '--out', join(dir, 'm2.json')], { encoding: 'utf8' });
    assert.equal(missing.status, 3, 'a missing input file is an input error (README "Exit codes")');
    assert.match(missing.stderr, /nope\.jsonl: no such file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

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
    expectOneLineErrors(run, 'train-rerank', bad);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
