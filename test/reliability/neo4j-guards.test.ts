/**
 * Issue 5, the Neo4j checks that need no injected fault (the faults themselves, which wait for the
 * driver's deadlines and retries: test/reliability/slow/neo4j-faults.test.ts, neo4j-cli-faults.test.ts):
 * FILMKW_NEO4J_*_MS become tuning and bad values are usage errors; a peer on the port that is no Bolt
 * server (HTTP, a banner, accept-and-close) is NEO4J_UNAVAILABLE with one line, ended by its answer, not a
 * deadline; the only interpolations in the Cypher text of src/kg/neo4j*.ts are enum-checked labels and types;
 * a peer that accepts TCP and never answers Bolt: `kg stats --neo4j` through bin/filmkw prints its exit-4
 * line and ends (every command and scheme: test/reliability/slow/neo4j-silent-peer.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FilmkwError } from '../../src/errors.js';
import { neo4jConfigFromEnv, neo4jStats, type Neo4jTuning } from '../../src/kg/neo4j.js';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { cli, ROOT } from '../fixtures/neo4j/server.js';
import { until } from '../helpers/wait.js';

/** Deadlines no loaded machine reaches: the peer's answer ends each call. */
const OK_TUNING: Partial<Neo4jTuning> = { connectionTimeoutMs: 60_000, connectionAcquisitionTimeoutMs: 60_000, maxTransactionRetryTimeMs: 1500, transactionTimeoutMs: 120_000, closeTimeoutMs: 500 };

test('timeouts from the environment: FILMKW_NEO4J_*_MS become tuning, bad values are usage errors', () => {
  const base = { NEO4J_URI: 'bolt://h:7687', NEO4J_PASSWORD: 'p' };
  assert.deepEqual(neo4jConfigFromEnv({ ...base, FILMKW_NEO4J_TX_TIMEOUT_MS: '2000', FILMKW_NEO4J_RETRY_TIME_MS: '500' }).tuning, {
    maxTransactionRetryTimeMs: 500,
    transactionTimeoutMs: 2000,
  });
  assert.equal(neo4jConfigFromEnv(base).tuning, undefined);
  for (const bad of ['0', '-1', '1.5', 'soon', '1e3']) {
    assert.throws(
      () => neo4jConfigFromEnv({ ...base, FILMKW_NEO4J_CONNECT_TIMEOUT_MS: bad }),
      (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && e.message === `neo4j: FILMKW_NEO4J_CONNECT_TIMEOUT_MS must be a positive integer (milliseconds), got ${JSON.stringify(bad)}`,
    );
  }
});

test('not a Bolt server on the port (HTTP, an SSH-like banner, accept-and-close): NEO4J_UNAVAILABLE with one line', async () => {
  const behaviours: [string, (s: import('node:net').Socket) => void, RegExp][] = [
    ['http', (s) => s.once('data', () => s.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n')), /Server responded HTTP.*; is it a Neo4j 5 server speaking Bolt\?\)$/],
    ['banner', (s) => s.once('data', () => s.write('SSH-2.0-OpenSSH_9.6\r\n')), /\)$/],
    ['close', (s) => s.destroy(), /\)$/],
  ];
  const net = await import('node:net');
  for (const [name, behave, re] of behaviours) {
    const srv = net.createServer((s) => {
      s.on('error', () => undefined);
      behave(s);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as import('node:net').AddressInfo).port;
    try {
      // the peer's answer ends the call, not a deadline
      await assert.rejects(neo4jStats({ uri: `bolt://127.0.0.1:${port}`, user: 'neo4j', password: 'pw' }, { tuning: OK_TUNING }), (e: unknown) => {
        assert.ok(e instanceof FilmkwError, `${name}: ${String(e)}`);
        assert.equal(e.code, 'NEO4J_UNAVAILABLE', `${name}: ${e.message}`);
        assert.match(e.message, new RegExp(`^neo4j: cannot connect to bolt://127\\.0\\.0\\.1:${port}: is the server running\\? \\(`));
        assert.match(e.message, re, name);
        assert.ok(!e.message.includes('\n'), name);
        return true;
      });
    } finally {
      await new Promise<void>((r) => srv.close(() => r()));
    }
  }
});

test('static: the only interpolations in Cypher text of src/kg/neo4j*.ts are enum-checked labels and types', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const dir = new URL('../../src/kg/', import.meta.url);
  const files = readdirSync(dir).filter((f) => /^neo4j.*\.ts$/.test(f));
  assert.ok(files.includes('neo4j.ts') && files.includes('neo4j-cypher.ts'), files.join(', '));
  const texts = files.map((f) => readFileSync(new URL(f, dir), 'utf8'));
  const src = texts.join('\n');
  const cypher = /\b(MATCH|MERGE|UNWIND|RETURN|CREATE|REMOVE|DELETE|SET)\b/;
  const allowed = new Set(['k', "others.join(':')", 'checkEntityKind(k)', 'checkRelationKind(k)', 'types']);
  const templates = texts.flatMap((text) => [...text.matchAll(/`([^`]*)`/g)].map((m) => m[1])).filter((t) => cypher.test(t) && t.includes('${'));
  assert.ok(templates.length >= 4, `found ${templates.length} Cypher templates`);
  for (const t of templates) {
    for (const [, expr] of t.matchAll(/\$\{([^}]*)\}/g)) assert.ok(allowed.has(expr), `data may reach Cypher text: \${${expr}} in \`${t}\``);
  }
  // and the variables used there come from the checkers
  assert.match(src, /const k = checkEntityKind\(kind\);/);
  assert.match(src, /const k = checkRelationKind\(kind\);/);
  assert.match(src, /const types = RELATION_KINDS\.filter\(\(k\) => k !== 'ALIAS'\)\.map\(checkRelationKind\)\.join\('\|'\);/);
});

test('a peer that accepts TCP and never answers Bolt: bin/filmkw kg stats --neo4j prints its exit-4 line and ends', { skip: !existsSync(`${ROOT}dist/cli/main.js`) && 'needs `npm run build` (dist/)' }, async () => {
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
    // a process that has not ended 5 minutes after it started hangs; a loaded machine only makes it end later
    const r = await cli(['kg', 'stats', '--neo4j'], { NEO4J_URI: `bolt://127.0.0.1:${port}`, NEO4J_PASSWORD: 'x', FILMKW_NEO4J_ACQUISITION_TIMEOUT_MS: '1500' }, { killAfterMs: 300_000 });
    assert.equal(r.hung, false, `did not end after its error (stderr: ${r.stderr})`);
    assert.equal(r.status, 4, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('filmkw: '));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], new RegExp(`^filmkw: neo4j: cannot connect to bolt://127\\.0\\.0\\.1:${port}: is the server running\\? \\(Connection acquisition timed out in 1500 ms`));
    assert.ok(r.stderr.endsWith(`${lines[0]}\n`), `the error line is the last output: ${r.stderr}`);
    assert.equal(r.stdout, '');
    await until('the connection of the ended process to close', () => open.size === 0);
  } finally {
    for (const s of open) s.destroy();
    await new Promise((r) => peer.close(r));
  }
});
