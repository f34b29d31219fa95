/**
 * scripts/rerank-heldout.mjs (the one look at a held-out set for re-ranker variants): F1, paired ΔF1@K,
 * placement and the defect counts of each system on a small gold file; bad arguments are one line. In the
 * integration suite beside the other experiment scripts (train-rerank-cli): each run loads the KG and the model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectOneLineErrors } from '../../helpers/one-line-errors.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = join(root, 'scripts', 'rerank-heldout.mjs');
const gold = join(root, 'test', 'fixtures', 'eval', 'tiny.jsonl');
const demo = join(root, 'kg', 'demo');
const run = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });

test('rerank-heldout: each system scored, compared with the first, placed; the cast verb 主演 counted and gone with output.castVerbs=drop', { skip: !existsSync(join(root, 'dist', 'index.js')) && 'needs npm run build' }, () => {
  const r = run('--gold', gold, '--kg', demo, '--placement', '--defects', '--system', 'keep=@output.castVerbs=keep', '--system', 'drop=@output.castVerbs=drop');
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.equal(lines[0], `${gold}: 2 documents`);
  assert.match(lines[1], /^keep \(\(committed\) @ output\.castVerbs=keep\): F1@1\.\.5( [0-9.]+ \/){4} [0-9.]+$/);
  assert.match(r.stdout, /\n {2}placement \(K = 5\): top \d+, next \d+, later \d+, lower \d+, longer \d+, shorter \d+, unscored \d+, never \d+\n/);
  // d1 (《长津湖》由吴京、易烊千玺主演 …) has 主演 in its top 5 unless the verbs are dropped
  const defects = [...r.stdout.matchAll(/castVerb (\d+)/gu)].map((m) => Number(m[1]));
  assert.deepEqual(defects, [1, 0]);
  for (let k = 1; k <= 5; k++) assert.match(r.stdout, new RegExp(`\\n  ΔF1@${k} [+−][0-9.]+ \\[[+−][0-9.]+, [+−][0-9.]+\\], \\d+ b / \\d+ w\\n`));
  const json = run('--gold', gold, '--kg', demo, '--json', '--system', 'a=', '--system', 'b=@phrases.fullNames=true');
  assert.equal(json.status, 0, json.stderr);
  const o = JSON.parse(json.stdout);
  assert.deepEqual(o.systems.map((s: { system: string }) => s.system), ['a', 'b']);
  assert.equal(o.systems[1].delta.length, 5);
});

test('rerank-heldout --ceiling: a perfect order of the pool and of every candidate; a pool of 2 caps the first, not the second', { skip: !existsSync(join(root, 'dist', 'index.js')) && 'needs npm run build' }, () => {
  const r = run('--gold', gold, '--kg', demo, '--ceiling', '--placement', '--json', '--system', 'p60=', '--system', 'p2=@rerank.pool=2');
  assert.equal(r.status, 0, r.stderr);
  const [p60, p2] = JSON.parse(r.stdout).systems;
  // 9 of the 10 gold keywords are candidates (one never is): 5 of 5 and 4 of 5 in a perfect top 5
  assert.equal(p60.placement.never, 1);
  const f1 = (hits: number, returned: number, gold: number) => (hits === 0 ? 0 : (2 * (hits / returned) * (hits / gold)) / (hits / returned + hits / gold));
  assert.ok(Math.abs(p60.ceiling.all['5'] - (f1(5, 5, 5) + f1(4, 5, 5)) / 2) < 1e-9);
  assert.ok(Math.abs(p60.ceiling.all['4'] - f1(4, 4, 5)) < 1e-9);
  for (let k = 1; k <= 5; k++) {
    assert.ok(p60.ceiling.pool[String(k)] >= p60.macro[String(k)] - 1e-9, `K = ${k}: the ceiling is at least the system`);
    assert.ok(p60.ceiling.all[String(k)] >= p60.ceiling.pool[String(k)] - 1e-9);
  }
  // two scored candidates per document, both gold at best: 2 hits of 2 returned at every K ≥ 2
  for (const k of ['2', '3', '4', '5']) assert.ok(Math.abs(p2.ceiling.pool[k] - f1(2, 2, 5)) < 1e-9, `K = ${k}`);
  assert.deepEqual(p2.ceiling.all, p60.ceiling.all);
  const text = run('--gold', gold, '--kg', demo, '--ceiling', '--system', 'a=');
  assert.match(text.stdout, /\n {2}ceiling \(perfect order\) F1@1\.\.5: pool( [0-9.]+ \/){4} [0-9.]+; every candidate( [0-9.]+ \/){4} [0-9.]+\n/);
});

test('rerank-heldout: a missing gold, a bad system or a model that is no model is one line with exit 2 or 3', { skip: !existsSync(join(root, 'dist', 'index.js')) && 'needs npm run build' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-heldout-'));
  try {
    const notModel = join(dir, 'x.json');
    writeFileSync(notModel, '{"version": 99}\n');
    const cases: [string[], number, RegExp][] = [
      [['--system', 'a='], 2, /--gold FILE is required/],
      [['--gold', gold, '--kg', demo], 2, /at least one --system/],
      [['--gold', gold, '--kg', demo, '--system', 'noequals'], 2, /expected NAME=\[MODEL\]/],
      [['--gold', gold, '--kg', demo, '--system', `a=${notModel}`], 3, /x\.json: /],
      [['--gold', gold, '--kg', join(dir, 'none.fkg'), '--system', 'a='], 3, /none\.fkg: no such KG snapshot/],
      [['--gold', gold, '--kg', demo, '--system', 'a=@phrases.nope=1'], 2, /phrases\.nope/],
      [['--gold', join(dir, 'none.jsonl'), '--kg', demo, '--system', 'a='], 3, /none\.jsonl/],
      [['--gold', gold, '--kg', demo, '--film-field', 'doubanId', '--system', 'a='], 3, /no record has a value in the field "doubanId"/],
    ];
    expectOneLineErrors(run, 'rerank-heldout', cases);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
