/**
 * Issue 5, Neo4j faults of the CLI: `kg import --neo4j csv:kg/demo` against the scripted Bolt server behind
 * a fault-injecting TCP proxy, the commands run in this process (test/cli/in-process.ts), the silent
 * partition through bin/filmkw (run `npm run build` first), whose process must end. Each failure ends with exactly one
 * "filmkw: neo4j: …" line on stderr, no stack trace, and its own exit code: refused 4, wrong password 5,
 * server gone mid-import 6, silent partition mid-import 6 (after FILMKW_NEO4J_TX_TIMEOUT_MS, the process
 * exits instead of hanging). After each, a plain re-run converges: `kg stats --neo4j --json` equals the
 * stats of the same KG imported into a snapshot. Names with quotes, braces, backticks and `$` reach the
 * graph unchanged, through parameters only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KgStore } from '../../../src/kg/store.js';
import { FakeBolt } from '../../fixtures/neo4j/fake-bolt.js';
import { allowedCypher } from '../../fixtures/neo4j/allowed-cypher.js';
import { demoKg } from '../../fixtures/neo4j/demo-kg.js';
import { TcpProxy } from '../tcp-proxy.js';
import { cli, oneLine } from '../../fixtures/neo4j/server.js';
import { filmkw } from '../../cli/in-process.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const SKIP = !existsSync(join(root, 'dist/cli/main.js')) && 'needs `npm run build` (dist/)';
const DEMO_STATS = KgStore.fromData(demoKg()).stats();
const FAST = { FILMKW_NEO4J_CONNECT_TIMEOUT_MS: '1000', FILMKW_NEO4J_ACQUISITION_TIMEOUT_MS: '1500', FILMKW_NEO4J_RETRY_TIME_MS: '1000', FILMKW_NEO4J_TX_TIMEOUT_MS: '10000' };
const ALLOWED = allowedCypher();

/** `filmkw ARGS` in this process with the NEO4J_* / FILMKW_NEO4J_* variables of this process replaced by `env`. */
function run(args: string[], env: Record<string, string>) {
  const cleared = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('NEO4J_') || k.startsWith('FILMKW_NEO4J_')).map((k) => [k, undefined]));
  return filmkw(args, { env: { ...cleared, ...env } });
}

async function rig() {
  const fb = await new FakeBolt({ user: 'neo4j', password: 'pw' }).start();
  const proxy = await new TcpProxy(fb.port).start();
  const env = { NEO4J_URI: proxy.uri, NEO4J_USER: 'neo4j', NEO4J_PASSWORD: 'pw', ...FAST };
  return { fb, proxy, env, close: async () => (await proxy.stop(), await fb.stop()) };
}

async function statsOf(env: Record<string, string>): Promise<unknown> {
  const s = await run(['kg', 'stats', '--neo4j', '--json'], env);
  assert.equal(s.status, 0, s.stderr);
  return JSON.parse(s.stdout);
}

test('kg import --neo4j: refused 4, wrong password 5, each one line without a stack trace', { skip: SKIP }, async () => {
  const r = await rig();
  try {
    const refused = await run(['kg', 'import', '--neo4j', 'csv:kg/demo'], { ...r.env, NEO4J_URI: 'bolt://127.0.0.1:1' });
    assert.equal(refused.status, 4, refused.stderr);
    oneLine(refused.stderr, /^filmkw: neo4j: cannot connect to bolt:\/\/127\.0\.0\.1:1: is the server running\? \(connect ECONNREFUSED 127\.0\.0\.1:1\)$/);
    const auth = await run(['kg', 'import', '--neo4j', 'csv:kg/demo'], { ...r.env, NEO4J_PASSWORD: 'wrong' });
    assert.equal(auth.status, 5, auth.stderr);
    oneLine(auth.stderr, /^filmkw: neo4j: authentication failed for user "neo4j" at bolt:\/\/127\.0\.0\.1:\d+: .*; check NEO4J_USER and NEO4J_PASSWORD$/);
    const badTimeout = await run(['kg', 'stats', '--neo4j'], { ...r.env, FILMKW_NEO4J_TX_TIMEOUT_MS: 'soon' });
    assert.equal(badTimeout.status, 2, badTimeout.stderr);
    oneLine(badTimeout.stderr, /^filmkw: neo4j: FILMKW_NEO4J_TX_TIMEOUT_MS must be a positive integer \(milliseconds\), got "soon"$/);
    assert.equal(r.fb.graph.nodes.size, 0);
  } finally {
    await r.close();
  }
});

