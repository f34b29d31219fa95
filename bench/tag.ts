/**
 * Tagging benchmark (issues 3 and 6): documents/s of every preset on the real Douban reviews, next to
 * nodejieba `textRankExtract` and `extract` and the bare `tag` of the segmenter the pipeline uses, all
 * on the same texts in the same process; per-document latency p50/p99; creation (cold-start) time; and
 * the 2-worker rate of the main preset.
 *
 *   node --import tsx bench/tag.ts [--rounds N] [--limit N] [--presets a,b] [--workers 2] [--synopses] [--json]
 *
 * Corpus (skipped with a message when ../shared/data is absent; FILMKW_DATA overrides the folder): the
 * 302-line Douban review file of 百鸟朝凤 (texts/douban-reviews-bainiaochaofeng/douban_reviews.json;
 * `review_full` a string or an array of strings, joined; the 5 lines that are not valid JSON are
 * skipped), and with `--synopses` also the `summary` column of kg/douban-movies-2065.
 *
 * KG: the snapshot named by FILMKW_BENCH_KG, else the merged snapshot at $TMPDIR/filmkw-merged.fkg when
 * present (made by `filmkw kg import`), else the bundled demo KG. The table says which.
 *
 * Prints a markdown section (bench/run.mjs collects it into bench/results.md). Ratios are what count:
 * absolute rates depend on the machine and its load.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import nodejieba from 'nodejieba';
import { parse } from 'csv-parse/sync';
import { createExtractor } from '../src/pipeline/extract.js';
import { listPresets } from '../src/pipeline/presets.js';
import { createSegmenter } from '../src/pipeline/segment.js';
import { exportUserDict } from '../src/kg/dict.js';
import type { KgView } from '../src/kg/model.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const dataDir = process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data');
const REVIEWS = join(dataDir, 'texts', 'douban-reviews-bainiaochaofeng', 'douban_reviews.json');
const SYNOPSES = join(dataDir, 'kg', 'douban-movies-2065', 'douban_all_movies.csv');

interface Args {
  rounds: number;
  limit: number;
  presets: string[];
  workers: number;
  synopses: boolean;
  json: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { rounds: 3, limit: Infinity, presets: listPresets(), workers: 2, synopses: false, json: false };
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
    else if (k === '--synopses') a.synopses = true;
    else if (k === '--json') a.json = true;
    else throw new Error(`bench/tag: unknown argument ${k} (valid: --rounds N, --limit N, --presets a,b, --workers N, --synopses, --json)`);
  }
  return a;
}

/** The review texts (invalid lines skipped) and, optionally, the synopses. */
export function readCorpus(limit: number, synopses: boolean): { texts: string[]; invalid: number } {
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
  if (synopses && existsSync(SYNOPSES)) {
    const rows = parse(readFileSync(SYNOPSES, 'utf8'), { columns: true, skip_empty_lines: true, relax_quotes: true }) as { summary?: string }[];
    for (const r of rows) if (r.summary && r.summary.trim()) texts.push(r.summary.trim());
  }
  return { texts: texts.slice(0, limit), invalid };
}

/** The KG the bench uses, and how it was found. */
async function benchKg(): Promise<{ kg: KgView; source: string }> {
  const merged = join(tmpdir(), 'filmkw-merged.fkg');
  const path = process.env.FILMKW_BENCH_KG ?? (existsSync(merged) ? merged : undefined);
  // src/kg/load.ts (loadKg) is another helper's module; resolved at run time
  const specifier = '../src/kg/load.js';
  const { loadKg } = (await import(specifier)) as { loadKg: (o: { kg?: string }) => Promise<KgView> };
  const kg = await loadKg(path ? { kg: path } : {});
  return { kg, source: path ? `snapshot ${path.replace(tmpdir(), '$TMPDIR')}` : 'bundled demo KG' };
}

interface Row {
  system: string;
  docsPerSecond: number;
  charsPerSecond: number;
  p50ms: number;
  p99ms: number;
  createMs?: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface System {
  name: string;
  fn: (text: string) => unknown;
  createMs?: number;
}

/**
 * Time every system over the texts: one full warm-up pass each (JIT, memo tables), then `rounds` rounds in which the systems
 * take turns (so that drift in machine load spreads over all of them instead of favouring one).
 */
function measureAll(systems: System[], texts: string[], chars: number, rounds: number): Row[] {
  const latencies = systems.map(() => [] as number[]);
  const seconds = systems.map(() => 0);
  for (const s of systems) for (const t of texts) s.fn(t);
  for (let r = 0; r < rounds; r++) {
    systems.forEach((s, k) => {
      const start = performance.now();
      for (const t of texts) {
        const t0 = performance.now();
        s.fn(t);
        latencies[k].push(performance.now() - t0);
      }
      seconds[k] += (performance.now() - start) / 1000;
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
      createMs: s.createMs,
    };
  });
}

/** Worker: tag its share of the texts with one preset; reports the time of the tagging alone. */
async function workerMain(): Promise<void> {
  const { preset, texts, rounds } = workerData as { preset: string; texts: string[]; rounds: number };
  const { kg } = await benchKg();
  const extractor = createExtractor({ preset, kg });
  for (const t of texts) extractor.extract(t); // the same full warm-up pass as the single-thread run
  parentPort!.postMessage({ ready: true });
  await new Promise<void>((resolve) => parentPort!.once('message', () => resolve()));
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) for (const t of texts) extractor.extract(t);
  parentPort!.postMessage({ ms: performance.now() - t0 });
}

