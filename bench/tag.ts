/**
 * Tagging benchmark (issues 3 and 6, items 1 and 2): documents/s and chars/s of every preset on the real
 * Douban reviews and on the film synopses, next to nodejieba `textRankExtract` and `extract` and the bare
 * `tag` of the segmenter the pipeline uses, all on the same texts in the same process; per-document
 * latency p50/p99; then the main preset through the real worker pool of `filmkw tag` (src/batch) with 1
 * and 2 workers, next to a pure-CPU calibration of what 2 threads give on this machine right now.
 *
 *   node --import tsx bench/tag.ts [--rounds N] [--limit N] [--presets a,b] [--workers N]
 *                                  [--corpus reviews|synopses|all] [--pool-reps N] [--no-pool] [--json]
 *                                  [--baseline DIR [--baseline-presets a,b]]
 *
 * `--baseline DIR`: another build of filmkw (a checkout with dist/ built)
 * whose presets (default filmkw) join the same rounds, with a table of the ratios this build / baseline.
 *
 * Corpora (skipped with a message when ../shared/data is absent; FILMKW_DATA overrides the folder):
 * - reviews: the 302-line Douban review file of 百鸟朝凤 (texts/douban-reviews-bainiaochaofeng/
 *   douban_reviews.json; `review_full` a string or an array of strings, joined; the 5 lines that are
 *   not valid JSON are skipped): 297 long reviews;
 * - synopses: the non-empty `summary` column of kg/douban-movies-2065/douban_all_movies.csv (the film
 *   synopses of ../shared/data/SOURCES.md).
 *
 * KG: the snapshot named by FILMKW_BENCH_KG, else the merged KG of this code (bench/_cli.ts benchKgPath,
 * scripts/merged-kg.mjs: $TMPDIR/filmkw-merged-<fingerprint>.fkg, built when absent), else the bundled demo KG. The section says which.
 *
 * Single thread: every system gets one full warm-up pass over the corpus, then `rounds` timed rounds in
 * which the systems take turns (drift in machine load spreads over all of them). Latency is per call.
 *
 * Workers: the documents go through `tagOrdered` (src/batch/ordered.ts: batches of 16 documents or
 * 64 K chars per message, ordered output, the JSON line of each document built) on the inline engine
 * (the `--workers 1` path of `filmkw tag`) and on a `WorkerPool` of 1 and of N workers that load the
 * KG snapshot themselves (the `--workers N` path). Pool start-up (KG load, extractor creation in each
 * worker) is timed separately, and a warm-up pass runs before the timed passes. Each repetition runs,
 * back to back: a pure-JS CPU loop on 1 thread and on N threads (the machine's available parallelism
 * at that moment: the development machine has 2 cores shared with other jobs), inline, pool(1), pool(N).
 *
 * Prints a markdown section (bench/run.mjs collects it into bench/results.md). Ratios are what count:
 * absolute rates depend on the machine and its load.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import nodejieba from 'nodejieba';
import { parse } from 'csv-parse/sync';
import { createExtractor } from '../src/pipeline/extract.js';
import { listPresets } from '../src/pipeline/presets.js';
import { createSegmenter } from '../src/pipeline/segment.js';
import { exportUserDict } from '../src/lexicon/dict.js';
import { cacheDirFromEnv, diskCacheFromEnv } from '../src/lexicon/cache.js';
import type { KgView } from '../src/kg/model.js';
import { loadKg } from '../src/kg/load.js';
import { InlineEngine, WorkerPool, type TagEngine } from '../src/batch/engine.js';
import { siblingModule } from '../src/batch/factory.js';
import { prepareWorkerKg } from '../src/batch/kg-source.js';
import { tagOrdered } from '../src/batch/ordered.js';
import { resolveOptions } from '../src/pipeline/options.js';
import type { InputRecord } from '../src/io/readers.js';
import { benchClock, benchKgPath, clockSeconds } from './_cli.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const dataDir = process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data');
export const REVIEWS = join(dataDir, 'texts', 'douban-reviews-bainiaochaofeng', 'douban_reviews.json');
export const SYNOPSES = join(dataDir, 'kg', 'douban-movies-2065', 'douban_all_movies.csv');
const MAIN_PRESET = 'textrank+w+g+r';

interface Args {
  rounds: number;
  limit: number;
  presets: string[];
  workers: number;
  corpus: 'reviews' | 'synopses' | 'all';
  poolReps: number;
  pool: boolean;
  json: boolean;
  /** Presets measured through pools of 1 and N workers (the per-preset table). */
  poolPresets: string[];
  /** Another build of filmkw (a checkout with dist/ built) whose presets join the same rounds. */
  baseline: string | undefined;
  /** The baseline build's presets measured (default filmkw). */
  baselinePresets: string[];
}

