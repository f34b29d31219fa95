/**
 * bench/serve-load.ts — `filmkw serve` under a burst of concurrent requests mixed with hostile ones
 * (issue 26): N requests (default 1,000) sent at once to a server on 127.0.0.1 started as its own process
 * (`bin/filmkw serve --port 0`, demo KG), 90 % benign (GET /api/info, KG search and entity look-ups,
 * POST /api/extract of the bundled sample reviews with the default preset) and 10 % hostile, in five
 * kinds: a cross-origin `text/plain` POST (what any web page can send), a foreign Host (DNS rebinding),
 * options nested 100,000 deep, the 600 KB `allPairs` + `docGraph` request that took the old server to its
 * 4 GB heap limit, and 150,000 characters without punctuation (which froze the old server for ~90 s).
 *
 * Reports the benign requests' latency (p50, p90, p99, max), how many were answered 200 within 2 s (the
 * issue's target: all of them), the statuses of the hostile ones, and whether the server was still
 * alive after the burst. Each build also gets the same burst with the hostile tenth replaced by benign
 * requests ("benign only"), on a fresh server, right before: the ratio mixed / benign-only of the benign
 * p50 and p99 is what the hostile requests cost the others, a figure that holds on a loaded machine,
 * where the absolute latencies mostly measure the machine (a sample review is ~6 ms of CPU, so 225 of
 * them on 2 threads fit in 2 s only when the 2 cores are free). Bounded: every request has a client-side deadline (`--deadline-ms`, default
 * 60 s), the server is stopped at the end (SIGTERM, then SIGKILL after 5 s).
 *
 *   npm run build && node --import tsx bench/serve-load.ts [--requests N] [--baseline DIR]
 *
 * `--baseline DIR` (or FILMKW_BENCH_BASELINE) runs the same burst first against another build (a folder
 * with that commit checked out and built), for the before/after figures in bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unpunctuatedText } from '../test/pipeline/long-texts.js';

const out = (s = '') => process.stdout.write(`${s}\n`);
const root = fileURLToPath(new URL('../', import.meta.url));
const TARGET_MS = 2000;

interface Args {
  requests: number;
  deadlineMs: number;
  baseline: string | undefined;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { requests: 1000, deadlineMs: 60_000, baseline: process.env.FILMKW_BENCH_BASELINE || undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--requests') a.requests = Number(argv[++i]);
    else if (argv[i] === '--deadline-ms') a.deadlineMs = Number(argv[++i]);
    else if (argv[i] === '--baseline') a.baseline = argv[++i];
    else throw new Error(`serve-load: unknown option ${argv[i]}`);
  }
  if (!Number.isInteger(a.requests) || a.requests < 10 || a.requests > 10_000) throw new Error('serve-load: --requests must be 10..10000');
  return a;
}

interface Server {
  child: ChildProcess;
  url: string;
  port: number;
  exit: Promise<string>;
}

/** Start `DIR/bin/filmkw serve --port 0` and wait for its URL line. */
function startServe(dir: string): Promise<Server> {
  const child = spawn(process.execPath, [join(dir, 'bin', 'filmkw'), 'serve', '--port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit ${code}`)));
  return new Promise((resolve, reject) => {
    let text = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      text += d.toString();
      const m = /http:\/\/127\.0\.0\.1:(\d+)\//u.exec(text);
      if (m) resolve({ child, url: m[0], port: Number(m[1]), exit });
    });
    void exit.then((how) => reject(new Error(`serve ${dir} ended before listening (${how}): ${err.slice(0, 500)}`)));
  });
}

interface Result {
  kind: string;
  hostile: boolean;
  status: number | string;
  ms: number;
}

const agent = new Agent({ keepAlive: false, maxSockets: Infinity });

function send(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string }, deadlineMs: number): Promise<{ status: number | string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent, timeout: deadlineMs }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
      res.on('error', (e) => resolve({ status: (e as NodeJS.ErrnoException).code ?? 'error', ms: performance.now() - t0 }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('deadline'), { code: 'DEADLINE' })));
    req.on('error', (e) => resolve({ status: (e as NodeJS.ErrnoException).code ?? 'error', ms: performance.now() - t0 }));
    req.end(opts.body);
  });
}

