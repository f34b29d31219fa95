/**
 * A peer that accepts TCP and never answers Bolt: every `--neo4j` command (kg stats, kg import, tag, dict
 * export) under every scheme (bolt, neo4j, bolt+ssc) prints its exit-4 line and its bin/filmkw process ends,
 * closing its connections (run `npm run build` first). In the reliability suite (moved from
 * test/cli/neo4j-cli.test.ts): twelve processes, each waiting for its acquisition deadline; one command in
 * the fast suite: test/reliability/neo4j-guards.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { cli } from '../../fixtures/neo4j/server.js';
import { until } from '../../helpers/wait.js';

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
