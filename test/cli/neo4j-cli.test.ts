/**
 * `filmkw kg stats --neo4j` / `kg import --neo4j` / `tag --neo4j` / `dict export --neo4j`: one clear line
 * and a distinct exit code for each Neo4j failure, stats equal to the embedded store's against the scripted
 * Bolt server (the commands run in this process, test/cli/in-process.ts). Every bin/filmkw process ending
 * after its error line when the peer accepts TCP but never answers Bolt: test/reliability/neo4j-guards.test.ts
 * (one command) and test/reliability/slow/neo4j-silent-peer.test.ts (every command, every scheme).
 * Marked todo until the kg command has its --neo4j option.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KgStore } from '../../src/kg/store.js';
import { writeKgToNeo4j } from '../../src/kg/neo4j.js';
import { FakeBolt } from '../fixtures/neo4j/fake-bolt.js';
import { demoKg } from '../fixtures/neo4j/demo-kg.js';
import { filmkw } from './in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const landed = readFileSync(`${root}src/cli/commands/kg.ts`, 'utf8').includes('--neo4j');
const TODO = !landed && 'waits for `kg stats --neo4j` / `kg import --neo4j` in src/cli/commands/kg.ts';

/** `filmkw ARGS` in this process with the NEO4J_* / FILMKW_NEO4J_* variables of this process replaced by `env`. */
function run(args: string[], env: Record<string, string | undefined>) {
  const cleared = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('NEO4J_') || k.startsWith('FILMKW_NEO4J_')).map((k) => [k, undefined]));
  return filmkw(args, { env: { ...cleared, ...env } });
}

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
