import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const fx = join('test', 'fixtures', 'bench');
const out = join(mkdtempSync(join(tmpdir(), 'filmkw-bench-run-')), 'results.md');
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['bench/run.mjs', '--dir', fx, '--out', out, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });

test('bench runner: --list, subsets, sections kept across runs, header with machine facts', () => {
  const l = run(['--list']);
  assert.equal(l.status, 0, l.stderr);
  assert.deepEqual(l.stdout.trim().split('\n'), ['a', 'b', 'fail']);

  const r1 = run(['a', 'b'], { BENCH_FIXTURE_TAG: 'one' });
  assert.equal(r1.status, 0, r1.stderr);
  let md = readFileSync(out, 'utf8');
  assert.match(md, /^# filmkw benchmark results\n/);
  assert.match(md, new RegExp(`Last run: \\d{4}-\\d\\d-\\d\\dT[\\d:]+Z · node ${process.version.replace(/\./g, '\\.')} · .+ × \\d+ · [\\d.]+ GiB`));
  assert.match(md, /<!-- bench:a -->\n## Fixture A\n\ntag: one\n/);
  assert.match(md, /<!-- bench:b -->\n## Fixture B\n[\s\S]*\| 1 \| 2 \|[\s\S]*<!-- \/bench:b -->/);
  assert.ok(md.indexOf('bench:a') < md.indexOf('bench:b'), 'sorted by name');

  const r2 = run(['a'], { BENCH_FIXTURE_TAG: 'two' });
  assert.equal(r2.status, 0, r2.stderr);
  md = readFileSync(out, 'utf8');
  assert.match(md, /tag: two/);
  assert.doesNotMatch(md, /tag: one/);
  assert.match(md, /## Fixture B/, 'the section of a bench not run is kept');
  assert.equal(md.match(/<!-- bench:a -->/g)?.length, 1);
});

test('bench runner: a failing bench gets a section saying so and exit 1; unknown names exit 2', () => {
  const r = run(['fail']);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /bench: fail failed \(exit code 3\)/);
  assert.match(readFileSync(out, 'utf8'), /## fail\n\n\*\*failed\*\* \(exit code 3\); partial output:\n\n## Fixture fail\n\nhalf a table/);
  const u = run(['nosuch']);
  assert.equal(u.status, 2);
  assert.match(u.stderr, /bench: no bench named 'nosuch' \(have: a, b, fail\)/);
  const d = run(['--dry-run', 'b']);
  assert.equal(d.status, 0);
  assert.match(d.stdout, /## Fixture B/);
});
