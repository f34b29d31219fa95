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
 * - a request over its time budget, or over its memory budget (its worker thread's heap), is 413 and
 *   the thread is replaced;
 * - responses are bounded (edges capped and marked `truncated`; a result over maxResponseBytes is 413);
 * - a flood of long texts gets 503 + Retry-After beyond the heavy queue, and short requests still run;
 * - long texts run in a pool of their own (lower CPU priority): short requests sent while long ones run
 *   and wait are all answered, every one by the short-text pool (counted in /api/info `load`);
 * - a mixed burst of benign and hostile requests: every benign one answered 200, every hostile one
 *   refused (400, 403, 413, 415, or 503 when long texts already fill the heavy queue), the server alive (the timed 1,000-request version is bench/serve-load.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { loadKg } from '../../src/kg/load.js';
import type { KgStore } from '../../src/kg/store.js';
import { startServer, type RunningServer, type ServeLimits } from '../../src/serve/server.js';
import { hostAllowed, isLoopbackBind, postRefusal } from '../../src/serve/guard.js';
import { unpunctuatedText } from '../pipeline/long-texts.js';
import { until } from '../helpers/wait.js';

const SHORT = '以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。吴京饰演的连长伍千里是他的哥哥。';

let kg: KgStore;
const servers: RunningServer[] = [];
before(async () => {
  kg = await loadKg();
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function server(limits: Partial<ServeLimits> = {}, host?: string): Promise<RunningServer> {
  const s = await startServer({ kg, kgLabel: 'demo', batch: [], port: 0, host, limits: { workers: 1, ...limits } });
  servers.push(s);
  return s;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: any;
}

/** A raw HTTP request (fetch would set Host, Origin and Sec-Fetch-* itself). */
function raw(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const post = (s: RunningServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  raw(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The server answers GET /api/info and extracts a short text. */
async function alive(s: RunningServer): Promise<void> {
  assert.equal((await raw(`${s.url}api/info`)).status, 200, 'GET /api/info answers');
  const r = await post(s, 'api/extract', { text: SHORT, preset: 'textrank' });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.ok(r.json.keywords.length > 0, 'a benign extraction gets keywords');
}

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
  const s = await server();
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
    const s = await server({}, host);
    assert.equal((await raw(`${s.url}api/info`, { headers: { host: 'attacker.example' } })).status, 403, host);
    assert.equal((await raw(`${s.url}api/info`, { headers: { host: `attacker.example:${s.port}` } })).status, 403, host);
    assert.equal((await raw(`${s.url}api/info`)).status, 200, `${host}: its own address`);
    assert.equal((await raw(`${s.url}api/info`, { headers: { host: `localhost:${s.port}` } })).status, 200);
  }
});

test('a malformed body is 400, deeply nested options included (was 500)', async () => {
  const s = await server();
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
  const s = await server({ workers: 2 });
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

test('memory budget: a request over requestHeapMb ends its worker thread only (413); the next request is served', async () => {
  const s = await server({ requestHeapMb: 96, maxTextChars: 2_000_000, maxBodyBytes: 16 << 20 });
  const r = await post(s, 'api/extract', { text: unpunctuatedText(1_500_000, 28), preset: 'textrank' });
  assert.equal(r.status, 413, JSON.stringify(r.json));
  assert.match(r.json.error, /96 MB memory budget/u);
  await alive(s);
});

test('bounded responses: edges capped to maxEdges (marked truncated), a result over maxResponseBytes is 413', async () => {
  const capped = await server({ maxEdges: 10 });
  const text = unpunctuatedText(5000, 29);
  const r = await post(capped, 'api/extract', { text, preset: 'textrank' });
  assert.equal(r.status, 200);
  assert.equal(r.json.edges.length, 10);
  assert.ok(r.json.truncated.edges > 10, JSON.stringify(r.json.truncated));
  const weights = r.json.edges.map((e: { weight: number }) => e.weight);
  assert.ok(Math.min(...weights) >= 1, 'the heaviest edges are kept');
  const small = await server({ maxResponseBytes: 20_000 });
  const big = await post(small, 'api/extract', { text, preset: 'textrank' });
  assert.equal(big.status, 413);
  assert.match(big.json.error, /over the bound of 20000/u);
  await alive(small);
});

test('a flood of long texts: beyond the heavy queue 503 with Retry-After; short requests still run meanwhile', async () => {
  const s = await server({ workers: 2, heavyQueue: 1, heavyChars: 10_000 });
  const long = { text: unpunctuatedText(150_000, 30) };
  // 1 runs, 1 waits: the other 4 are refused at once (they arrive while the first is running)
  const flood = Array.from({ length: 6 }, () => post(s, 'api/extract', long));
  const short = await post(s, 'api/extract', { text: SHORT });
  assert.equal(short.status, 200, 'a short request has a thread of its own');
  const replies = await Promise.all(flood);
  const busy = replies.filter((r) => r.status === 503);
  assert.ok(busy.length >= 1, replies.map((r) => r.status).join(','));
  for (const r of busy) assert.equal(r.headers['retry-after'], '1');
  assert.ok(replies.every((r) => r.status === 200 || r.status === 503), replies.map((r) => r.status).join(','));
  await alive(s);
});

/** Nice values of this process's threads (Linux /proc; per thread there). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((t) => {
    const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

test('long texts run in a pool of their own at a lower priority: short requests are all served by the other pool while long ones run and wait (counted)', async () => {
  const base = getPriority(0);
  const niced = () => (process.platform === 'linux' ? threadNices().filter((n) => n === base + 10).length : 0);
  const nicedBefore = niced();
  const s = await server({ workers: 2, heavyQueue: 2, heavyChars: 10_000 });
  if (process.platform === 'linux' && base < 9) {
    // 2 threads for short texts at the server's priority, 1 for long texts 10 lower (nice is per thread on Linux)
    assert.equal(niced() - nicedBefore, 1, `thread nice values: ${threadNices().join(',')}`);
  }
  const info = async () => (await raw(`${s.url}api/info`)).json.load as { light: { completed: number }; heavy: { completed: number; running: number; waiting: number } };
  const before = await info();
  const long = Array.from({ length: 3 }, (_, i) => post(s, 'api/extract', { text: unpunctuatedText(150_000, 40 + i) }));
  await until('a long text running', async () => (await info()).heavy.running > 0);
  const shorts = await Promise.all(Array.from({ length: 40 }, (_, i) => post(s, 'api/extract', { text: `${SHORT}第${i}条。`, preset: 'textrank' })));
  assert.deepEqual([...new Set(shorts.map((r) => r.status))], [200]);
  const mid = await info();
  assert.equal(mid.light.completed - before.light.completed, 40, 'every short request ran on the short-text pool');
  const longReplies = await Promise.all(long);
  assert.ok(longReplies.every((r) => r.status === 200 || r.status === 503), longReplies.map((r) => r.status).join(','));
  const after = await info();
  assert.equal(after.light.completed, mid.light.completed, 'no long text ran on the short-text pool');
  assert.equal(after.heavy.completed - before.heavy.completed, longReplies.filter((r) => r.status === 200).length);
  await alive(s);
});

test('a mixed burst (200 benign, 40 hostile, concurrent): every benign request 200, every hostile one refused, the server alive', async () => {
  const s = await server({ workers: 2 });
  const hostile = [
    () => raw(`${s.url}api/extract`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: 'http://evil.example' }, body: JSON.stringify({ text: SHORT }) }),
    () => raw(`${s.url}api/info`, { headers: { host: 'attacker.example' } }),
    () => post(s, 'api/extract', `{"text":"x","options":${'['.repeat(10_000)}${']'.repeat(10_000)}}`),
    () => post(s, 'api/extract', { text: unpunctuatedText(100_000, 31), preset: 'textrank+w+g+r', options: { 'semantic.smScope': 'allPairs', 'semantic.jaccardNeighbours': 'docGraph' } }),
  ];
  const benign = [
    () => raw(`${s.url}api/info`),
    () => raw(`${s.url}api/kg/search?q=${encodeURIComponent('吴')}`),
    () => post(s, 'api/extract', { text: SHORT, preset: 'textrank' }),
    () => post(s, 'api/extract', { text: SHORT }),
  ];
  const jobs: Promise<{ hostile: boolean; r: Reply }>[] = [];
  for (let i = 0; i < 240; i++) {
    const h = i % 6 === 5;
    const f = h ? hostile[(i / 6) % hostile.length | 0] : benign[i % benign.length];
    jobs.push(f().then((r) => ({ hostile: h, r })));
  }
  const all = await Promise.all(jobs);
  const bad = all.filter((x) => !x.hostile && x.r.status !== 200);
  assert.equal(bad.length, 0, `benign not answered 200: ${bad.map((x) => x.r.status).join(',')}`);
  const let_through = all.filter((x) => x.hostile && x.r.status < 400);
  assert.equal(let_through.length, 0);
  assert.ok(all.filter((x) => x.hostile).every((x) => [400, 403, 413, 415, 503].includes(x.r.status)), all.filter((x) => x.hostile).map((x) => x.r.status).join(','));
  await alive(s);
});