function parseArgs(argv: string[]): Args {
  const a: Args = { rounds: 2, limit: Infinity, presets: listPresets(), workers: 2, corpus: 'all', poolReps: 3, pool: true, json: false, poolPresets: listPresets(), baseline: undefined, baselinePresets: ['filmkw'] };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`bench/tag: ${k} needs a value`);
      return x;
    };
    if (k === '--rounds') a.rounds = Number(v());
    else if (k === '--limit') a.limit = Number(v());
    else if (k === '--presets') a.presets = v().split(',');
    else if (k === '--workers') a.workers = Number(v());
    else if (k === '--corpus') {
      const c = v();
      if (c !== 'reviews' && c !== 'synopses' && c !== 'all') throw new Error(`bench/tag: --corpus must be reviews, synopses or all, got ${c}`);
      a.corpus = c;
    } else if (k === '--pool-reps') a.poolReps = Number(v());
    else if (k === '--no-pool') a.pool = false;
    else if (k === '--json') a.json = true;
    else if (k === '--baseline') a.baseline = v();
    else if (k === '--baseline-presets') a.baselinePresets = v().split(',');
    else if (k === '--pool-presets') {
      const x = v();
      a.poolPresets = x === 'none' ? [] : x.split(',');
    }
    else throw new Error(`bench/tag: unknown argument ${k} (valid: --rounds N, --limit N, --presets a,b, --workers N, --corpus C, --pool-reps N, --pool-presets a,b|none, --baseline DIR, --baseline-presets a,b, --no-pool, --json)`);
  }
  return a;
}

export interface Corpus {
  name: string;
  what: string;
  texts: string[];
  chars: number;
  invalid: number;
}

function corpus(name: string, what: string, texts: string[], invalid: number, limit: number): Corpus {
  const t = texts.slice(0, limit);
  return { name, what, texts: t, chars: t.reduce((s, x) => s + x.length, 0), invalid };
}

/** The review texts (invalid lines counted and skipped). */
export function readReviews(limit = Infinity): Corpus {
  const texts: string[] = [];
  let invalid = 0;
  for (const line of readFileSync(REVIEWS, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const o = JSON.parse(line) as { review_full?: unknown };
      const f = o.review_full;
      const text = Array.isArray(f) ? f.join('') : typeof f === 'string' ? f : '';
      if (text) texts.push(text);
    } catch {
      invalid++;
    }
  }
  return corpus('reviews', 'Douban long reviews of 百鸟朝凤 (texts/douban-reviews-bainiaochaofeng, `review_full`)', texts, invalid, limit);
}

/** The film synopses (non-empty `summary` of the 2,065-film CSV). */
export function readSynopses(limit = Infinity): Corpus {
  const rows = parse(readFileSync(SYNOPSES, 'utf8'), { columns: true, bom: true, skip_empty_lines: true, relax_column_count: true, relax_quotes: true }) as { summary?: string }[];
  const texts: string[] = [];
  for (const r of rows) if (r.summary && r.summary.trim()) texts.push(r.summary.trim());
  return corpus('synopses', 'film synopses (kg/douban-movies-2065, `summary`)', texts, 0, limit);
}

/** The KG the bench uses, where it came from, and the snapshot path the pool workers load. */
export async function benchKg(): Promise<{ kg: KgView; source: string; path: string | undefined; shown: string }> {
  const { path, shown } = benchKgPath();
  const kg = await loadKg(path ? { kg: path } : {});
  return { kg, source: path ? `snapshot ${path.replace(tmpdir(), '$TMPDIR')}` : 'bundled demo KG', path, shown };
}

