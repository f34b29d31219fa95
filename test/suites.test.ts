/**
 * The rule that puts a test file in its suite (scripts/run-tests.mjs, README "Development"): its folder.
 * A test that needs a component is in that component's folder, so that `npm test` (the fast suite) needs
 * nothing but `npm ci`: Redis in test/queue/ (or test/neo4j/, whose queue test needs both), a real Neo4j
 * in test/neo4j/, chromium in test/browser/ (or the slow reliability suite). And no test bounds an
 * elapsed time from above (a loaded machine would fail it): tests wait for states (test/helpers/wait.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const SELF = 'test/suites.test.ts'; // its patterns would match themselves

function suites(): Map<string, string> {
  const r = spawnSync(process.execPath, ['scripts/run-tests.mjs', '--list'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return new Map(r.stdout.trimEnd().split('\n').map((l) => l.split('\t').reverse() as [string, string]));
}

test('run-tests.mjs --list: every test file once, in the suite of its folder', () => {
  const s = suites();
  assert.ok(s.size > 80, `${s.size} files`);
  const expect: [string, string][] = [
    ['test/cli/tag.test.ts', 'fast'],
    ['test/integration/crawl/resume.test.ts', 'integration'],
    ['test/queue/faults.test.ts', 'queue'],
    ['test/browser/viewer.test.ts', 'browser'],
    ['test/neo4j/library.test.ts', 'neo4j'],
    ['test/reliability/slow/resume-kill.test.ts', 'reliability'],
    ['test/reliability/cli-errors.test.ts', 'fast'],
  ];
  for (const [file, suite] of expect) assert.equal(s.get(file), suite, file);
});

test('a test that needs Redis, Neo4j or chromium is in the folder of its suite', () => {
  const needs: [RegExp, string, readonly string[]][] = [
    [/\b(PrivateRedis|redisSkipReason|sharedRedis)\b/u, 'Redis', ['queue', 'neo4j']],
    [/\bneo4jSkip\(/u, 'a real Neo4j', ['neo4j']],
    [/from 'playwright-core'|\bchromiumSkip\(/u, 'chromium', ['browser', 'reliability']],
  ];
  const wrong: string[] = [];
  for (const [file, suite] of suites()) {
    if (file === SELF) continue;
    const text = readFileSync(`${root}${file}`, 'utf8');
    for (const [re, what, allowed] of needs) if (re.test(text) && !allowed.includes(suite)) wrong.push(`${file} needs ${what} but is in the ${suite} suite (move it to test/${allowed[0]}/)`);
  }
  assert.deepEqual(wrong, []);
});

test('no test bounds an elapsed time from above', () => {
  // `assert.ok(ms < 1000)`, `assert.ok(Date.now() - t0 < …)`: a loaded machine fails them
  const bound = /assert[^;]*(\bms\b|Ms\b|Date\.now\(\)\s*-\s*\w+|performance\.now\(\)\s*-\s*\w+)\s*<=?\s*[\w(]/u;
  const found: string[] = [];
  for (const file of suites().keys()) {
    if (file === SELF) continue;
    readFileSync(`${root}${file}`, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (bound.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, []);
});
