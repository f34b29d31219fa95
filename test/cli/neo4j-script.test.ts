/**
 * scripts/neo4j.mjs without a server: usage errors and a home without a server (start, restart, crash
 * recovery and stop against a real server are in test/neo4j/crash.test.ts). Exit 1 with one `neo4j: …`
 * line on an error, `status` exits 3 when nothing runs, `stop` of nothing is not an error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, ['scripts/neo4j.mjs', ...args], { cwd: root, encoding: 'utf8', timeout: 30_000 });

test('scripts/neo4j.mjs: usage errors exit 1 with one line; nothing runs in an empty home', () => {
  const home = mkdtempSync(join(tmpdir(), 'filmkw-neo4j-script-'));
  try {
    const cases: [string[], RegExp][] = [
      [[], /^neo4j: usage: node scripts\/neo4j\.mjs start\|stop\|status\|env /],
      [['restart'], /^neo4j: usage: /],
      [['start', '--home', home, '--port', 'abc'], /^neo4j: --port must be a number, got "abc"$/],
      [['start', '--home', home, '--heap', 'lots'], /^neo4j: heap size must look like 512m or 1g, got "lots"$/],
      [['start', '--home', home, '--bogus'], /^neo4j: unknown option --bogus /],
      [['start', '--home'], /^neo4j: --home needs a value$/],
      [['env', '--home', home], /^neo4j: not running \(.*\); start it with: node scripts\/neo4j\.mjs start$/],
    ];
    for (const [args, re] of cases) {
      const r = run(...args);
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.split('\n').length, 2, r.stderr);
      assert.match(r.stderr.trimEnd(), re);
    }
    const status = run('status', '--home', home);
    assert.equal(status.status, 3);
    assert.match(status.stderr, /^neo4j: not running \(/);
    const stop = run('stop', '--home', home);
    assert.equal(stop.status, 0);
    assert.match(stop.stderr, /^neo4j: not running \(/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