export interface Row {
  system: string;
  docsPerSecond: number;
  charsPerSecond: number;
  p50ms: number;
  p99ms: number;
  /** Docs/s in each round (for the per-round ratios). */
  perRound: number[];
  createMs?: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export interface System {
  name: string;
  fn: (text: string) => unknown;
  createMs?: number;
}

/** Documents per turn: the systems take turns every CHUNK documents, so load drift hits all alike. */
export const CHUNK = 16;

/**
 * Time every system over the texts: one warm-up pass each, then `rounds` rounds; in a round the
 * systems take turns chunk by chunk (CHUNK documents each), so that a change of machine load within
 * the round falls on all of them. Rates are per round (the ratios are taken round by round). With the
 * `cpu` clock (_cli.ts `benchClock`) every time is the process's CPU time.
 */
export function measureAll(systems: System[], texts: string[], chars: number, rounds: number, clock: 'wall' | 'cpu' = 'wall'): Row[] {
  const latencies = systems.map(() => [] as number[]);
  const seconds = systems.map(() => 0);
  const perRound = systems.map(() => [] as number[]);
  const now = (): number => clockSeconds(clock) * 1000;
  for (const s of systems) for (const t of texts) s.fn(t);
  for (let r = 0; r < rounds; r++) {
    const roundSeconds = systems.map(() => 0);
    for (let c = 0; c < texts.length; c += CHUNK) {
      const chunk = texts.slice(c, c + CHUNK);
      systems.forEach((s, k) => {
        const start = now();
        for (const t of chunk) {
          const t0 = now();
          s.fn(t);
          latencies[k].push(now() - t0);
        }
        roundSeconds[k] += (now() - start) / 1000;
      });
    }
    systems.forEach((_, k) => {
      seconds[k] += roundSeconds[k];
      perRound[k].push(texts.length / roundSeconds[k]);
    });
  }
  return systems.map((s, k) => {
    const sorted = latencies[k].sort((a, b) => a - b);
    return {
      system: s.name,
      docsPerSecond: (texts.length * rounds) / seconds[k],
      charsPerSecond: (chars * rounds) / seconds[k],
      p50ms: percentile(sorted, 50),
      p99ms: percentile(sorted, 99),
      perRound: perRound[k],
      createMs: s.createMs,
    };
  });
}

// ---------------------------------------------------------------------------------------------------
// Worker pool

async function* records(texts: string[], times: number): AsyncGenerator<InputRecord> {
  let line = 0;
  for (let r = 0; r < times; r++) for (const text of texts) yield { line: ++line, id: String(line), text };
}

/** Docs/s of `texts` (× times) through tagOrdered on an engine, the output lines consumed (and checked). */
async function throughEngine(engine: TagEngine, texts: string[], times: number): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  for await (const out of tagOrdered(records(texts, times), engine)) {
    if (out.error) throw new Error(`bench/tag: error record ${out.text}`);
    n++;
  }
  return n / ((performance.now() - t0) / 1000);
}

const SPIN = `
const { parentPort, workerData } = require('node:worker_threads');
let x = 0;
for (let i = 0; i < workerData; i++) x = (x * 31 + i) % 1000003;
parentPort.postMessage(x);`;

/** Pure-JS CPU work: iterations/s with `threads` threads started together (each the same work). */
async function spin(threads: number, iterations: number): Promise<number> {
  const ws = Array.from({ length: threads }, () => new Worker(SPIN, { eval: true, workerData: iterations }));
  const t0 = performance.now();
  await Promise.all(ws.map((w) => new Promise((resolve, reject) => (w.once('message', resolve), w.once('error', reject)))));
  const s = (performance.now() - t0) / 1000;
  await Promise.all(ws.map((w) => w.terminate()));
  return (threads * iterations) / s;
}

/**
 * A worker-thread body that loads a library (`setup`, run once) and then, on each 'go' message, runs
 * `call` (an expression of `t`, the text) over every text `times` times.
 */
function threadBody(setup: string, call: string): string {
  return `
const { parentPort, workerData } = require('node:worker_threads');
${setup}
const { texts, times } = workerData;
for (const t of texts) ${call};
parentPort.postMessage('ready');
parentPort.on('message', () => {
  for (let r = 0; r < times; r++) for (const t of texts) ${call};
  parentPort.postMessage('done');
});`;
}

