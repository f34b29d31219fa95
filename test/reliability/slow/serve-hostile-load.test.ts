/**
 * `filmkw serve` under floods and budgets (issue 26 item 1; moved from test/serve/hostile.test.ts, whose
 * helpers it shares): each case checks states, never times.
 *
 * - a request over its memory budget (its worker thread's heap) is 413 and the thread is replaced;
 * - a flood of long texts gets 503 + Retry-After beyond the heavy queue, and short requests still run;
 * - long texts run in a pool of their own (lower CPU priority): short requests sent while long ones run
 *   and wait are all answered, every one by the short-text pool (counted in /api/info `load`);
 * - a mixed burst of benign and hostile requests: every benign one answered 200, every hostile one
 *   refused (400, 403, 413, 415, or 503 when long texts already fill the heavy queue), the server alive (the timed 1,000-request version is bench/serve-load.ts).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { unpunctuatedText } from '../../pipeline/long-texts.js';
import { until } from '../../helpers/wait.js';
import { SHORT, alive, closeServers, post, raw, server, type Reply } from '../../serve/hostile-helpers.js';

after(closeServers);

test('memory budget: a request over requestHeapMb ends its worker thread only (413); the next request is served', async () => {
  const s = await server({ requestHeapMb: 96, maxTextChars: 2_000_000, maxBodyBytes: 16 << 20 });
  const r = await post(s, 'api/extract', { text: unpunctuatedText(1_500_000, 28), preset: 'textrank' });
  assert.equal(r.status, 413, JSON.stringify(r.json));
  assert.match(r.json.error, /96 MB memory budget/u);
  await alive(s);
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
