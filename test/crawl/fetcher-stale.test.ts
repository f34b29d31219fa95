// The fetcher's retry of requests sent on kept-alive sockets the server has dropped (src/crawl/fetcher.ts
// `once`): several idle sockets can be gone at once; every one of them is tried and dropped, then a fresh
// socket answers. The server resets any connection on its second request, so each reused socket fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Fetcher } from '../../src/crawl/fetcher.js';
import { CRAWL_DEFAULTS } from '../../src/crawl/options.js';

async function resettingServer(): Promise<{ server: Server; url: string; resets: () => number; gate: { open: () => void } }> {
  const served = new WeakMap<Socket, number>();
  let resets = 0;
  let open!: () => void;
  const ready = new Promise<void>((r) => (open = r));
  let waiting = 0;
  const server = createServer(async (req, res) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    if (n > 1) {
      resets++;
      req.socket.resetAndDestroy();
      return;
    }
    // the first round is held until four requests are open at once: four sockets, all kept alive after it
    if (++waiting <= 4) {
      if (waiting === 4) open();
      await ready;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><body>片</body></html>');
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, resets: () => resets, gate: { open } };
}

test('fetcher: four kept-alive sockets all reset on reuse; the request is retried past every one and answered on a fresh socket', async () => {
  const s = await resettingServer();
  const f = new Fetcher(CRAWL_DEFAULTS, s.url);
  try {
    const first = await Promise.all([1, 2, 3, 4].map((i) => f.fetch(`http://films.example/${i}`)));
    assert.deepEqual(first.map((r) => r.status), [200, 200, 200, 200]);
    const again = await f.fetch('http://films.example/5');
    assert.equal(again.error, undefined);
    assert.equal(again.status, 200);
    assert.equal(s.resets(), 4, 'each of the four idle sockets was tried once and dropped');
  } finally {
    f.close();
    s.server.closeAllConnections();
    await new Promise<void>((r) => s.server.close(() => r()));
  }
});