/** The burst: benign and hostile request makers, interleaved (every 10th hostile). */
function burst(s: Server, n: number, deadlineMs: number, withHostile: boolean): Promise<Result>[] {
  const samples = readFileSync(join(root, 'datasets/samples/reviews.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { text: string }).text);
  const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const allPairs = JSON.stringify({ text: unpunctuatedText(199_000, 26), preset: 'textrank+w+g+r', options: { 'semantic.smScope': 'allPairs', 'semantic.jaccardNeighbours': 'docGraph' } });
  const long = JSON.stringify({ text: unpunctuatedText(150_000, 27) });
  const deep = `{"text":"x","options":{"graph.window":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
  const benign: [string, () => Promise<{ status: number | string; ms: number }>][] = [
    ['GET /api/info', () => send(`${s.url}api/info`, {}, deadlineMs)],
    ['GET /api/kg/search', () => send(`${s.url}api/kg/search?q=${encodeURIComponent('吴')}`, {}, deadlineMs)],
    ['GET /api/kg/entity', () => send(`${s.url}api/kg/entity?name=${encodeURIComponent('吴京')}`, {}, deadlineMs)],
    ['POST /api/extract (sample review)', () => send(`${s.url}api/extract`, json({ text: samples[Math.floor(Math.random() * samples.length)] }), deadlineMs)],
  ];
  const hostile: [string, () => Promise<{ status: number | string; ms: number }>][] = [
    ['cross-origin text/plain POST', () => send(`${s.url}api/extract`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: 'http://evil.example' }, body: JSON.stringify({ text: samples[0] }) }, deadlineMs)],
    ['foreign Host', () => send(`${s.url}api/info`, { headers: { host: 'attacker.example' } }, deadlineMs)],
    ['options nested 100,000 deep', () => send(`${s.url}api/extract`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep }, deadlineMs)],
    ['600 KB allPairs + docGraph', () => send(`${s.url}api/extract`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: allPairs }, deadlineMs)],
    ['150k characters without punctuation', () => send(`${s.url}api/extract`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: long }, deadlineMs)],
  ];
  const jobs: Promise<Result>[] = [];
  let b = 0;
  let h = 0;
  for (let i = 0; i < n; i++) {
    const isHostile = withHostile && i % 10 === 9;
    const [kind, make] = isHostile ? hostile[h++ % hostile.length] : benign[b++ % benign.length];
    jobs.push(make().then((r) => ({ kind, hostile: isHostile, ...r })));
  }
  return jobs;
}

const pct = (xs: number[], p: number) => (xs.length === 0 ? NaN : xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]);
const ms = (x: number) => (Number.isNaN(x) ? '–' : `${Math.round(x).toLocaleString('en-US')} ms`);

async function measure(label: string, dir: string, a: Args, withHostile: boolean, ratio: Map<string, number[]>): Promise<string[]> {
  const s = await startServe(dir);
  let died: string | null = null;
  void s.exit.then((how) => (died = how));
  const results = await Promise.all(burst(s, a.requests, a.deadlineMs, withHostile));
  const after = died ? { status: `server ${died}` as number | string, ms: 0 } : await send(`${s.url}api/info`, {}, 10_000);
  s.child.kill('SIGTERM');
  const killer = setTimeout(() => s.child.kill('SIGKILL'), 5000);
  await s.exit;
  clearTimeout(killer);
  const benign = results.filter((r) => !r.hostile);
  const ok = benign.filter((r) => r.status === 200);
  const lat = ok.map((r) => r.ms).sort((x, y) => x - y);
  const within = ok.filter((r) => r.ms <= TARGET_MS).length;
  ratio.set(label, [pct(lat, 50), pct(lat, 99)]);
  const rows = [
    `| ${label} | ${benign.length} | ${ok.length} | ${within} (${((100 * within) / benign.length).toFixed(1)} %) | ${ms(pct(lat, 50))} | ${ms(pct(lat, 90))} | ${ms(pct(lat, 99))} | ${ms(lat[lat.length - 1] ?? NaN)} | ${after.status === 200 ? 'yes' : `no (${after.status})`} |`,
  ];
  const kinds = new Map<string, Map<string, number>>();
  for (const r of results.filter((x) => x.hostile)) {
    const m = kinds.get(r.kind) ?? new Map<string, number>();
    m.set(String(r.status), (m.get(String(r.status)) ?? 0) + 1);
    kinds.set(r.kind, m);
  }
  for (const kind of new Set(benign.map((r) => r.kind))) {
    const l = ok.filter((r) => r.kind === kind).map((r) => r.ms).sort((x, y) => x - y);
    rows.push(`| ${label}: ${kind} | ${benign.filter((r) => r.kind === kind).length} | ${l.length} | ${l.filter((x) => x <= TARGET_MS).length} | ${ms(pct(l, 50))} | ${ms(pct(l, 90))} | ${ms(pct(l, 99))} | ${ms(l[l.length - 1] ?? NaN)} | |`);
  }
  const hostileRows = [...kinds].map(([k, m]) => `| ${label} | ${k} | ${[...m].map(([st, c]) => `${st} × ${c}`).join(', ')} |`);
  const failures = benign.filter((r) => r.status !== 200);
  const byStatus = new Map<string, number>();
  for (const f of failures) byStatus.set(`${f.kind}: ${f.status}`, (byStatus.get(`${f.kind}: ${f.status}`) ?? 0) + 1);
  return [...rows, '\u0000', ...hostileRows, '\u0000', ...[...byStatus].map(([k, c]) => `- ${label}: benign ${k} × ${c}`)];
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  out('## bench/serve-load.ts (issue 26)');
  out();
  if (!existsSync(join(root, 'dist', 'serve', 'server.js'))) {
    out('Skipped: dist/ is not built (`npm run build`).');
    return;
  }
  out(`${a.requests} concurrent requests (90 % benign, 10 % hostile) on 127.0.0.1, \`filmkw serve\` with the demo KG as its own process; load average at start ${loadavg()[0].toFixed(1)}.`);
  out();
  const runs: [string, string][] = [];
  if (a.baseline) runs.push(['baseline', a.baseline]);
  runs.push(['this build', root]);
  const parts: string[][] = [];
  const ratio = new Map<string, number[]>();
  for (const [label, dir] of runs) {
    parts.push(await measure(`${label}, benign only`, dir, a, false, ratio));
    parts.push(await measure(`${label}, mixed`, dir, a, true, ratio));
  }
  const split = (p: string[], k: number) => p.join('\n').split('\u0000')[k].split('\n').filter((l) => l.trim() !== '');
  out(`| build | benign | answered 200 | 200 within ${TARGET_MS} ms | p50 | p90 | p99 | max | alive after |`);
  out('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const p of parts) for (const l of split(p, 0)) out(l);
  out();
  out('| build | hostile request | statuses |');
  out('|---|---|---|');
  for (const p of parts) for (const l of split(p, 1)) out(l);
  out();
  out('| build | benign p50, mixed / benign only | benign p99, mixed / benign only |');
  out('|---|---:|---:|');
  for (const [label] of runs) {
    const [m, b] = [ratio.get(`${label}, mixed`)!, ratio.get(`${label}, benign only`)!];
    out(`| ${label} | ${(m[0] / b[0]).toFixed(2)} | ${(m[1] / b[1]).toFixed(2)} |`);
  }
  const notes = parts.flatMap((p) => split(p, 2));
  if (notes.length > 0) {
    out();
    out('Benign requests not answered 200:');
    out();
    for (const l of notes) out(l);
  }
  out();
  out(`Load average at the end ${loadavg()[0].toFixed(1)}. Latency is measured by the client from the request's start; the machine is shared, so the figures move with its load.`);
}

await main();
