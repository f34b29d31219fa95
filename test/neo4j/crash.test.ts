/**
 * A Neo4j server killed (SIGKILL) in the middle of `kg import --neo4j` of the merged real KG, restarted,
 * and the import re-run: the right counts and no duplicate node or relationship. Also exit 4 for every
 * --neo4j command while the server is down or stopped. Runs its own server (scripts/neo4j.mjs with a
 * temporary home and a free port), so it never touches the server of NEO4J_URI; it runs when a server is
 * configured (NEO4J_URI set, which also says that Java and Maven work here) or FILMKW_REQUIRE_NEO4J=1.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import neo4j from 'neo4j-driver';
import { cli, neo4jSkip, ROOT } from '../fixtures/neo4j/server.js';

const DATA = join(ROOT, '..', 'shared', 'data');
const SOURCES = [
  `openkg:${join(DATA, 'kg', 'openkg-douban-movie')}`,
  `kgqa:${join(DATA, 'kg', 'douban-kgqa-small')}`,
  `douban-csv:${join(DATA, 'kg', 'douban-movies-2065', 'douban_all_movies.csv')}`,
];
const SKIP =
  neo4jSkip() ||
  (!existsSync(join(DATA, 'kg', 'openkg-douban-movie')) ? 'the crash test imports the merged KG of ../shared/data/kg, absent here' : false) ||
  (!existsSync(join(ROOT, 'dist', 'cli', 'main.js')) ? 'needs `npm run build` (dist/)' : false);

let home = '';
let tmp = '';
let env: Record<string, string> = {};

function script(cmd: string, ...extra: string[]) {
  return spawnSync(process.execPath, ['scripts/neo4j.mjs', cmd, '--home', home, ...extra], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
}

/** scripts/neo4j.mjs CMD for the test's own server; returns the exported variables of start/status. */
function server(cmd: 'start' | 'stop' | 'status', ...extra: string[]): Record<string, string> {
  const r = script(cmd, ...(cmd === 'start' ? ['--heap', '768m'] : []), ...extra);
  assert.equal(r.status, 0, `neo4j ${cmd}: ${r.stderr}`);
  return Object.fromEntries([...r.stdout.matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1], m[2]]));
}

async function query(cypher: string): Promise<Record<string, unknown>> {
  const d = neo4j.driver(env.NEO4J_URI, neo4j.auth.basic(env.NEO4J_USER, env.NEO4J_PASSWORD), { disableLosslessIntegers: true });
  try {
    return (await d.executeQuery(cypher)).records[0].toObject();
  } finally {
    await d.close();
  }
}

