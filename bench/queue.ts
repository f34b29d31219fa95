/**
 * Queue mode (`filmkw tag --queue` + `filmkw worker`, issue 14) on this machine, against a local
 * `filmkw tag --workers N` on the same corpus, and a long stream through the queue.
 *
 *   node --import tsx bench/queue.ts [--times N] [--reps N] [--stream-docs N] [--stream-texts mix|sentences]
 *                                    [--series N] [--no-stream] [--json]
 *
 * 1. Throughput: the 297 Douban reviews × `--times` (default 8, ≈ 2,400 documents), each configuration a
 *    fresh process: local `--workers 1` and `--workers 2`, and the queue with 1 and with 2 `filmkw worker`
 *    processes of one thread each, on a private redis-server (no persistence). Workers are long-running
 *    services, so each queue configuration first tags a 100-document warm-up run (same KG and options: the
 *    workers build their thread pool and KG once); the rate compared is the one the summary line reports
 *    (documents ÷ tagging time, set-up excluded) for both modes. Target: queue ≥ 0.85 × local at the same
 *    parallelism. Repetitions alternate the order of the four.
 * 2. Stream: `--stream-docs` documents (default 100,000, fresh ids) through the queue with 2 worker
 *    processes, output to a file; the texts: `mix` (default) the film synopses and reviews cycled,
 *    `sentences` the distinct sentences (≥ 8 characters) of the reviews cycled, short documents for a
 *    1M-document run. Every second the RSS of the submitter and of each worker, Redis's `used_memory` and
 *    the load average are sampled; `--series N` rows of them are printed (default 10). Flat: the median over the last 30% of the
 *    run exceeds the median over 20–50% by less than max(32 MiB, 10%) (the rule of bench/stream.ts). Redis
 *    holds at most `--queue-window` chunks of the run (results are removed once written): its peak is
 *    reported next to the size of the input.
 *
 * KG: FILMKW_BENCH_KG, else the merged KG of this code (bench/_cli.ts benchKgPath), else the bundled demo KG. Needs the built CLI,
 * redis-server on PATH and ../shared/data (or FILMKW_DATA); skipped with a message otherwise.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { benchKgPath, bin, distState, root } from './_cli.js';
import { readReviews, readSynopses, REVIEWS, SYNOPSES } from './tag.js';
import { haveRedisServer, PrivateRedis } from '../test/queue/redis.js';

interface Args {
  times: number;
  reps: number;
  streamDocs: number;
  streamTexts: 'mix' | 'sentences';
  series: number;
  stream: boolean;
  json: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { times: 8, reps: 3, streamDocs: 100_000, streamTexts: 'mix', series: 10, stream: true, json: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => Number(argv[++i]);
    if (k === '--times') a.times = v();
    else if (k === '--reps') a.reps = v();
    else if (k === '--stream-docs') a.streamDocs = v();
    else if (k === '--stream-texts') {
      const t = argv[++i];
      if (t !== 'mix' && t !== 'sentences') throw new Error(`bench/queue: --stream-texts is mix or sentences, got ${t}`);
      a.streamTexts = t;
    } else if (k === '--series') a.series = v();
    else if (k === '--no-stream') a.stream = false;
    else if (k === '--json') a.json = true;
    else throw new Error(`bench/queue: unknown argument ${k} (valid: --times N, --reps N, --stream-docs N, --stream-texts mix|sentences, --series N, --no-stream, --json)`);
  }
  return a;
}

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SUMMARY = /^tag: (\d+) records \((\d+) tagged, (\d+) error records\), [\d.]+ s, ([\d.]+) docs\/s, .*setup ([\d.]+) s/mu;

class Child {
  readonly proc;
  stderr = '';
  readonly exited: Promise<number | null>;
  constructor(args: string[]) {
    this.proc = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    this.proc.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((r) => this.proc.once('exit', (c) => r(c)));
  }
  async waitFor(re: RegExp): Promise<void> {
    while (!re.test(this.stderr)) {
      if (this.proc.exitCode !== null) throw new Error(`bench/queue: process exited: ${this.stderr.slice(-500)}`);
      await sleep(50);
    }
  }
}

function writeCorpus(file: string, texts: string[], n: number): void {
  // in slices of 10,000 lines: a 1M-line corpus is never one string
  writeFileSync(file, '');
  for (let start = 0; start < n; start += 10_000) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(n, start + 10_000); i++) lines.push(JSON.stringify({ id: `d${i}`, text: texts[i % texts.length] }));
    appendFileSync(file, `${lines.join('\n')}\n`);
  }
}

/** The distinct sentences (≥ 8 characters) of the reviews, in order of first appearance. */
function sentences(texts: string[]): string[] {
  const seen = new Set<string>();
  for (const t of texts) for (const x of t.split(/[。！？!?\n]+/u)) if (x.trim().length >= 8) seen.add(x.trim());
  return [...seen];
}

