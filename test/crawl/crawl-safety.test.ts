/**
 * The crawl items of issue 26: `--set` refusing prototype keys (the command run in this process,
 * test/cli/in-process.ts), Content-Encoding decoded with the size cap applied to the decoded bytes (no
 * decompression bomb), and percent-encoded unreserved characters normalised before dedup (`/%66rag` is
 * `/frag`). `<out>.lock` with two bin/filmkw processes on one folder (the second fails with exit 7 naming
 * the first): test/integration/crawl/crawl-lock.test.ts (the lock itself: test/util/lock.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { crawl } from '../../src/crawl/crawler.js';
import { normalizeUrl } from '../../src/crawl/url.js';
import { filmPage, offPage, opts, plainResources, serveWeb } from './web.js';
import { filmkw } from '../cli/in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const index = (out: string) => readFileSync(join(out, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { url: string; status: number; relevant: boolean; error?: string });

test('crawl --set refuses prototype keys (exit 2, one line) as tag does', async () => {
  const s = await serveWeb([{ url: 'http://films.example/', body: filmPage('首页', []) }]);
  try {
    for (const kv of ['__proto__={"mode":"bfs"}', 'constructor=1', 'toString=1', 'topicWeights.__proto__=1']) {
      const out = join(mkdtempSync(join(tmpdir(), 'filmkw-crawl-set-')), 'c');
      const r = await filmkw(['crawl', '--seeds', 'http://films.example/', '--out', out, '--via', s.url, '--set', kv]);
      assert.equal(r.status, 2, `${kv}: ${r.stderr}`);
      assert.match(r.stderr, /^filmkw: crawl: --set: "[^"]+" is not allowed: "(__proto__|constructor|toString)" is a built-in property of JavaScript objects, not an option or field name\n$/u);
      assert.equal(s.stats.requests, 0, 'nothing fetched');
    }
  } finally {
    await s.close();
  }
});

/** A server that answers by path with coded bodies (Content-Encoding), any Host. */
async function codingServer(pages: Record<string, { body: Buffer; coding?: string }>): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const p = pages[req.url ?? ''];
    if (!p) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': p.body.length, ...(p.coding ? { 'content-encoding': p.coding } : {}) });
    res.end(p.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test('Content-Encoding gzip, x-gzip, deflate (zlib and raw) and br is decoded; the cap counts decoded bytes (a 40 MB gzip bomb stops at 1 MiB); an unknown coding is a clear error', async () => {
  const html = Buffer.from(filmPage('压缩影片', []));
  const bomb = gzipSync(Buffer.concat([Buffer.from('<html><body><p>'), Buffer.alloc(40 << 20, 0x20), Buffer.from('</p></body></html>')]));
  assert.ok(bomb.length < 100_000, 'the bomb is small on the wire');
  const { server, url } = await codingServer({
    '/gz': { body: gzipSync(html), coding: 'gzip' },
    '/xgz': { body: gzipSync(html), coding: 'x-gzip' },
    '/deflate': { body: deflateSync(html), coding: 'deflate' },
    '/raw-deflate': { body: deflateRawSync(html), coding: 'deflate' },
    '/br': { body: brotliCompressSync(html), coding: 'br' },
    '/plain': { body: html },
    '/bomb': { body: bomb, coding: 'gzip' },
    '/zstd': { body: Buffer.from('xx'), coding: 'zstd' },
    '/broken': { body: Buffer.from('not gzip at all'), coding: 'gzip' },
  });
  try {
    const paths = ['/gz', '/xgz', '/deflate', '/raw-deflate', '/br', '/plain', '/bomb', '/zstd', '/broken'];
    const out = join(mkdtempSync(join(tmpdir(), 'filmkw-crawl-ce-')), 'c');
    await crawl({ seeds: paths.map((p) => `http://coded.example${p}`), out, via: url }, opts({ maxPages: 20, maxBytes: 1 << 20, saveRule: 'sim' }), plainResources);
    const lines = new Map(index(out).map((l) => [new URL(l.url).pathname, l]));
    for (const p of ['/gz', '/xgz', '/deflate', '/raw-deflate', '/br', '/plain']) {
      const l = lines.get(p)!;
      assert.equal(l.error, undefined, `${p}: ${l.error}`);
      assert.equal(l.relevant, true, p);
    }
    assert.match(lines.get('/bomb')!.error!, /^body larger than the cap of 1048576 bytes once decoded \(content-encoding gzip\)$/u);
    assert.equal(lines.get('/zstd')!.error, 'content-encoding zstd is not supported');
    assert.match(lines.get('/broken')!.error!, /^body not decodable as gzip: /u);
    const texts = readFileSync(join(out, 'texts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { url: string; text: string });
    assert.equal(texts.length, 6);
    assert.ok(texts.every((t) => t.text === texts[0]!.text && /剧情简介/u.test(t.text)), 'the same text from every coding');
    const payloads = new Map<string, { body: string; coding?: string | null }>();
    for await (const r of new WARCParser([readFileSync(join(out, 'crawl.warc.gz'))])) {
      const body = Buffer.from(await r.readFully()).toString('utf8');
      if (r.warcType === 'response') payloads.set(new URL(r.warcTargetURI!).pathname, { body, coding: r.httpHeaders?.headers.get('content-encoding') });
    }
    for (const p of ['/gz', '/deflate', '/br']) assert.deepEqual(payloads.get(p), { body: html.toString('utf8'), coding: null }, `${p}: the WARC holds the decoded page without its coding header`);
  } finally {
    server.close();
  }
});

test('percent-encoded unreserved characters are normalised before dedup: /%66rag is /frag (fetched once); other encodings upper-cased', async () => {
  assert.deepEqual(normalizeUrl('http://a.example/%66rag'), { url: 'http://a.example/frag' });
  assert.deepEqual(normalizeUrl('http://a.example/a%2fb%7e%2D%5f'), { url: 'http://a.example/a%2Fb~-_' });
  assert.deepEqual(normalizeUrl('http://a.example/%e4%b8%ad'), normalizeUrl('http://a.example/中'));
  assert.deepEqual(normalizeUrl('http://a.example/x?q=%66'), { url: 'http://a.example/x?q=f' });
  const s = await serveWeb([
    { url: 'http://a.example/', body: offPage('首页', ['/frag', '/%66rag', '/%66%72%61%67', 'http://A.example/fr%61g#top']) },
    { url: 'http://a.example/frag', body: offPage('碎片', []) },
  ]);
  try {
    const out = join(mkdtempSync(join(tmpdir(), 'filmkw-crawl-pct-')), 'c');
    await crawl({ seeds: ['http://a.example/'], out, via: s.url }, opts({ mode: 'bfs', maxPages: 20 }), plainResources);
    assert.deepEqual(index(out).map((l) => [l.url, l.status]), [
      ['http://a.example/', 200],
      ['http://a.example/frag', 200],
    ]);
    assert.equal(s.stats.hits.get('a.example/frag'), 1);
  } finally {
    await s.close();
  }
});
