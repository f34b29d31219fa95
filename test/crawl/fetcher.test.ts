/**
 * The fetcher's retry of a kept-alive socket the server closed while it was idle. A server that closes
 * idle sockets closes every one of them, so the retry must not take the next socket of the pool: here the
 * server answers the first request of each connection and resets the connection at its second, and the
 * pool holds two idle sockets when the third request goes out. Counted: connections and answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { Fetcher } from '../../src/crawl/fetcher.js';
import { resolveCrawlOptions } from '../../src/crawl/options.js';

/** A raw HTTP server: the first request on a connection is answered (kept alive), any later one resets it. */
async function oneRequestPerConnection(): Promise<{ url: string; connections: () => number; answers: () => number; close: () => Promise<void> }> {
  let connections = 0;
  let answers = 0;
  const sockets = new Set<Socket>();
  const server = createServer((sock) => {
    connections++;
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => {});
    let requests = 0;
    let buf = '';
    sock.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      while (buf.includes('\r\n\r\n')) {
        buf = buf.slice(buf.indexOf('\r\n\r\n') + 4);
        if (++requests > 1) {
          sock.resetAndDestroy();
          return;
        }
        answers++;
        const body = '<html><body>ok</body></html>';
        sock.write(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    answers: () => answers,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

test('fetcher: a request on a kept-alive socket the server dropped is made again on a connection of its own, even when every idle socket of the pool is dropped', async () => {
  const s = await oneRequestPerConnection();
  const f = new Fetcher(resolveCrawlOptions({ timeoutMs: 30_000 }), s.url);
  try {
    // two requests at once: two connections, both idle in the pool afterwards
    const first = await Promise.all([f.fetch('http://a.example/1'), f.fetch('http://b.example/1')]);
    assert.deepEqual(
      first.map((r) => r.status),
      [200, 200],
    );
    assert.equal(s.connections(), 2);
    // the third goes out on an idle socket, which the server resets; the retry must not take the other one
    const r = await f.fetch('http://a.example/2');
    assert.equal(r.error, undefined, `no error: ${r.error}`);
    assert.equal(r.status, 200);
    assert.equal(s.answers(), 3);
    assert.equal(s.connections(), 3, 'the retry opened one new connection');
  } finally {
    f.close();
    await s.close();
  }
});