async function tag(args: string[]): Promise<{ docsPerSecond: number; docs: number; stderr: string }> {
  const c = new Child(['tag', ...args]);
  const code = await c.exited;
  const m = SUMMARY.exec(c.stderr);
  if (code !== 0 || !m) throw new Error(`bench/queue: filmkw tag ${args.join(' ')} exited ${code}: ${c.stderr.slice(-500)}`);
  return { docsPerSecond: Number(m[4]), docs: Number(m[2]), stderr: c.stderr };
}

async function workers(url: string, n: number, kg: string[]): Promise<Child[]> {
  const ws = Array.from({ length: n }, (_, i) => new Child(['worker', '--queue', url, '--workers', '1', '--name', `bench${i}`, ...kg]));
  for (const w of ws) await w.waitFor(/waiting for chunks/u);
  return ws;
}

async function stop(ws: Child[]): Promise<void> {
  for (const w of ws) w.proc.kill('SIGTERM');
  await Promise.all(ws.map((w) => w.exited));
}

function rss(pid: number | undefined): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/u.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

const outBytes = (file: string) => statSync(file).size;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

function flat(series: number[]): { early: number; late: number; flat: boolean } {
  const n = series.length;
  const early = median(series.slice(Math.floor(n * 0.2), Math.ceil(n * 0.5)));
  const late = median(series.slice(Math.floor(n * 0.7)));
  return { early, late, flat: late - early < Math.max(32 * MiB, 0.1 * early) };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const title = '## Queue mode: `filmkw tag --queue` + `filmkw worker` vs local `--workers` (bench/queue.ts)';
  const { built, stale } = distState();
  if (!built) return console.log(`${title}\n\nskipped: dist/ is missing (run \`npm run build\`).`);
  if (!existsSync(REVIEWS) || !existsSync(SYNOPSES)) return console.log(`${title}\n\nskipped: needs the Douban reviews and kg/douban-movies-2065 under ../shared/data (or FILMKW_DATA).`);
  if (!haveRedisServer()) return console.log(`${title}\n\nskipped: no redis-server on PATH (apt-get install redis-server).`);
  const kg = benchKgPath();
  const kgArgs = kg.path ? ['--kg', kg.path] : [];
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-bench-queue-'));
  const redis = await PrivateRedis.start();
  const url = `${redis.url}/0`;
  const load0 = loadavg()[0];
  const reviews = readReviews().texts;
  const batch = join(dir, 'batch.jsonl');
  const warm = join(dir, 'warm.jsonl');
  const nBatch = reviews.length * args.times;
  writeCorpus(batch, reviews, nBatch);
  writeCorpus(warm, reviews, 100);
  const common = ['--format', 'jsonl', '--id-field', 'id', ...kgArgs];
  type Conf = 'local1' | 'local2' | 'queue1' | 'queue2';
  const rates: Record<Conf, number[]> = { local1: [], local2: [], queue1: [], queue2: [] };
  const run = async (c: Conf) => {
    if (c.startsWith('local')) {
      rates[c].push((await tag([batch, ...common, '--workers', c.slice(-1), '--out', join(dir, `${c}.jsonl`)])).docsPerSecond);
      return;
    }
    const ws = await workers(url, Number(c.slice(-1)), kgArgs);
    try {
      await tag([warm, ...common, '--queue', url, '--out', join(dir, 'warm.out.jsonl')]);
      const r = await tag([batch, ...common, '--queue', url, '--out', join(dir, `${c}.jsonl`)]);
      rates[c].push(r.docsPerSecond);
    } finally {
      await stop(ws);
    }
    // the queue's output must be the local bytes
    if (existsSync(join(dir, 'local1.jsonl')) && readFileSync(join(dir, `${c}.jsonl`), 'utf8') !== readFileSync(join(dir, 'local1.jsonl'), 'utf8')) throw new Error(`bench/queue: ${c} output differs from the local run`);
  };
  const out: string[] = [title, ''];
  const streamRows: string[] = [];
  let streamText = '';
  try {
    for (let r = 0; r < args.reps; r++) {
      const order: Conf[] = r % 2 === 0 ? ['local1', 'queue1', 'local2', 'queue2'] : ['queue2', 'local2', 'queue1', 'local1'];
      if (r === 0) await run('local1'); // output reference + warm caches (not counted)
      if (r === 0) rates.local1.pop();
      for (const c of order) await run(c);
    }
    if (args.stream) {
      const texts = args.streamTexts === 'sentences' ? sentences(reviews) : [...readSynopses().texts, ...reviews];
      const meanChars = texts.reduce((n, t) => n + [...t].length, 0) / texts.length;
      const what =
        args.streamTexts === 'sentences'
          ? `the ${texts.length.toLocaleString('en')} distinct sentences of the 297 reviews (≥ 8 characters, mean ${meanChars.toFixed(0)}) cycled`
          : `the ${texts.length.toLocaleString('en')} synopses and reviews (mean ${meanChars.toFixed(0)} characters) cycled`;
      const file = join(dir, 'stream.jsonl');
      writeCorpus(file, texts, args.streamDocs);
      const inBytes = statSync(file).size;
      const ws = await workers(url, 2, kgArgs);
      const outFile = join(dir, 'stream.out.jsonl');
      const client = new Redis(url);
      const samples: { t: number; docs: number; sub: number; w: number[]; redis: number; load: number }[] = [];
      try {
        await tag([warm, ...common, '--queue', url, '--out', join(dir, 'warm.out.jsonl')]);
        const t0 = Date.now();
        const sub = new Child(['tag', file, ...common, '--queue', url, '--out', outFile]);
        while (sub.proc.exitCode === null) {
          await sleep(1000);
          let docs = 0;
          try {
            docs = statSync(outFile).size;
          } catch {
            // not yet created
          }
          const used = Number(/used_memory:(\d+)/u.exec(await client.info('memory'))?.[1] ?? 0);
          samples.push({ t: (Date.now() - t0) / 1000, docs, sub: rss(sub.proc.pid), w: ws.map((w) => rss(w.proc.pid)), redis: used, load: loadavg()[0] });
        }
        const code = await sub.exited;
        const m = SUMMARY.exec(sub.stderr);
        if (code !== 0 || !m) throw new Error(`bench/queue: stream run exited ${code}: ${sub.stderr.slice(-500)}`);
        await sleep(1000);
        const after = Number(/used_memory:(\d+)/u.exec(await client.info('memory'))?.[1] ?? 0);
        const good = samples.filter((s) => s.sub > 0);
        const fs = flat(good.map((s) => s.sub));
        const fw = ws.map((_, i) => flat(good.map((s) => s.w[i])));
        const peak = Math.max(...good.map((s) => s.redis));
        const f = (x: number) => (x / MiB).toFixed(0);
        const n = Math.max(1, args.series);
        for (let k = 1; k <= n; k++) {
          const s = good[Math.min(good.length - 1, Math.round((k / n) * good.length) - 1)];
          if (s) streamRows.push(`| ${s.t.toFixed(0)} | ${(s.docs / MiB).toFixed(1)} | ${f(s.sub)} | ${s.w.map(f).join(' / ')} | ${(s.redis / MiB).toFixed(1)} | ${s.load.toFixed(1)} |`);
        }
        const peakOf = (xs: number[]) => f(Math.max(...xs));
        const loads = good.map((s) => s.load);
        let outLines = 0;
        const bytes = readFileSync(outFile);
        for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) outLines++;
        streamText = [
          `Stream: ${args.streamDocs.toLocaleString('en')} documents (${f(inBytes)} MiB of jsonl; ${what}) through the queue, 2 worker processes × 1 thread, chunks of 256, window 64: ${Number(m[4]).toFixed(0)} docs/s, ${(Number(m[2]) / Number(m[4])).toFixed(0)} s of tagging; ${outLines.toLocaleString('en')} output lines (${f(outBytes(outFile))} MiB). Load average during the stream: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (median ${median(loads).toFixed(1)}).`,
          `- submitter RSS ${f(fs.early)} → ${f(fs.late)} MiB (median 20–50% → last 30%; peak ${peakOf(good.map((s) => s.sub))}): ${fs.flat ? 'flat' : '**grows**'}; workers ${fw.map((x, i) => `${f(x.early)} → ${f(x.late)} MiB (peak ${peakOf(good.map((s) => s.w[i]))}) ${x.flat ? 'flat' : '**grows**'}`).join(', ')}.`,
          `- Redis used_memory: peak ${(peak / MiB).toFixed(1)} MiB for a ${f(inBytes)} MiB input (bounded by the window: 64 chunks of input and results), ${(after / MiB).toFixed(1)} MiB after the run (every result removed once written).`,
        ].join('\n');
        if (outLines !== args.streamDocs) throw new Error(`bench/queue: the stream wrote ${outLines} lines for ${args.streamDocs} documents`);
      } finally {
        client.disconnect();
        await stop(ws);
      }
    }
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (args.json) return console.log(JSON.stringify({ kg: kg.shown, nBatch, rates, streamText }, null, 2));
  const med = (c: Conf) => median(rates[c]);
  out.push(
    `KG ${kg.shown}, default preset; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}, load average ${load0.toFixed(1)} at start (the machine is shared). Batch: the 297 Douban reviews × ${args.times} = ${nBatch.toLocaleString('en')} documents; ${args.reps} repetitions in alternating order; docs/s from each run's summary line (tagging only; the queue's workers were warmed up by a 100-document run). Every queue output was checked equal to the local one byte for byte.${stale ? ' **Warning: a src/ file is newer than dist/ — run `npm run build` first.**' : ''}`,
    '',
    '| parallelism | local `--workers N` docs/s | queue, N worker processes docs/s | queue / local (median) | target |',
    '|---:|---|---|---:|---|',
  );
  for (const n of [1, 2] as const) {
    const l = rates[`local${n}`];
    const q = rates[`queue${n}`];
    const ratio = med(`queue${n}`) / med(`local${n}`);
    out.push(`| ${n} | ${l.map((x) => x.toFixed(0)).join(', ')} (median ${med(`local${n}`).toFixed(0)}) | ${q.map((x) => x.toFixed(0)).join(', ')} (median ${med(`queue${n}`).toFixed(0)}) | ${ratio.toFixed(2)} | ≥ 0.85: ${ratio >= 0.85 ? 'met' : 'not met'} |`);
  }
  if (streamText) {
    out.push('', streamText, '', '| s | output written MiB | submitter RSS MiB | worker RSS MiB | Redis used MiB | load avg |', '|---:|---:|---:|---|---:|---:|', ...streamRows);
  }
  console.log(out.join('\n'));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
