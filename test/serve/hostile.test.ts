/**
 * `filmkw serve` against hostile requests (issue 26 item 1), on real listening servers with the demo KG.
 * Each case checks states, never times: the hostile request is refused with its status, the server is
 * still up (GET /api/info answers) and a benign extraction still gets its keywords.
 *
 * - cross-origin POSTs (text/plain without preflight, a foreign Origin, Sec-Fetch-Site cross-site) are
 *   refused before any work; the viewer's own origin and programs (no Origin) are served;
 * - the DNS-rebinding Host check holds for every loopback bind (127.0.0.2, 0:0:0:0:0:0:0:1);
 * - a deeply nested body is 400, not 500;
 * - the 600 KB allPairs + docGraph request that took the process to its 4 GB heap limit is 413;
 * - a request over its time budget is 413 and the thread is replaced;
 * - responses are bounded (edges capped and marked `truncated`; a result over maxResponseBytes is 413).
 * The memory budget, the flood of long texts, the long-text pool and the mixed burst of 240 requests are
 * in test/reliability/slow/serve-hostile-load.test.ts (the reliability suite).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningServer } from '../../src/serve/server.js';
import { hostAllowed, isLoopbackBind, postRefusal } from '../../src/serve/guard.js';
import { unpunctuatedText } from '../pipeline/long-texts.js';
import { SHORT, alive, closeServers, post, raw, server } from './hostile-helpers.js';

after(closeServers);

/**
 * One server with the default limits for the tests that need nothing else (each server starts its worker
 * threads, each loading the KG and warming its preset up: about 1.5 CPU seconds a thread with the default
 * preset). Every request of these tests names its preset, so the threads warm up the cheap textrank.
 */
let plain: Promise<RunningServer> | null = null;
const defaultServer = () => (plain ??= server({}, undefined, 'textrank'));

test('guard: Host check for every loopback spelling of the bind; POST origin and type rules (unit)', () => {
  for (const bind of ['127.0.0.1', '127.0.0.2', '127.1.2.3', '::1', '0:0:0:0:0:0:0:1', '[::1]', '::ffff:127.0.0.1', 'localhost']) {
    assert.ok(isLoopbackBind(bind), bind);
    assert.equal(hostAllowed('attacker.example', bind), false, `${bind}: a foreign name is refused`);
    assert.equal(hostAllowed('attacker.example:8080', bind), false);
    assert.equal(hostAllowed(undefined, bind), false, `${bind}: no Host is refused`);
    for (const ok of ['127.0.0.1:1234', 'localhost', '[::1]:80', '127.0.0.2', '[0:0:0:0:0:0:0:1]:9', '127.1']) assert.ok(hostAllowed(ok, bind), `${bind}: ${ok}`);
  }
  for (const bind of ['0.0.0.0', '::', '192.0.2.1']) {
    assert.equal(isLoopbackBind(bind), false, bind);
    assert.ok(hostAllowed('viewer.example', bind), `${bind}: shared on purpose, any Host`);
  }
  const json = { host: '127.0.0.1:9', contentType: 'application/json' };
  assert.equal(postRefusal(json), null);
  assert.equal(postRefusal({ ...json, contentType: 'Application/JSON; charset=utf-8' }), null);
  assert.equal(postRefusal({ ...json, origin: 'http://127.0.0.1:9', secFetchSite: 'same-origin' }), null);
  assert.equal(postRefusal({ ...json, contentType: 'text/plain' })?.status, 415);
  assert.equal(postRefusal({ ...json, contentType: undefined })?.status, 415);
  assert.equal(postRefusal({ ...json, origin: 'http://evil.example' })?.status, 403);
  assert.equal(postRefusal({ ...json, origin: 'null' })?.status, 403);
  assert.equal(postRefusal({ ...json, origin: 'http://127.0.0.1:10' })?.status, 403, 'another port is another origin');
  assert.equal(postRefusal({ ...json, secFetchSite: 'cross-site' })?.status, 403);
  assert.equal(postRefusal({ ...json, secFetchSite: 'same-site' })?.status, 403);
});