test('kg import --neo4j, server gone or silent mid-import: exit 6 with one line; the re-run converges to the snapshot stats', { skip: SKIP, timeout: 600_000 }, async () => {
  // bytes of a whole CLI import, measured through the proxy
  let total: number;
  {
    const r = await rig();
    try {
      const ok = await run(['kg', 'import', '--neo4j', 'csv:kg/demo'], r.env);
      assert.equal(ok.status, 0, ok.stderr);
      total = r.proxy.bytesUp;
      assert.deepEqual(await statsOf(r.env), DEMO_STATS);
    } finally {
      await r.close();
    }
  }
  const outcomes: string[] = [];
  for (const how of ['reset', 'silent'] as const) {
    const r = await rig();
    try {
      const at = 1500 + Math.floor(Math.random() * (total - 3000));
      r.proxy.cut(at, how);
      const env = how === 'silent' ? { ...r.env, FILMKW_NEO4J_TX_TIMEOUT_MS: '3000' } : r.env;
      // the silent partition through bin/filmkw: the process ends after the deadline instead of hanging
      const res = how === 'silent' ? await cli(['kg', 'import', '--neo4j', 'csv:kg/demo'], env, { killAfterMs: 300_000 }) : await run(['kg', 'import', '--neo4j', 'csv:kg/demo'], env);
      assert.equal(res.status, 6, `${how} at ${at}: ${res.stderr}`);
      assert.equal(res.stdout, '');
      if (how === 'reset') {
        oneLine(res.stderr, /^filmkw: neo4j: (the import|creating the constraints) at bolt:\/\/127\.0\.0\.1:\d+ lost the server after retries: .*; the import can be re-run and converges to the same graph \(MERGE\)$/);
      } else {
        oneLine(res.stderr, /^filmkw: neo4j: (the import|creating the constraints) at bolt:\/\/127\.0\.0\.1:\d+ lost the server: no answer from the server in 3000 ms \(network partition or stuck server\?\) \[ETIMEDOUT\]; the import can be re-run and converges to the same graph \(MERGE\)$/);
      }
      outcomes.push(`${how} after ${at}/${total} bytes: exit ${res.status}`);
      await r.proxy.heal();
      const again = await run(['kg', 'import', '--neo4j', 'csv:kg/demo'], r.env);
      assert.equal(again.status, 0, again.stderr);
      assert.deepEqual(await statsOf(r.env), DEMO_STATS);
      for (const q of r.fb.queries) assert.ok(ALLOWED.has(q), q);
    } finally {
      await r.close();
    }
  }
  console.log(outcomes.join('\n'));
});

test('hostile names (quotes, braces, backticks, $, newlines) go through parameters and come back unchanged', { skip: SKIP }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-hostile-'));
  const r = await rig();
  try {
    const names = ["x'}) DETACH DELETE n //", 'a`b`:Movie {id:1}', '"quoted" \\ back', '$rows', 'line\nbreak', '{}[]();', 'MATCH (n) DELETE n'];
    const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
    const ents = ['id,kind,name,aliases,movie', ...names.map((n, i) => `movie/x${i},Movie,${q(n)},${q(n + ' 别名')},`), `person/p,Person,${q("O'Brien {x}")},,`];
    const rels = ['from,relation,to,movie', ...names.map((_, i) => `person/p,DIRECTED,movie/x${i},`)];
    mkdirSync(join(dir, 'kg'));
    writeFileSync(join(dir, 'kg', 'entities.csv'), ents.join('\n') + '\n');
    writeFileSync(join(dir, 'kg', 'relations.csv'), rels.join('\n') + '\n');
    const imp = await run(['kg', 'import', '--neo4j', `csv:${join(dir, 'kg')}`], r.env);
    assert.equal(imp.status, 0, imp.stderr);
    const snap = join(dir, 'h.fkg');
    const viaSnapshot = await run(['kg', 'import', '--out', snap, `csv:${join(dir, 'kg')}`], {});
    assert.equal(viaSnapshot.status, 0, viaSnapshot.stderr);
    const got = [...r.fb.graph.nodes.values()].filter((n) => n.labels.has('Movie')).map((n) => n.props.name as string).sort();
    const normalized = names.map((n) => n.replace(/\s+/g, ' ').trim()).sort(); // normalizeName collapses whitespace
    assert.deepEqual(got, normalized);
    assert.equal(r.fb.graph.nodes.get('person/p')?.props.name, "O'Brien {x}");
    const snapStats = await run(['kg', 'stats', '--kg', snap, '--json'], {});
    assert.deepEqual(await statsOf(r.env), JSON.parse(snapStats.stdout));
    for (const query of r.fb.queries) assert.ok(ALLOWED.has(query), `a statement built from data: ${query}`);
  } finally {
    await r.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
