/**
 * Issue 29: the README's examples run as written, in the order they appear, from a fresh clone
 * (scripts/readme-walk.mjs: git clone of this checkout's HEAD, npm ci, every example; examples that need
 * what this machine lacks — ../shared/data, redis-server, Java and Maven for Neo4j — or that are long
 * (the test suites, benchmarks, regenerating eval/results) are listed as not run, with the reason), and
 * afterwards `git status` in the clone shows nothing they left behind. Several minutes: npm ci, the merged
 * KG import, three re-ranker trainings, a local Neo4j.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('every README example runs as written in a fresh clone and leaves the clone clean', { timeout: 3_600_000 }, (t) => {
  const r = spawnSync(process.execPath, ['scripts/readme-walk.mjs'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  t.diagnostic(r.stderr);
  assert.equal(r.status, 0, r.stderr.split('\n').filter((l) => /^(FAIL|\s{7})|unclean|^ {2}\S/u.test(l)).join('\n'));
  assert.match(r.stderr, /readme-walk: \d+ examples run, 0 failed/u);
});