test('cross-origin and non-JSON POSTs are refused before any work; the own origin and programs are served', async () => {
  const s = await defaultServer();
  const text = JSON.stringify({ text: SHORT, preset: 'textrank' });
  // what any web page can send without a preflight: text/plain, form, multipart
  for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const r = await raw(`${s.url}api/extract`, { method: 'POST', headers: { 'content-type': type, origin: 'http://evil.example' }, body: text });
    assert.ok(r.status === 403 || r.status === 415, `${type}: ${r.status}`);
    const noOrigin = await raw(`${s.url}api/extract`, { method: 'POST', headers: { 'content-type': type }, body: text });
    assert.equal(noOrigin.status, 415, type);
    assert.match(noOrigin.json.error, /application\/json/u);
  }
  assert.equal((await post(s, 'api/extract', text, { origin: 'http://evil.example' })).status, 403);
  assert.equal((await post(s, 'api/compare', text, { 'sec-fetch-site': 'cross-site' })).status, 403);
  const own = await post(s, 'api/extract', text, { origin: `http://127.0.0.1:${s.port}`, 'sec-fetch-site': 'same-origin' });
  assert.equal(own.status, 200, JSON.stringify(own.json));
  await alive(s);
});

test('DNS rebinding: the Host check holds when serve binds 127.0.0.2 or 0:0:0:0:0:0:0:1', async () => {
  for (const host of ['127.0.0.2', '0:0:0:0:0:0:0:1']) {
    const s = await server({}, host, 'textrank'); // only GET /api/info: the cheap preset to warm up
    assert.equal((await raw(`${s.url}api/info`, { headers: { host: 'attacker.example' } })).status, 403, host);
    assert.equal((await raw(`${s.url}api/info`, { headers: { host: `attacker.example:${s.port}` } })).status, 403, host);
    assert.equal((await raw(`${s.url}api/info`)).status, 200, `${host}: its own address`);
    assert.equal((await raw(`${s.url}api/info`, { headers: { host: `localhost:${s.port}` } })).status, 200);
  }
});

test('a malformed body is 400, deeply nested options included (was 500)', async () => {
  const s = await defaultServer();
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  for (const body of [
    `{"text":"${SHORT}","options":{"graph.window":${deep(100_000)}}}`,
    `{"text":"${SHORT}","options":{"graph":{"window":{"a":{"b":{"c":{"d":{"e":{"f":{"g":3}}}}}}}}}}`,
    `{"text":"${SHORT}","options":${deep(50)}}`,
    `{"text":"${SHORT}","gold":${deep(1000)}}`,
    '{"text": "unterminated',
    '[1,2,3]',
    'null',
    `{"text":"${SHORT}","options":{"__proto__":{"x":1}}}`,
    `{"text":"${SHORT}","topK":1e999}`,
  ]) {
    const r = await post(s, 'api/extract', body);
    assert.equal(r.status, 400, `${body.slice(0, 60)}: ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
    assert.equal(typeof r.json.error, 'string');
  }
  await alive(s);
});

test('the 600 KB allPairs + docGraph request is 413 (was: the process at its 4 GB heap limit, exit 134); the server stays up', async () => {
  const s = await defaultServer(); // a long text: the long-text pool's thread
  const text = unpunctuatedText(199_000, 26);
  const body = { text, preset: 'textrank+w+g+r', options: { 'semantic.smScope': 'allPairs', 'semantic.jaccardNeighbours': 'docGraph' } };
  assert.ok(Buffer.byteLength(JSON.stringify(body)) > 500_000);
  const r = await post(s, 'api/extract', body);
  assert.equal(r.status, 413, JSON.stringify(r.json).slice(0, 300));
  assert.match(r.json.error, /too large for semantic\.smScope "allPairs"/u);
  await alive(s);
});

test('time budget: a request still running at requestTimeoutMs is stopped with 413 and its thread replaced', async () => {
  const s = await server({ requestTimeoutMs: 100 });
  const r = await post(s, 'api/extract', { text: unpunctuatedText(199_000, 27) });
  assert.equal(r.status, 413, JSON.stringify(r.json));
  assert.match(r.json.error, /longer than 100 ms/u);
  assert.equal((await raw(`${s.url}api/info`)).status, 200);
});

test('bounded responses: edges capped to maxEdges (marked truncated), a result over maxResponseBytes is 413', async () => {
  // one server with both bounds: 300 characters give a result of about 9 KB once its edges are capped, 5000 about 96 KB
  const small = await server({ maxEdges: 10, maxResponseBytes: 20_000 }, undefined, 'textrank');
  const r = await post(small, 'api/extract', { text: unpunctuatedText(300, 29), preset: 'textrank' });
  assert.equal(r.status, 200);
  assert.equal(r.json.edges.length, 10);
  assert.ok(r.json.truncated.edges > 10, JSON.stringify(r.json.truncated));
  const weights = r.json.edges.map((e: { weight: number }) => e.weight);
  assert.ok(Math.min(...weights) >= 1, 'the heaviest edges are kept');
  const big = await post(small, 'api/extract', { text: unpunctuatedText(5000, 29), preset: 'textrank' });
  assert.equal(big.status, 413);
  assert.match(big.json.error, /over the bound of 20000/u);
  await alive(small);
});

