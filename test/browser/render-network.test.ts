/**
 * Issue 26: the rendered mode of `html records` (real chromium) loads nothing from the network. A page
 * carrying every resource hint (prefetch, preload, modulepreload, prerender, preconnect, dns-prefetch,
 * speculation rules, a meta refresh, a stylesheet, an image) pointing at two local hit counters
 * (127.0.0.1 and 127.0.0.2) is rendered with scripts off and on. Waits are on events: the control
 * (chromium with the request router alone, which is how the rendered mode ran before) polls for its
 * first hit; after the renderer is closed, a connection of the test's own to each counter is accepted
 * after any the browser made (the accept queue is in order), then the counters must be at zero.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, ChromiumRecordRenderer, NETWORK_BLOCK_ARGS, allowedUrl, chromiumArgs, withoutRefresh } from '../../src/html/render.js';
import { CHROMIUM_PATH } from '../../src/html/records.js';
import { until } from '../helpers/wait.js';
import { chromiumSkip } from './chromium.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const skip = chromiumSkip();

interface Counter {
  host: string;
  server: Server;
  port: number;
  hits: string[];
  sockets: number;
}
let counters: Counter[] = [];

async function startCounter(host: string): Promise<Counter> {
  const c: Counter = { host, server: createServer(), port: 0, hits: [], sockets: 0 };
  c.server.on('request', (req, res) => {
    c.hits.push(req.url ?? '');
    res.end('body { color: red }');
  });
  c.server.on('connection', () => c.sockets++);
  await new Promise<void>((ok) => c.server.listen(0, host, ok));
  c.port = (c.server.address() as { port: number }).port;
  return c;
}

/** Resolves once a connection of the test's own was accepted by `c` (after every earlier one). */
async function barrier(c: Counter): Promise<void> {
  const accepted = new Promise<void>((ok) => c.server.once('connection', () => ok()));
  const s = connect(c.port, c.host);
  await accepted;
  s.destroy();
  c.sockets--;
}

before(async () => {
  if (skip) return;
  counters = [await startCounter('127.0.0.1'), await startCounter('127.0.0.2')];
});
after(async () => {
  for (const c of counters) {
    c.server.closeAllConnections();
    await new Promise((ok) => c.server.close(ok));
  }
});

/** The douban list fixture with every kind of hint in its head, at both counters. */
function hostilePage(): string {
  const page = readFileSync(join(root, 'test', 'fixtures', 'html', 'records', 'douban-list.html'), 'utf8');
  const hints = counters.flatMap(({ host, port }) => {
    const u = (p: string) => `http://${host}:${port}/${p}`;
    return [
      `<link rel="prefetch" href="${u('prefetch')}">`,
      `<link rel="preload" href="${u('preload')}" as="fetch" crossorigin>`,
      `<link rel="preload" href="${u('preload.png')}" as="image">`,
      `<link rel="modulepreload" href="${u('module.js')}">`,
      `<link rel="prerender" href="${u('prerender')}">`,
      `<link rel="preconnect" href="${u('')}">`,
      `<link rel="dns-prefetch" href="//${host}:${port}/">`,
      `<link rel="stylesheet" href="${u('style.css')}">`,
      `<script type="speculationrules">{"prefetch":[{"source":"list","urls":["${u('spec-prefetch')}"]}],"prerender":[{"source":"list","urls":["${u('spec-prerender')}"]}]}</script>`,
      `<META HTTP-EQUIV="Refresh" content="0; url=${u('refresh')}"/>`,
    ];
  });
  const withHints = page.replace(/<head>/iu, `<head>${hints.join('\n')}`);
  assert.notEqual(withHints, page);
  return withHints.replace(/<body([^>]*)>/iu, `<body$1><img src="http://127.0.0.1:${counters[0]!.port}/img.png">`);
}

test('withoutRefresh cuts only the refresh elements, whatever their case and form', () => {
  const page = '<html><head><meta charset="utf-8"><META HTTP-EQUIV="Refresh" content="0;url=http://x/"/><meta http-equiv=" refresh " content=1></head><body>正文<meta name="refresh"></body></html>';
  assert.equal(withoutRefresh(page), '<html><head><meta charset="utf-8"></head><body>正文<meta name="refresh"></body></html>');
  const plain = '<p>没有刷新</p>';
  assert.equal(withoutRefresh(plain), plain);
  assert.equal(allowedUrl('http://127.0.0.1/'), false);
  for (const uid of [0, 1000]) assert.ok(chromiumArgs(uid).includes(NETWORK_BLOCK_ARGS[0]!), 'the rendered mode runs with the block');
  assert.ok(!CHROMIUM_ARGS.includes(NETWORK_BLOCK_ARGS[0]!), 'the switches the viewer tests share do not block their server');
});

test('control: chromium with the request router alone lets the page reach the counter (the leak the block closes)', { skip }, async () => {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: chromiumArgs().filter((a) => !NETWORK_BLOCK_ARGS.includes(a)), chromiumSandbox: process.getuid?.() !== 0 });
  try {
    const context = await browser.newContext({ javaScriptEnabled: false, serviceWorkers: 'block' });
    await context.route('**/*', (route) => (allowedUrl(route.request().url()) ? route.continue() : route.abort('blockedbyclient')));
    const page = await context.newPage();
    await page.setContent(withoutRefresh(hostilePage()), { waitUntil: 'domcontentloaded' });
    await until('the first hit on the counter', () => counters[0]!.hits.length > 0);
    assert.ok(counters[0]!.hits.includes('/prefetch'), `hits: ${JSON.stringify(counters[0]!.hits)}`);
  } finally {
    await browser.close();
  }
  for (const c of counters) {
    await barrier(c);
    c.hits.length = 0;
    c.sockets = 0;
  }
});

test('the rendered mode: no request and no connection reaches either counter, scripts off and on; the records are those of the clean page', { skip }, async () => {
  const clean = readFileSync(join(root, 'test', 'fixtures', 'html', 'records', 'douban-list.html'), 'utf8');
  const hostile = hostilePage();
  for (const javaScript of [false, true]) {
    const r = await ChromiumRecordRenderer.launch({ javaScript });
    let want: string[];
    try {
      want = await r.recordBlocks(clean);
      assert.ok(want.length >= 3, `${want.length} records on the clean page`);
      for (let i = 0; i < 3; i++) {
        const got = await r.recordBlocks(hostile);
        assert.deepEqual(got, want, `javaScript ${javaScript}, pass ${i}: the refresh did not replace the page`);
      }
    } finally {
      await r.close();
    }
    for (const c of counters) {
      await barrier(c);
      assert.deepEqual(c.hits, [], `${c.host}, javaScript ${javaScript}: requests`);
      assert.equal(c.sockets, 0, `${c.host}, javaScript ${javaScript}: connections`);
    }
  }
});