before(() => {
  if (SKIP) return;
  home = mkdtempSync(join(tmpdir(), 'filmkw-neo4j-crash-'));
  tmp = mkdtempSync(join(tmpdir(), 'filmkw-neo4j-crash-out-'));
  env = server('start', '--port', '0', '--password', 'filmkw-crash-test');
});
after(() => {
  if (SKIP || !home) return;
  spawnSync(process.execPath, ['scripts/neo4j.mjs', 'stop', '--home', home], { cwd: ROOT, timeout: 120_000 });
  rmSync(home, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
});

test('server killed mid-import: exit 6, exit 4 while down; restarted, the re-run gives the snapshot counts and no duplicates; stopped: exit 4', { skip: SKIP, timeout: 600_000 }, async () => {
  const snap = join(tmp, 'merged.fkg');
  const built = await cli(['kg', 'import', '--out', snap, ...SOURCES], {});
  assert.equal(built.status, 0, built.stderr);
  const expected = JSON.parse((await cli(['kg', 'stats', '--kg', snap, '--json'], {})).stdout);
  const port = new URL(env.NEO4J_URI).port;
  // the script: status and a second start print the same connection; the password is the one given
  assert.equal(env.NEO4J_PASSWORD, 'filmkw-crash-test');
  assert.deepEqual(server('status'), env);
  assert.deepEqual(server('start'), env);
  assert.match(script('start').stderr, /already running \(pid \d+\)/);
  const pid = JSON.parse(readFileSync(join(home, 'state.json'), 'utf8')).pid as number;

  // kill -9 the server once the first batch of entities is committed (the first progress line)
  let killedAt = '';
  const fast = { ...env, FILMKW_NEO4J_RETRY_TIME_MS: '3000', FILMKW_NEO4J_ACQUISITION_TIMEOUT_MS: '5000' };
  const cut = await cli(['kg', 'import', '--neo4j', ...SOURCES], fast, {
    onStderr: (chunk) => {
      const m = /kg import: neo4j entities (\d+)\/(\d+)/.exec(chunk);
      if (m && !killedAt) {
        killedAt = m[0];
        process.kill(pid, 'SIGKILL');
      }
    },
  });
  assert.ok(killedAt, `no progress line seen: ${cut.stderr}`);
  assert.equal(cut.status, 6, cut.stderr);
  const lines = cut.stderr.split('\n').filter((l) => l.startsWith('filmkw: '));
  assert.equal(lines.length, 1, cut.stderr);
  assert.match(lines[0], /^filmkw: neo4j: the import at bolt:\/\/127\.0\.0\.1:\d+ lost the server( after retries)?: .*; the import can be re-run and converges to the same graph \(MERGE\)$/);

  // while it is down: every --neo4j command exits 4 with one line
  const down = await Promise.all([
    cli(['kg', 'stats', '--neo4j'], env),
    cli(['kg', 'import', '--neo4j', 'csv:kg/demo'], env),
    cli(['tag', '--neo4j', '--format', 'txt', 'README.md'], env),
    cli(['dict', 'export', '--neo4j', '--out', join(tmp, 'x.dict')], env),
  ]);
  for (const r of down) {
    assert.equal(r.status, 4, r.stderr);
    assert.match(r.stderr, new RegExp(`^filmkw: neo4j: cannot connect to bolt://127\\.0\\.0\\.1:${port}: is the server running\\? \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)\\n$`, 'm'));
  }

  // restart on the same graph (recovery after the crash) and the same port
  server('start', '--port', port);
  const partial = JSON.parse((await cli(['kg', 'stats', '--neo4j', '--json'], env)).stdout);
  assert.ok(partial.entities.total > 0 && partial.entities.total < expected.entities.total, `killed mid-import: ${partial.entities.total} of ${expected.entities.total} entities were committed`);
  assert.equal(partial.relations.total, 0);

  const again = await cli(['kg', 'import', '--neo4j', '--json', ...SOURCES], env);
  assert.equal(again.status, 0, again.stderr);
  const out = JSON.parse(again.stdout).output;
  assert.equal(out.created.nodes, expected.entities.total - partial.entities.total, 'the re-run creates exactly the missing entities');
  assert.equal(out.created.relationships, expected.relations.total);
  const stats = await cli(['kg', 'stats', '--neo4j', '--json'], env);
  assert.deepEqual(JSON.parse(stats.stdout), expected);
  // no duplicates: one node per id, one relationship per (type, ends, movie)
  assert.deepEqual(await query('MATCH (n:Entity) WITH n.id AS id, count(*) AS c WHERE c > 1 RETURN count(*) AS dup'), { dup: 0 });
  assert.deepEqual(await query('MATCH (a)-[r]->(b) WITH a, b, type(r) AS t, r.movieId AS m, count(*) AS c WHERE c > 1 RETURN count(*) AS dup'), { dup: 0 });
  assert.deepEqual(await query('MATCH (n) RETURN count(n) AS nodes'), { nodes: expected.entities.total + (await query('MATCH (x:Alias) RETURN count(x) AS n')).n });

  // stopped cleanly: exit 4 again
  server('stop');
  const stopped = await cli(['kg', 'stats', '--neo4j'], env);
  assert.equal(stopped.status, 4, stopped.stderr);
  const status = script('status');
  assert.equal(status.status, 3, status.stderr);
  assert.match(status.stderr, /^neo4j: not running/);
  // the graph keeps its password: another one is refused before anything starts
  const other = script('start', '--password', 'another-password');
  assert.equal(other.status, 1, other.stderr);
  assert.match(other.stderr, /^neo4j: the graph in .* was created with another password; start without --password, or add --fresh/);
  console.log(`killed at "${killedAt}"; ${partial.entities.total} entities had been committed; the re-run created ${out.created.nodes} nodes and ${out.created.relationships} relationships`);
});
