/**
 * `filmkw kg stats --neo4j` / `kg import --neo4j` / `tag --neo4j` / `dict export --neo4j`: one clear line
 * and a distinct exit code for each Neo4j failure, stats equal to the embedded store's against the scripted
 * Bolt server (the commands run in this process, test/cli/in-process.ts), and every bin/filmkw process
 * ending after its error line when the peer accepts TCP but never answers Bolt (run `npm run build` first).
 * Marked todo until the kg command has its --neo4j option.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { KgStore } from '../../src/kg/store.js';
import { writeKgToNeo4j } from '../../src/kg/neo4j.js';
import { FakeBolt } from '../fixtures/neo4j/fake-bolt.js';
import { demoKg } from '../fixtures/neo4j/demo-kg.js';
import { cli } from '../fixtures/neo4j/server.js';
import { filmkw } from './in-process.js';
import { until } from '../helpers/wait.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const landed = readFileSync(`${root}src/cli/commands/kg.ts`, 'utf8').includes('--neo4j');
const TODO = !landed && 'waits for `kg stats --neo4j` / `kg import --neo4j` in src/cli/commands/kg.ts';

/** `filmkw ARGS` in this process with the NEO4J_* / FILMKW_NEO4J_* variables of this process replaced by `env`. */
function run(args: string[], env: Record<string, string | undefined>) {
  const cleared = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('NEO4J_') || k.startsWith('FILMKW_NEO4J_')).map((k) => [k, undefined]));
  return filmkw(args, { env: { ...cleared, ...env } });
}

test('a peer that accepts TCP and never answers Bolt: every --neo4j command prints its exit-4 line and ends', async () => {
  // reads what the client sends (so it sees the client close) and never answers; counts open connections
  const open = new Set<net.Socket>();
  const peer = net.createServer((s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => undefined);
    s.resume();
  });
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  const { port } = peer.address() as net.AddressInfo;
  try {
    const commands = [['kg', 'stats', '--neo4j'], ['kg', 'import', '--neo4j', 'csv:kg/demo'], ['tag', '--neo4j', '--format', 'txt', 'README.md'], ['dict', 'export', '--neo4j', '--out', '-']];
    // plain Bolt, routing, and TLS (whose socket the driver opens through tls.connect, ended by bin/filmkw)
    const cases = commands.flatMap((args) => ['bolt', 'neo4j', 'bolt+ssc'].map((scheme) => ({ args, scheme })));
    // a process that has not ended 5 minutes after it started hangs (it would never end); a loaded machine
    // only makes it end later
    const results = await Promise.all(
      cases.map(({ args, scheme }) =>
        cli(args, { NEO4J_URI: `${scheme}://127.0.0.1:${port}`, NEO4J_PASSWORD: 'x', FILMKW_NEO4J_ACQUISITION_TIMEOUT_MS: '1500' }, { killAfterMs: 300_000 }),
      ),
    );
    results.forEach((r, i) => {
      const what = `${cases[i].scheme}: filmkw ${cases[i].args.join(' ')}`;
      assert.equal(r.hung, false, `${what} did not end after its error (stderr: ${r.stderr})`);
      assert.equal(r.status, 4, `${what}: ${r.stderr}`);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('filmkw: '));
      assert.deepEqual(lines.length, 1, `${what}: ${r.stderr}`);
      assert.match(lines[0], new RegExp(`^filmkw: neo4j: cannot connect to ${cases[i].scheme.replace('+', '\\+')}://127\\.0\\.0\\.1:${port}: is the server running\\? \\(Connection acquisition timed out in 1500 ms`));
      assert.ok(r.stderr.endsWith(`${lines[0]}\n`), `${what}: the error line is the last output: ${r.stderr}`);
      assert.equal(r.stdout, '', what);
    });
    // the children are gone, and so are their connections
    await until('the connections of the ended processes to close', () => open.size === 0);
  } finally {
    for (const s of open) s.destroy();
    await new Promise((r) => peer.close(r));
  }
});

test('kg stats --neo4j, server not running: exit 4, one line, no stack trace', { todo: TODO }, async () => {
  const r = await run(['kg', 'stats', '--neo4j'], { NEO4J_URI: 'bolt://127.0.0.1:1', NEO4J_USER: 'neo4j', NEO4J_PASSWORD: 'x' });
  assert.equal(r.status, 4, r.stderr);
  assert.match(r.stderr, /^filmkw: neo4j: cannot connect to bolt:\/\/127\.0\.0\.1:1: is the server running\? \(connect ECONNREFUSED 127\.0\.0\.1:1\)\n$/);
  assert.equal(r.stdout, '');
});

test('kg stats --neo4j without NEO4J_URI: usage error (exit 2) naming the variables', { todo: TODO }, async () => {
  const r = await run(['kg', 'stats', '--neo4j'], {});
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /neo4j: NEO4J_URI is not set \(also NEO4J_USER, NEO4J_PASSWORD\)/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('kg stats --neo4j --json equals the embedded store stats; wrong password exits 5', { todo: TODO }, async () => {
  const fb = await new FakeBolt({ user: 'neo4j', password: 'pw' }).start();
  try {
    const data = demoKg();
    await writeKgToNeo4j(data, { uri: fb.uri, user: 'neo4j', password: 'pw' });
    const ok = await run(['kg', 'stats', '--neo4j', '--json'], { NEO4J_URI: fb.uri, NEO4J_USER: 'neo4j', NEO4J_PASSWORD: 'pw' });
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout), KgStore.fromData(data).stats());
    const bad = await run(['kg', 'stats', '--neo4j', '--json'], { NEO4J_URI: fb.uri, NEO4J_USER: 'neo4j', NEO4J_PASSWORD: 'nope' });
    assert.equal(bad.status, 5, bad.stderr);
    assert.match(bad.stderr, /^filmkw: neo4j: authentication failed for user "neo4j" at bolt:\/\/127\.0\.0\.1:\d+: .*check NEO4J_USER and NEO4J_PASSWORD\n$/);
  } finally {
    await fb.stop();
  }
});

test('kg import --neo4j csv:kg/demo twice: exit 0, stats equal the store; refused server exits 4', { todo: TODO }, async () => {
  const fb = await new FakeBolt({ user: 'neo4j', password: 'pw' }).start();
  try {
    const env = { NEO4J_URI: fb.uri, NEO4J_USER: 'neo4j', NEO4J_PASSWORD: 'pw' };
    for (let i = 0; i < 2; i++) {
      const r = await run(['kg', 'import', '--neo4j', 'csv:kg/demo'], env);
      assert.equal(r.status, 0, r.stderr);
    }
    const stats = await run(['kg', 'stats', '--neo4j', '--json'], env);
    assert.deepEqual(JSON.parse(stats.stdout), KgStore.fromData(demoKg()).stats());
    const refused = await run(['kg', 'import', '--neo4j', 'csv:kg/demo'], { ...env, NEO4J_URI: 'bolt://127.0.0.1:1' });
    assert.equal(refused.status, 4, refused.stderr);
    assert.match(refused.stderr, /filmkw: neo4j: cannot connect to bolt:\/\/127\.0\.0\.1:1: is the server running\?/);
    assert.doesNotMatch(refused.stderr, /\n\s+at /);
  } finally {
    await fb.stop();
  }
});