/** Wall-clock docs/s of `workers` threads each tagging 1/workers of the texts (started together). */
async function measureWorkers(preset: string, texts: string[], rounds: number, workers: number): Promise<number> {
  // balance the shares by characters (greedy, longest first): review lengths are skewed (137 to 23,906)
  const shares: string[][] = Array.from({ length: workers }, () => []);
  const load = new Array<number>(workers).fill(0);
  for (const t of [...texts].sort((a, b) => b.length - a.length)) {
    const w = load.indexOf(Math.min(...load));
    shares[w].push(t);
    load[w] += t.length;
  }
  // a .ts entry needs tsx registered inside the worker (execArgv --import does not reach workers)
  const bootstrap = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(import.meta.url)}); });`;
  const threads = shares.map((share) => new Worker(bootstrap, { eval: true, workerData: { preset, texts: share, rounds } }));
  await Promise.all(threads.map((w) => new Promise((resolve, reject) => (w.once('message', resolve), w.once('error', reject)))));
  const t0 = performance.now();
  const done = threads.map((w) => new Promise<number>((resolve, reject) => (w.once('message', (m: { ms: number }) => resolve(m.ms)), w.once('error', reject))));
  for (const w of threads) w.postMessage('go');
  await Promise.all(done);
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(threads.map((w) => w.terminate()));
  return (texts.length * rounds) / seconds;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(REVIEWS)) {
    console.log(`## Tagging throughput\n\nskipped: needs ${REVIEWS} (../shared/data)\n`);
    return;
  }
  const { texts, invalid } = readCorpus(args.limit, args.synopses);
  const chars = texts.reduce((s, t) => s + t.length, 0);
  const t0 = performance.now();
  const { kg, source } = await benchKg();
  const kgMs = performance.now() - t0;

  // baselines in the same process, measured in turns with the presets
  nodejieba.load();
  const bare = createSegmenter({});
  const lexical = createSegmenter({ backend: bare.backend, userDictLines: exportUserDict(kg, { backend: bare.backend }).lines });
  const systems: System[] = [
    { name: 'nodejieba textRankExtract(5)', fn: (t) => nodejieba.textRankExtract(t, 5) },
    { name: 'nodejieba extract(5) (TF-IDF)', fn: (t) => nodejieba.extract(t, 5) },
    { name: 'nodejieba tag', fn: (t) => nodejieba.tag(t) },
    { name: `bare tag (${bare.backend}, no user dict)`, fn: (t) => bare.tag(t) },
    { name: `bare tag (${lexical.backend}, KG user dict)`, fn: (t) => lexical.tag(t) },
  ];
  for (const preset of args.presets) {
    const c0 = performance.now();
    const extractor = createExtractor({ preset, kg });
    systems.push({ name: preset, fn: (t) => extractor.extract(t), createMs: performance.now() - c0 });
  }
  const rows = measureAll(systems, texts, chars, args.rounds);
  const byName = new Map(rows.map((r) => [r.system, r]));
  const textRank = byName.get('nodejieba textRankExtract(5)')!.docsPerSecond;
  const tagRate = byName.get(`bare tag (${lexical.backend}, KG user dict)`)!.docsPerSecond;

  const main = args.presets.includes('textrank+w+g+r') ? 'textrank+w+g+r' : args.presets[0];
  let workerRate: number | null = null;
  if (args.workers > 1) workerRate = await measureWorkers(main, texts, args.rounds, args.workers);

  if (args.json) {
    console.log(JSON.stringify({ texts: texts.length, invalid, chars, kg: source, kgLoadMs: kgMs, rows, workers: args.workers, workerRate }, null, 2));
    return;
  }
  const f = (x: number, d = 0) => x.toFixed(d);
  const out: string[] = [];
  out.push('## Tagging throughput (bench/tag.ts)');
  out.push('');
  out.push(
    `${texts.length} texts (${invalid} invalid lines skipped), ${chars.toLocaleString('en')} chars; ${args.rounds} rounds after a full warm-up pass; KG: ${source} (${kg.entityCount.toLocaleString('en')} entities, loaded in ${f(kgMs)} ms); ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}.`,
  );
  out.push('');
  out.push('| system | docs/s | chars/s | p50 ms | p99 ms | × textRankExtract | × bare tag (KG dict) | create ms |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    out.push(
      `| ${r.system} | ${f(r.docsPerSecond)} | ${f(r.charsPerSecond)} | ${f(r.p50ms, 2)} | ${f(r.p99ms, 2)} | ${f(r.docsPerSecond / textRank, 2)} | ${f(r.docsPerSecond / tagRate, 2)} | ${r.createMs === undefined ? '' : f(r.createMs)} |`,
    );
  }
  if (workerRate !== null) {
    const single = byName.get(main)!.docsPerSecond;
    out.push('');
    out.push(`${args.workers} worker threads, ${main}: ${f(workerRate)} docs/s = ${f(workerRate / single, 2)}× the single-thread rate (targets: ≥ 1.7× with 2 workers).`);
  }
  out.push('');
  out.push('Targets (issue 6): textrank+w+g+r ≥ 3.0× textRankExtract and ≥ 0.6× bare tag.');
  console.log(out.join('\n'));
}

if (isMainThread) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
} else {
  void workerMain();
}