/** Bare @node-rs/jieba `tag` (the native, memory-heavy floor). */
const SEG = threadBody("const { Jieba } = require('@node-rs/jieba');\nconst { dict } = require('@node-rs/jieba/dict');\nconst jieba = Jieba.withDict(dict);", 'jieba.tag(t, true)');
/** nodejieba textRankExtract(5) (nodejieba ≈ 250 MB per thread). */
const TEXTRANK_THREAD = threadBody("const nodejieba = require('nodejieba');\nnodejieba.load();", 'nodejieba.textRankExtract(t, 5)');

/** Threads that each run one thread body over the same texts, started together. */
class Threads {
  private constructor(
    private readonly ws: Worker[],
    private readonly docs: number,
  ) {}
  static async create(body: string, threads: number, texts: string[], times: number): Promise<Threads> {
    const ws = Array.from({ length: threads }, () => new Worker(body, { eval: true, workerData: { texts, times } }));
    await Promise.all(ws.map((w) => new Promise((resolve, reject) => (w.once('message', resolve), w.once('error', reject)))));
    return new Threads(ws, texts.length * times);
  }
  /** Docs/s of all threads together, started at once. */
  async run(): Promise<number> {
    const t0 = performance.now();
    await Promise.all(this.ws.map((w) => new Promise((resolve, reject) => (w.once('message', resolve), w.once('error', reject), w.postMessage('go')))));
    return (this.ws.length * this.docs) / ((performance.now() - t0) / 1000);
  }
  close(): Promise<unknown> {
    return Promise.all(this.ws.map((w) => w.terminate()));
  }
}

/** Docs/s of nodejieba textRankExtract(5) in `threads` threads (created, run once, closed). */
async function textRankThreads(threads: number, texts: string[], times: number): Promise<number> {
  const t = await Threads.create(TEXTRANK_THREAD, threads, texts, times);
  try {
    return await t.run();
  } finally {
    await t.close();
  }
}

/** Timed passes per pool in the per-preset table (the best is kept). */
const PRESET_REPS = 2;

interface PresetPoolRow {
  system: string;
  one: number;
  many: number;
}

interface PresetPoolResult {
  corpus: string;
  docs: number;
  workers: number;
  textRank: PresetPoolRow;
  rows: PresetPoolRow[];
}

/**
 * Every preset through WorkerPools of 1 and N workers (the `--workers` paths of `filmkw tag`), next to
 * nodejieba textRankExtract in 1 and N threads, on the same texts: one warm-up pass, then one timed pass
 * of ≥ 1.5 M chars each (textRankExtract: ≥ 600 K chars, it is 5–8× slower), the 1- and N-worker passes
 * back to back.
 */
async function measurePresetPools(c: Corpus, kgPath: string | undefined, workers: number, presets: string[]): Promise<PresetPoolResult> {
  const call = { topK: undefined, explain: false };
  const times = Math.max(1, Math.ceil(1_500_000 / Math.max(1, c.chars)));
  const textRankTimes = Math.max(1, Math.ceil(600_000 / Math.max(1, c.chars)));
  const prepared = await prepareWorkerKg(kgPath ? { kg: kgPath } : {});
  try {
    const textRank = { system: 'nodejieba textRankExtract(5)', one: await textRankThreads(1, c.texts, textRankTimes), many: await textRankThreads(workers, c.texts, textRankTimes) };
    const rows: PresetPoolRow[] = [];
    for (const preset of presets) {
      const spec = {
        module: siblingModule('tag-extractor', new URL('../src/batch/engine.ts', import.meta.url).href),
        export: 'createTagExtractor',
        args: { preset, kg: { snapshot: prepared.snapshot }, cacheDir: cacheDirFromEnv() },
      };
      const pool1 = await WorkerPool.create(1, spec, call);
      const poolN = await WorkerPool.create(workers, spec, call);
      try {
        await throughEngine(pool1, c.texts, 1);
        await throughEngine(poolN, c.texts, 1);
        // best of PRESET_REPS alternating passes: on a shared machine a pass is only ever slowed down
        let one = 0;
        let many = 0;
        for (let r = 0; r < PRESET_REPS; r++) {
          one = Math.max(one, await throughEngine(pool1, c.texts, times));
          many = Math.max(many, await throughEngine(poolN, c.texts, times));
        }
        rows.push({ system: preset, one, many });
      } finally {
        await pool1.close();
        await poolN.close();
      }
    }
    return { corpus: c.name, docs: c.texts.length * times, workers, textRank, rows };
  } finally {
    prepared.cleanup();
  }
}

interface PoolRep {
  cpu1: number;
  cpuN: number;
  seg1: number;
  segN: number;
  inline: number;
  pool1: number;
  poolN: number;
  load: number;
}

interface PoolResult {
  corpus: string;
  docs: number;
  startup1Ms: number;
  startupNMs: number;
  reps: PoolRep[];
}

async function measurePool(c: Corpus, kg: KgView, kgPath: string | undefined, workers: number, reps: number): Promise<PoolResult> {
  const call = { topK: undefined, explain: false };
  const prepared = await prepareWorkerKg(kgPath ? { kg: kgPath } : {});
  const spec = {
    module: siblingModule('tag-extractor', new URL('../src/batch/engine.ts', import.meta.url).href),
    export: 'createTagExtractor',
    args: { preset: MAIN_PRESET, kg: { snapshot: prepared.snapshot }, cacheDir: cacheDirFromEnv() },
  };
  const inline = new InlineEngine(createExtractor({ preset: MAIN_PRESET, kg, cache: diskCacheFromEnv() }), call);
  let s0 = performance.now();
  const pool1 = await WorkerPool.create(1, spec, call);
  const startup1Ms = performance.now() - s0;
  s0 = performance.now();
  const poolN = await WorkerPool.create(workers, spec, call);
  const startupNMs = performance.now() - s0;
  prepared.cleanup();
  // each timed pass: the corpus repeated until it is ≥ 1.5 M chars (≈ 1.5–3 s of work on one thread;
  // shorter passes let start-of-pass effects decide the 2-worker ratio on the long reviews)
  const times = Math.max(1, Math.ceil(1_500_000 / Math.max(1, c.chars)));
  let seg1: Threads | undefined;
  let segN: Threads | undefined;
  try {
    for (const e of [inline, pool1, poolN]) await throughEngine(e, c.texts, 1); // warm-up
    seg1 = await Threads.create(SEG, 1, c.texts, times);
    segN = await Threads.create(SEG, workers, c.texts, times);
    const spinIterations = 2e8;
    const out: PoolRep[] = [];
    for (let r = 0; r < reps; r++) {
      const load = loadavg()[0];
      const cpu1 = await spin(1, spinIterations);
      const cpuN = await spin(workers, spinIterations);
      const s1 = await seg1.run();
      const sN = await segN.run();
      const i = await throughEngine(inline, c.texts, times);
      const p1 = await throughEngine(pool1, c.texts, times);
      const pN = await throughEngine(poolN, c.texts, times);
      out.push({ cpu1, cpuN, seg1: s1, segN: sN, inline: i, pool1: p1, poolN: pN, load });
    }
    return { corpus: c.name, docs: c.texts.length * times, startup1Ms, startupNMs, reps: out };
  } finally {
    await pool1.close();
    await poolN.close();
    await seg1?.close();
    await segN?.close();
  }
}

// ---------------------------------------------------------------------------------------------------
// Baseline build

/** Suffix of the baseline build's systems in the tables. */
export const BASELINE = ' (baseline)';

/**
 * The presets of another build of filmkw (a checkout at some commit, `npm ci && npm run build` done in
 * it) as systems of the same rounds: its own dist/ createExtractor and loadKg on the same KG snapshot,
 * so the ratio this build / that build is measured in one process with the systems taking turns.
 * `suffix` names its systems (bench/tag-baseline.ts loads this build's own dist/ the same way, with none).
 */
export async function baselineSystems(dir: string, presets: string[], kgPath: string | undefined, suffix = BASELINE): Promise<{ systems: System[]; label: string }> {
  const built = (rel: string): string => {
    const file = resolvePath(dir, 'dist', rel);
    if (!existsSync(file)) throw new Error(`bench/tag: --baseline ${dir}: no ${join('dist', rel)} (run npm ci && npm run build there)`);
    return pathToFileURL(file).href;
  };
  const extractMod = (await import(built(join('pipeline', 'extract.js')))) as { createExtractor: typeof createExtractor };
  const loadMod = (await import(built(join('kg', 'load.js')))) as { loadKg: typeof loadKg };
  const kg = await loadMod.loadKg(kgPath ? { kg: kgPath } : {});
  const systems: System[] = presets.map((preset) => {
    const c0 = performance.now();
    const extractor = extractMod.createExtractor({ preset, kg });
    return { name: preset + suffix, fn: (t: string) => extractor.extract(t), createMs: performance.now() - c0 };
  });
  let label = 'another build';
  try {
    label = `commit ${execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()}`;
  } catch {
    // not a git checkout (e.g. a `git archive` copy): no commit to show
  }
  return { systems, label };
}

/** Per corpus, every preset of this build against every preset of the baseline build, round by round. */
export function baselineSection(results: { corpus: Corpus; rows: Row[] }[], presets: readonly string[], baselinePresets: readonly string[], label: string): string[] {
  const out = [
    `### This build against the baseline build (${label})`,
    '',
    `The baseline build's presets ran in the same rounds as this build's (systems in turns every ${CHUNK} documents); docs/s of this build's preset / docs/s of the baseline's, per round (load average at the end ${loadavg()[0].toFixed(1)}).`,
    '',
    '| corpus | this build | baseline | ratio per round | ratio over all rounds |',
    '|---|---|---|---|---:|',
  ];
  for (const { corpus: c, rows } of results) {
    const byName = new Map(rows.map((r) => [r.system, r]));
    for (const preset of presets) {
      const mine = byName.get(preset);
      for (const b of baselinePresets) {
        const theirs = byName.get(b + BASELINE);
        if (!mine || !theirs) continue;
        const perRound = mine.perRound.map((x, r) => (x / theirs.perRound[r]).toFixed(2)).join(', ');
        out.push(`| ${c.name} | ${preset} | ${b} | ${perRound} | ${(mine.docsPerSecond / theirs.docsPerSecond).toFixed(2)} |`);
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(REVIEWS)) {
    console.log(`## Tagging throughput (bench/tag.ts)\n\nskipped: needs texts/douban-reviews-bainiaochaofeng/douban_reviews.json under ../shared/data (or FILMKW_DATA)\n`);
    return;
  }
  const corpora: Corpus[] = [];
  if (args.corpus !== 'synopses') corpora.push(readReviews(args.limit));
  if (args.corpus !== 'reviews') {
    if (existsSync(SYNOPSES)) corpora.push(readSynopses(args.limit));
    else console.error('bench/tag: no synopses (kg/douban-movies-2065/douban_all_movies.csv absent); reviews only');
  }
  const t0 = performance.now();
  const { kg, source, path: kgPath } = await benchKg();
  const kgMs = performance.now() - t0;

  // baselines in the same process, measured in turns with the presets
  nodejieba.load();
  const bare = createSegmenter({});
  const main = resolveOptions(MAIN_PRESET);
  const lexical = createSegmenter({
    backend: bare.backend,
    userDictLines: exportUserDict(kg, { backend: bare.backend, commonMinFreq: main.titles.commonMinFreq, commonMaxLength: main.titles.commonMaxLength, commonWordKinds: main.titles.titleKinds }).lines,
  });
  const TEXTRANK = 'nodejieba textRankExtract(5)';
  const TAG = `bare tag (${lexical.backend}, KG user dict)`;
  const systems: System[] = [
    { name: TEXTRANK, fn: (t) => nodejieba.textRankExtract(t, 5) },
    { name: 'nodejieba extract(5) (TF-IDF)', fn: (t) => nodejieba.extract(t, 5) },
    { name: 'nodejieba tag', fn: (t) => nodejieba.tag(t) },
    { name: `bare tag (${bare.backend}, no user dict)`, fn: (t) => bare.tag(t) },
    { name: TAG, fn: (t) => lexical.tag(t) },
  ];
  for (const preset of args.presets) {
    const c0 = performance.now();
    const extractor = createExtractor({ preset, kg, cache: diskCacheFromEnv() });
    systems.push({ name: preset, fn: (t) => extractor.extract(t), createMs: performance.now() - c0 });
  }
  const baseline = args.baseline ? await baselineSystems(args.baseline, args.baselinePresets, kgPath) : null;
  if (baseline) systems.push(...baseline.systems);
  const results = corpora.map((c) => ({ corpus: c, rows: measureAll(systems, c.texts, c.chars, args.rounds, benchClock()) }));

  const pools: PoolResult[] = [];
  if (args.pool && args.workers > 1) for (const c of corpora) pools.push(await measurePool(c, kg, kgPath, args.workers, args.poolReps));
  const presetPools: PresetPoolResult[] = [];
  if (args.pool && args.workers > 1 && args.poolPresets.length > 0) {
    for (const c of corpora) presetPools.push(await measurePresetPools(c, kgPath, args.workers, args.poolPresets));
  }

  if (args.json) {
    console.log(JSON.stringify({ kg: source, kgLoadMs: kgMs, results: results.map((r) => ({ corpus: r.corpus.name, texts: r.corpus.texts.length, chars: r.corpus.chars, rows: r.rows })), pools, presetPools }, null, 2));
    return;
  }
  const f = (x: number, d = 0) => x.toLocaleString('en', { minimumFractionDigits: d, maximumFractionDigits: d });
  const range = (xs: number[], d = 2) => {
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    return lo.toFixed(d) === hi.toFixed(d) ? lo.toFixed(d) : `${lo.toFixed(d)}–${hi.toFixed(d)}`;
  };
  const out: string[] = [];
  out.push('## Tagging throughput (bench/tag.ts)');
  out.push('');
  out.push(
    `KG: ${source} (${f(kg.entityCount)} entities, loaded in ${f(kgMs)} ms); ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}, load average at start ${loadavg()[0].toFixed(1)}. One thread: a full warm-up pass, then ${args.rounds} rounds with the systems in turns; p50/p99 are per-document latencies. "create ms" is the extractor creation (the KG-derived lexicon and the packed IDF table come from the CLI's on-disk cache when it is warm, src/lexicon/cache.ts).`,
  );
  const summary: string[] = [];
  for (const { corpus: c, rows } of results) {
    const byName = new Map(rows.map((r) => [r.system, r]));
    const textRank = byName.get(TEXTRANK)!.docsPerSecond;
    const tagRate = byName.get(TAG)!.docsPerSecond;
    out.push('');
    out.push(`### ${c.name}: ${f(c.texts.length)} ${c.what}`);
    out.push('');
    out.push(`${f(c.chars)} chars (mean ${f(c.chars / c.texts.length)} per document)${c.invalid ? `; ${c.invalid} lines that are not valid JSON skipped` : ''}.`);
    out.push('');
    out.push('| system | docs/s | chars/s | p50 ms | p99 ms | × textRankExtract | × bare tag (KG dict) | create ms |');
    out.push('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      out.push(
        `| ${r.system} | ${f(r.docsPerSecond)} | ${f(r.charsPerSecond)} | ${r.p50ms.toFixed(2)} | ${r.p99ms.toFixed(2)} | ${(r.docsPerSecond / textRank).toFixed(2)} | ${(r.docsPerSecond / tagRate).toFixed(2)} | ${r.createMs === undefined ? '' : f(r.createMs)} |`,
      );
    }
    const m = byName.get(MAIN_PRESET);
    if (m) {
      const tr = byName.get(TEXTRANK)!;
      const tg = byName.get(TAG)!;
      const vsTextRank = m.perRound.map((x, r) => x / tr.perRound[r]);
      const vsTag = m.perRound.map((x, r) => x / tg.perRound[r]);
      out.push('');
      out.push(`${MAIN_PRESET} per round: ${vsTextRank.map((x) => x.toFixed(2)).join(', ')} × textRankExtract; ${vsTag.map((x) => x.toFixed(2)).join(', ')} × bare tag (KG dict).`);
      summary.push(
        `${c.name}: ${MAIN_PRESET} = ${range(vsTextRank)}× textRankExtract over ${args.rounds} rounds (target ≥ 3.0: ${Math.min(...vsTextRank) >= 3 ? 'met' : Math.max(...vsTextRank) >= 3 ? 'met in some rounds' : 'not met'}), ${range(vsTag)}× bare tag (target ≥ 0.6: ${Math.min(...vsTag) >= 0.6 ? 'met' : Math.max(...vsTag) >= 0.6 ? 'met in some rounds' : 'not met'})`,
      );
    }
  }
  if (pools.length > 0) {
    const N = args.workers;
    out.push('');
    out.push(`### ${MAIN_PRESET} through the worker pool of \`filmkw tag\` (src/batch), 1 and ${N} workers`);
    out.push('');
    out.push(
      `Documents through \`tagOrdered\` (batches of 16 documents / 64 K chars per message, ordered output lines) on the inline engine (\`--workers 1\`) and on WorkerPools of 1 and ${N} workers; start-up not timed (shown apart), a warm-up pass first, each pass ≥ 1.5 M chars (the corpus repeated). Run just before, as references for what ${N} threads can give on this machine at that moment (ideal ${N}.00): "CPU loop" is a pure-JS loop (no memory traffic) on ${N} threads vs 1; "bare jieba tag" is @node-rs/jieba \`tag\` alone (no pipeline, no messages) on the same texts in ${N} threads vs 1. Repetitions in order:`,
    );
    out.push('');
    out.push(`| corpus | docs/pass | load avg | CPU loop ${N}/1 | bare jieba tag ${N}/1 | inline docs/s | pool(1) docs/s | pool(${N}) docs/s | pool(${N}) / pool(1) | pool(${N}) / inline |`);
    out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const p of pools) {
      for (const r of p.reps) {
        out.push(
          `| ${p.corpus} | ${f(p.docs)} | ${r.load.toFixed(1)} | ${(r.cpuN / r.cpu1).toFixed(2)} | ${(r.segN / r.seg1).toFixed(2)} | ${f(r.inline)} | ${f(r.pool1)} | ${f(r.poolN)} | ${(r.poolN / r.pool1).toFixed(2)} | ${(r.poolN / r.inline).toFixed(2)} |`,
        );
      }
    }
    out.push('');
    for (const p of pools) {
      out.push(
        `- ${p.corpus}: pool start-up ${f(p.startup1Ms)} ms (1 worker), ${f(p.startupNMs)} ms (${N} workers); pool(${N}) / pool(1) = ${range(p.reps.map((r) => r.poolN / r.pool1))} (target ≥ 1.7), while the CPU loop gave ${range(p.reps.map((r) => r.cpuN / r.cpu1))} and bare jieba tag ${range(p.reps.map((r) => r.segN / r.seg1))}; pool(1) / inline = ${range(p.reps.map((r) => r.pool1 / r.inline))}.`,
      );
      const best = Math.max(...p.reps.map((r) => r.poolN)) / Math.max(...p.reps.map((r) => r.pool1));
      summary.push(
        `${p.corpus}: ${N} workers = ${range(p.reps.map((r) => r.poolN / r.pool1))}× one worker per repetition, ${best.toFixed(2)}× best against best (target ≥ 1.7: ${Math.min(...p.reps.map((r) => r.poolN / r.pool1)) >= 1.7 ? 'met' : best >= 1.7 ? 'met best against best, not in every repetition' : 'not met'}; at the same time ${N} threads gave ${range(p.reps.map((r) => r.cpuN / r.cpu1))}× on a pure-JS loop and ${range(p.reps.map((r) => r.segN / r.seg1))}× on bare jieba tag)`,
      );
    }
  }
  for (const p of presetPools) {
    const N = p.workers;
    out.push('');
    out.push(`### Every preset with 1 and ${N} workers: ${p.corpus}`);
    out.push('');
    out.push(
      `Each preset through WorkerPools of 1 and ${N} workers (the \`--workers\` paths of \`filmkw tag\`, KG snapshot loaded by each worker), next to nodejieba \`textRankExtract(5)\` in 1 and ${N} worker threads; a warm-up pass, then ${PRESET_REPS} timed passes of ${f(p.docs)} documents (the corpus repeated; textRankExtract one shorter pass) per pool, 1- and ${N}-worker passes alternating; the best pass of each is shown (a shared machine only ever slows a pass down).`,
    );
    out.push('');
    out.push(`| system | 1 worker docs/s | ${N} workers docs/s | ${N} / 1 | × textRankExtract (1 thread) | × textRankExtract (${N} threads) |`);
    out.push('|---|---:|---:|---:|---:|---:|');
    for (const r of [p.textRank, ...p.rows]) {
      out.push(`| ${r.system} | ${f(r.one)} | ${f(r.many)} | ${(r.many / r.one).toFixed(2)} | ${(r.one / p.textRank.one).toFixed(2)} | ${(r.many / p.textRank.many).toFixed(2)} |`);
    }
  }
  if (baseline) out.push('', ...baselineSection(results, args.presets, args.baselinePresets, baseline.label));
  out.push('');
  out.push('Targets (issue 6):');
  for (const s of summary) out.push(`- ${s}`);
  console.log(out.join('\n'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
