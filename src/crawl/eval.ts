/**
 * Crawler evaluation as the papers measure it (crawler-spec.md §5): for every mode on every seed set of
 * the test web, harvest rate HR(t) as a curve over pages fetched, filter precision / recall / F of the
 * saved pages against the gold, target recall (a held-out target set), pages per second; each for all
 * pages and for real pages only. Then the off-topic seed sweep (sweep.ts) and the throughput under
 * real-world latency at concurrency 1, 4, 8, 16 (throughput.ts). Writes results.json, results.md (the
 * tables) and one SVG chart of the harvest curves per seed set (vega-lite, rendered by src/eval/charts.ts).
 *
 * Metrics are pure functions of (index lines, gold, targets): {@link crawlMetrics}.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { inputError } from '../errors.js';
import { renderSvg } from '../eval/charts.js';
import { crawl } from './crawler.js';
import { CRAWL_MODES, resolveCrawlOptions, type CrawlMode, type CrawlOptions } from './options.js';
import { startReplay } from './replay.js';
import { crawlResources } from './resources.js';
import { SEED_SETS } from './testweb.js';
import { urlHash, urlKey } from './url.js';
import { Frontier } from './frontier.js';
import { createSeenSet } from './seen.js';
import { decodeHtml } from '../html/decode.js';
import { parsePage } from './page.js';
import { pageRelevance } from './relevance.js';
import { TopicLibrary } from './topic.js';
import { runSeedSweep, sweepTable, tunnelSeeds, type SweepRow, type SweepSeed } from './sweep.js';
import type { Gold, IndexLine } from './gold.js';
import { measureThroughput, throughputTable, type ThroughputRow } from './throughput.js';

export type { Gold, IndexLine } from './gold.js';

export interface Metrics {
  fetched: number;
  /** Harvest rate after t fetches for each t of CURVE_POINTS (and the final). */
  harvest: Record<string, number>;
  precision: number;
  recall: number;
  f1: number;
  targetRecall: number;
}

export const CURVE_POINTS: readonly number[] = Object.freeze([50, 100, 200, 500, 1000]);

export function readGold(path: string): Gold {
  const relevant = new Map<string, boolean>();
  const real = new Set<string>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw inputError(`crawl eval: ${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); is --web a folder built by \`filmkw crawl testweb\`?`, err);
  }
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i]!.split('\t');
    if (f.length < 4) continue;
    relevant.set(f[0]!, f[1] === '1');
    if (f[3] === 'real') real.add(f[0]!);
  }
  return { relevant, real };
}

/** The held-out target set T (crawler-spec.md §5): a fixed 10 % hash sample of the relevant pages that are not seeds, plus every real relevant page that is not a seed. */
export function targetSet(gold: Gold, seeds: readonly string[]): Set<string> {
  const t = new Set<string>();
  for (const [u, rel] of gold.relevant) {
    if (!rel || seeds.includes(u)) continue;
    if (gold.real.has(u) || parseInt(urlHash(`target:${u}`, 4), 16) % 10 === 0) t.add(u);
  }
  return t;
}

/**
 * HR(t) = (1/t)·Σ_{i≤t} rel(p_i); filter P = |saved ∩ G| / |saved|, R = |saved ∩ G| / |G|, F = 2PR/(P+R);
 * target recall = |fetched ∩ T| / |T| (crawler-spec.md §5; [SMP05] for target recall). `only` restricts
 * every count to a subset of URLs (the real pages).
 */
export function crawlMetrics(lines: readonly IndexLine[], gold: Gold, targets: ReadonlySet<string>, only?: ReadonlySet<string>): Metrics {
  const keep = (u: string) => !only || only.has(u);
  const rel = (l: IndexLine) => gold.relevant.get(l.finalUrl ?? l.url) === true || gold.relevant.get(l.url) === true;
  const ls = lines.filter((l) => keep(l.url));
  const harvest: Record<string, number> = {};
  let hits = 0;
  ls.forEach((l, i) => {
    if (rel(l)) hits++;
    if (CURVE_POINTS.includes(i + 1)) harvest[String(i + 1)] = hits / (i + 1);
  });
  harvest.final = ls.length ? hits / ls.length : 0;
  const saved = ls.filter((l) => l.relevant);
  const tp = saved.filter(rel).length;
  let g = 0;
  for (const [u, r] of gold.relevant) if (r && keep(u)) g++;
  const precision = saved.length ? tp / saved.length : 0;
  const recall = g ? tp / g : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  const fetchedSet = new Set(ls.flatMap((l) => (l.finalUrl ? [l.url, l.finalUrl] : [l.url])));
  let tHit = 0;
  let tN = 0;
  for (const u of targets) {
    if (!keep(u)) continue;
    tN++;
    if (fetchedSet.has(u)) tHit++;
  }
  return { fetched: ls.length, harvest, precision, recall, f1, targetRecall: tN ? tHit / tN : 0 };
}

/** Harvest-rate curve points: every `step` fetches. */
export function harvestCurve(lines: readonly IndexLine[], gold: Gold, step: number, only?: ReadonlySet<string>): { t: number; hr: number }[] {
  const out: { t: number; hr: number }[] = [];
  let hits = 0;
  let n = 0;
  for (const l of lines) {
    if (only && !only.has(l.url)) continue;
    n++;
    if (gold.relevant.get(l.finalUrl ?? l.url) === true) hits++;
    if (n % step === 0) out.push({ t: n, hr: hits / n });
  }
  return out;
}

/** Budget of each crawl of the off-topic seed sweep. */
export const SWEEP_BUDGET = 500;

/** The throughput measurement: 24 hosts, 100–300 ms per answer, the real-web delay of 1 s per host. */
export const THROUGHPUT_SETUP = Object.freeze({ hosts: 24, pages: 40, latency: Object.freeze({ minMs: 100, maxMs: 300, perHost: false }), delayMs: 1000, maxPages: 300, concurrencies: Object.freeze([1, 4, 8, 16]) });

/** One evaluated configuration: a mode, optionally with overrides or without the KG (hand lists only). */
export interface EvalConfig {
  label: string;
  mode: CrawlMode;
  overrides?: Partial<CrawlOptions>;
  noKg?: boolean;
}

/** The four modes, then the ablations that explain them (ANALYSIS.md). */
export const EVAL_CONFIGS: readonly EvalConfig[] = Object.freeze([
  ...CRAWL_MODES.map((mode) => ({ label: mode, mode })),
  { label: 'focused, lookahead 10', mode: 'focused', overrides: { maxLookahead: 10 } },
  // the default before the depth budget (issue 27): no budget, depth limit 8
  { label: 'focused, no depth budget', mode: 'focused', overrides: { depthBudget: 0, maxDepth: 8 } },
  // hand lists only: η measured for this library on the gold like the default (ANALYSIS.md), 0.03
  { label: 'focused, no KG', mode: 'focused', noKg: true, overrides: { threshold: 0.03 } },
  { label: 'static, no KG', mode: 'static', noKg: true, overrides: { threshold: 0.03 } },
  // the save rule: 003 style (own sim ≥ η) against the default (two-step score ≥ η)
  { label: 'focused, save on sim', mode: 'focused', overrides: { saveRule: 'sim' } },
  // 004 drops a few very low children only when most are highly relevant (case a); the spec drops every
  // child below τ_low: without that, a page whose children are mostly ads is scored down
  { label: 'focused, τ_low 0', mode: 'focused', overrides: { tauLow: 0 } },
  // the spec's plain Reading A (no prior gate: up to 30 children fetched ahead per page), both orders
  { label: 'focused, no gate', mode: 'focused', overrides: { lookaheadGate: false } },
  { label: 'one-step, no gate', mode: 'one-step', overrides: { lookaheadGate: false } },
  // the Bloom seen-set: same crawl (no false positive expected at this size), its cost in pages/s
  { label: 'focused, Bloom seen-set', mode: 'focused', overrides: { seenSet: 'bloom' } },
] as EvalConfig[]);

interface RunResult {
  set: string;
  mode: string;
  all: Metrics;
  real: Metrics;
  pagesPerSec: number;
  /** Pages per CPU second of the evaluating process (crawler + in-process replay server). */
  pagesPerCpuSec: number;
  seconds: number;
  dtfl: number;
  curve: { t: number; hr: number }[];
}

function curveChart(set: string, runs: readonly RunResult[]): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: `Harvest rate over pages fetched — seed set ${set}`, subtitle: 'local test web, all pages (real + generated); see results.md for real-only', anchor: 'start', fontSize: 14 },
    width: 520,
    height: 260,
    config: { font: 'Helvetica, Arial, sans-serif', background: 'white', legend: { orient: 'bottom' } },
    data: { values: runs.flatMap((r) => r.curve.map((p) => ({ mode: r.mode, t: p.t, hr: p.hr }))) },
    mark: { type: 'line', strokeWidth: 2 },
    encoding: {
      x: { field: 't', type: 'quantitative', title: 'pages fetched' },
      y: { field: 'hr', type: 'quantitative', title: 'harvest rate', scale: { domain: [0, 1] } },
      color: { field: 'mode', type: 'nominal', sort: EVAL_CONFIGS.map((c) => c.label), scale: { range: ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#e6ab02', '#1f78b4', '#66a61e', '#a6761d', '#666666', '#b15928', '#fb9a99', '#cab2d6', '#6a3d9a', '#b2df8a', '#000000'] } },
    },
  } as TopLevelSpec;
}

const pct = (x: number) => (100 * x).toFixed(1);

/**
 * Memory of a frontier over `urls` discovered URLs: pages of 10 links each pushed into the bounded
 * frontier (default maxFrontier), each with a tunnel entry of 8 navigation links, and every URL into the
 * seen-set, as the crawler keeps them. Returns the
 * growth of the V8 heap plus array buffers (the Bloom filter's bits) in MB (after a forced GC when node
 * runs with --expose-gc).
 */
export function frontierMemory(urls: number, maxFrontier: number, seenSet: CrawlOptions['seenSet'] = 'exact'): { urls: number; kept: number; evicted: number; heapMB: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const used = () => ((m) => m.heapUsed + m.arrayBuffers)(process.memoryUsage());
  const before = used();
  const f = new Frontier(maxFrontier);
  const seen = createSeenSet(resolveCrawlOptions({ seenSet }));
  let distinct = 0;
  for (let p = 0; p < urls / 10; p++) {
    const links: string[] = [];
    for (let i = 0; i < 10; i++) {
      const u = `https://site${p % 997}.example/section/${p}/page-${i}.html?id=${p * 10 + i}`;
      const k = urlKey(u);
      if (!seen.has(k)) distinct++;
      seen.add(k);
      links.push(u);
    }
    const score = ((p * 7919) % 1000) / 1000;
    const url = `https://site${p % 997}.example/section/${p}/`;
    f.push({ seq: 2 * p, url, depth: 1, sim: score, key: score, links: links.join('\n'), inherited: 0 });
    const nav = [...Array(8).keys()].map((i) => `https://site${p % 997}.example/nav/${i}\t0.01`).join('\n');
    f.push({ seq: 2 * p + 1, url, depth: 1, sim: score, key: -1 + score / 4, links: nav, inherited: 0, hops: 1, tunnel: true });
  }
  gc?.();
  const heapMB = (used() - before) / 2 ** 20;
  // the seen-set stays reachable up to here (a dead local could be collected before the measurement)
  if (seen.has(-1)) distinct--;
  return { urls: distinct, kept: f.size, evicted: f.evicted, heapMB: Math.round(heapMB) };
}

/** One row of the threshold sweep: the page filter sim ≥ η against the gold. */
export interface ThresholdRow {
  library: string;
  eta: number;
  all: { p: number; r: number; f: number };
  real: { p: number; r: number; f: number };
}

export const SWEEP_ETAS: readonly number[] = Object.freeze([0.02, 0.03, 0.05, 0.07, 0.1, 0.12, 0.15, 0.2]);

/**
 * How η was chosen (crawler-spec.md §3.6): sim of every real page and of a fixed 10 % of the generated
 * pages of the test web (by line of gold.tsv), then the filter's P/R/F at each η, all pages and real only.
 */
export function thresholdSweep(web: string, libraries: readonly { label: string; res: ReturnType<typeof crawlResources> }[]): ThresholdRow[] {
  const files = new Map<string, string>();
  for (const line of readFileSync(join(web, 'manifest.tsv'), 'utf8').split('\n').slice(1)) {
    const [url, file] = line.split('\t');
    if (url && file && !/^(redirect|status|slow):/u.test(file)) files.set(url, file);
  }
  const goldLines = readFileSync(join(web, 'gold.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
  const sample = goldLines.filter((g, i) => g[3] === 'real' || i % 10 === 0);
  const o = resolveCrawlOptions();
  const rows: ThresholdRow[] = [];
  for (const { label, res } of libraries) {
    const lib = TopicLibrary.fromKg(res.kg, o, res.commonWord);
    const scored = sample.flatMap((g) => {
      const f = files.get(g[0]!);
      if (!f) return [];
      const page = parsePage(decodeHtml(new Uint8Array(readFileSync(join(web, f))), { path: g[0] }).html);
      return [{ sim: pageRelevance(page, lib, res.idf, o), rel: g[1] === '1', real: g[3] === 'real' }];
    });
    const prf = (xs: typeof scored, eta: number) => {
      const tp = xs.filter((x) => x.sim >= eta && x.rel).length;
      const fp = xs.filter((x) => x.sim >= eta && !x.rel).length;
      const fn = xs.filter((x) => x.sim < eta && x.rel).length;
      const p = tp + fp ? tp / (tp + fp) : 0;
      const r = tp + fn ? tp / (tp + fn) : 0;
      return { p, r, f: p + r ? (2 * p * r) / (p + r) : 0 };
    };
    for (const eta of SWEEP_ETAS) rows.push({ library: label, eta, all: prf(scored, eta), real: prf(scored.filter((x) => x.real), eta) });
  }
  return rows;
}

/** Runs the evaluation (see module header). */
export async function runCrawlEval(a: { web?: string; data: string; out: string; maxPages: number; say: (m: string) => void }): Promise<void> {
  let web = a.web;
  let tmpWeb: string | undefined;
  if (!web) {
    if (!existsSync(join(a.data, 'html', 'MANIFEST.tsv'))) throw inputError(`crawl eval: no test web given and no shared data at ${a.data} (set FILMKW_DATA or pass --web)`);
    tmpWeb = mkdtempSync(join(tmpdir(), 'filmkw-testweb-'));
    const { buildTestWeb, loadTestWebInputs } = await import('./testweb.js');
    a.say(`crawl eval: building the test web in ${tmpWeb}`);
    buildTestWeb(await loadTestWebInputs(a.data, a.say), tmpWeb);
    web = tmpWeb;
  }
  const gold = readGold(join(web, 'gold.tsv'));
  const seedSets = new Map<string, string[]>();
  for (const line of readFileSync(join(web, 'seeds.tsv'), 'utf8').split('\n').slice(1)) {
    const [set, url] = line.split('\t');
    if (!set || !url) continue;
    if (!seedSets.has(set)) seedSets.set(set, []);
    seedSets.get(set)!.push(url);
  }
  const { importSources } = await import('../kg/import.js');
  const kgDir = join(a.data, 'kg');
  a.say('crawl eval: importing the KG for the topic library');
  const kg = (await importSources([`douban-csv:${join(kgDir, 'douban-movies-2065')}`, `kgqa:${join(kgDir, 'douban-kgqa-small')}`, `openkg:${join(kgDir, 'openkg-douban-movie')}`], { builder: { minePlayed: false }, tagger: null })).store;
  const server = await startReplay([join(web, 'manifest.tsv')]);
  const work = mkdtempSync(join(tmpdir(), 'filmkw-crawl-eval-'));
  const runs: RunResult[] = [];
  let sweep: ThresholdRow[] = [];
  let seedSweep: SweepRow[] = [];
  let sweepSeeds: SweepSeed[] = [];
  let throughput: ThroughputRow[] = [];
  const load0 = loadavg()[0]!.toFixed(1);
  try {
    a.say('crawl eval: threshold sweep (page filter against the gold)');
    sweep = thresholdSweep(web, [
      { label: 'KG + hand lists', res: crawlResources(kg, resolveCrawlOptions()) },
      { label: 'hand lists only', res: crawlResources(null, resolveCrawlOptions()) },
    ]);
    const withKg = crawlResources(kg, resolveCrawlOptions());
    const withoutKg = crawlResources(null, resolveCrawlOptions());
    // the extractors load their lexicons on first use: do it before any run is timed
    withKg.keywords?.('电影导演', 1);
    withoutKg.keywords?.('电影导演', 1);
    for (const set of SEED_SETS) {
      const seeds = seedSets.get(set);
      if (!seeds) continue;
      const targets = targetSet(gold, seeds);
      for (const [ci, c] of EVAL_CONFIGS.entries()) {
        const mode = c.label;
        // concurrency 1: the deterministic order the table is compared across runs with
        const o = resolveCrawlOptions({ mode: c.mode, maxPages: a.maxPages, concurrency: 1, ...c.overrides });
        const out = join(work, `${set}-${ci}`);
        const baseRes = c.noKg ? withoutKg : withKg;
        const res = o.dynamicLibrary === 'feedback' ? baseRes : { ...baseRes, keywords: undefined };
        const s = await crawl({ seeds, out, via: server.url }, o, res);
        const lines = readFileSync(join(out, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as IndexLine);
        const r: RunResult = {
          set,
          mode,
          all: crawlMetrics(lines, gold, targets),
          real: crawlMetrics(lines, gold, targets, gold.real),
          pagesPerSec: s.pagesPerSec,
          pagesPerCpuSec: s.fetched / Math.max(s.cpuSeconds, 1e-3),
          seconds: s.seconds,
          dtfl: s.dtfl.length,
          curve: harvestCurve(lines, gold, 10),
        };
        runs.push(r);
        a.say(`crawl eval: ${set} ${mode}: HR@${a.maxPages} ${pct(r.all.harvest.final!)}% (real ${pct(r.real.harvest.final!)}% of ${r.real.fetched}), ${s.pagesPerSec.toFixed(0)} pages/s, ${r.pagesPerCpuSec.toFixed(0)} pages/CPU-s`);
        rmSync(out, { recursive: true, force: true });
      }
    }
    sweepSeeds = tunnelSeeds(web, gold);
    a.say(`crawl eval: off-topic seed sweep from ${sweepSeeds.length} seeds`);
    seedSweep = await runSeedSweep({ seeds: sweepSeeds, gold, via: server.url, work, maxPages: SWEEP_BUDGET, resources: (o) => (o.dynamicLibrary === 'feedback' ? withKg : { ...withKg, keywords: undefined }), say: a.say });
    throughput = await measureThroughput({ ...THROUGHPUT_SETUP, res: withKg, say: a.say });
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
    if (tmpWeb) rmSync(tmpWeb, { recursive: true, force: true });
  }
  mkdirSync(a.out, { recursive: true });
  writeFileSync(join(a.out, 'results.json'), `${JSON.stringify({ maxPages: a.maxPages, kg: kg.contentHash, runs: runs.map(({ curve: _c, ...r }) => r), sweep, seedSweep: { seeds: sweepSeeds, rows: seedSweep }, throughput: { setup: THROUGHPUT_SETUP, rows: throughput } }, null, 2)}\n`);
  for (const set of SEED_SETS) {
    const rs = runs.filter((r) => r.set === set);
    if (rs.length) writeFileSync(join(a.out, `harvest-${set}.svg`), await renderSvg(curveChart(set, rs)));
  }
  const memory = frontierMemory(1_000_000, resolveCrawlOptions().maxFrontier);
  const seenOnly = frontierMemory(1_000_000, 1, 'exact');
  const seenOnlyBloom = frontierMemory(1_000_000, 1, 'bloom');
  a.say(`crawl eval: frontier of ${memory.urls} URLs: ${memory.kept} pages kept, ${memory.evicted} dropped, heap +${memory.heapMB} MB; seen-set alone +${seenOnly.heapMB} MB exact, +${seenOnlyBloom.heapMB} MB Bloom`);
  const thresholdTable = [
    '## Threshold η (page filter sim ≥ η against the gold; every real page and every 10th generated page)',
    '',
    '| library | η | P | R | F | real: P | real: R | real: F |',
    '|---|---|---|---|---|---|---|---|',
    ...sweep.map((r) => `| ${r.library} | ${r.eta} | ${pct(r.all.p)} | ${pct(r.all.r)} | ${pct(r.all.f)} | ${pct(r.real.p)} | ${pct(r.real.r)} | ${pct(r.real.f)} |`),
    '',
  ].join('\n');
  writeFileSync(join(a.out, 'results.md'), `${resultsTable(runs, a.maxPages, `${load0} / ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`)}\n${thresholdTable}\n${sweepTable(sweepSeeds, seedSweep, SWEEP_BUDGET)}\n${throughputTable(throughput, THROUGHPUT_SETUP)}\n## Memory\n\nA frontier over ${memory.urls.toLocaleString('en')} discovered URLs (pages of 10 links, each with a tunnel entry of 8 navigation links, default maxFrontier ${resolveCrawlOptions().maxFrontier.toLocaleString('en')} pages kept, ${memory.evicted.toLocaleString('en')} lowest dropped) and its exact seen-set: heap +${memory.heapMB} MB. The seen-set alone over the same URLs (a frontier of 1 entry): +${seenOnly.heapMB} MB exact, +${seenOnlyBloom.heapMB} MB as a Bloom filter (\`seenSet: bloom\`, fixed size for ${resolveCrawlOptions().bloomCapacity.toLocaleString('en')} URLs at a false-positive rate of ${resolveCrawlOptions().bloomFpRate}; ${(seenOnly.urls - seenOnlyBloom.urls).toLocaleString('en')} of the ${seenOnly.urls.toLocaleString('en')} URLs taken for seen by a false positive).\n`);
  a.say(`crawl eval: results.md, results.json and harvest-*.svg written to ${a.out}`);
}

/** The committed table: every mode × seed set, all pages and real-only, plus the target checks. */
export function resultsTable(runs: readonly RunResult[], maxPages: number, load?: string): string {
  const head = `| seed set | mode | HR@100 | HR@500 | HR@${maxPages} | P | R | F | target recall | real: fetched | real: HR | real: P | real: R | real: TR | pages/s (wall) | pages/CPU-s | DTFL terms |`;
  const rows = runs.map(
    (r) =>
      `| ${r.set} | ${r.mode} | ${pct(r.all.harvest['100'] ?? r.all.harvest.final!)} | ${pct(r.all.harvest['500'] ?? r.all.harvest.final!)} | ${pct(r.all.harvest.final!)} | ${pct(r.all.precision)} | ${pct(r.all.recall)} | ${pct(r.all.f1)} | ${pct(r.all.targetRecall)} | ${r.real.fetched} | ${pct(r.real.harvest.final!)} | ${pct(r.real.precision)} | ${pct(r.real.recall)} | ${pct(r.real.targetRecall)} | ${r.pagesPerSec.toFixed(0)} | ${r.pagesPerCpuSec.toFixed(0)} | ${r.dtfl} |`,
  );
  const checks: string[] = [];
  for (const set of new Set(runs.map((r) => r.set))) {
    const get = (m: string) => runs.find((r) => r.set === set && r.mode === m)?.all.harvest.final ?? NaN;
    const ratio = get('focused') / get('bfs');
    const cmp = (a: string, b: string) => `${pct(get(a))} vs ${pct(get(b))} ${get(a) > get(b) ? '(met)' : get(a) === get(b) ? '(tie: NOT met)' : '(NOT met)'}`;
    checks.push(`| ${set} | ${Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : `${pct(get('focused'))} vs 0`} ${ratio >= 1.5 ? '(met)' : '(NOT met)'} | ${cmp('focused', 'static')} | ${cmp('focused, no KG', 'static, no KG')} | ${cmp('focused', 'one-step')} | ${cmp('focused, τ_low 0', 'one-step')} | ${cmp('focused, no gate', 'one-step, no gate')} |`);
  }
  return [
    `# Crawler evaluation on the local test web (${maxPages}-page budget)`,
    '',
    ...(load ? [`Load average of the machine (1 min) at the start / end of the runs: ${load}.`, ''] : []),
    'Regenerate: `npm run crawl-eval` (builds the test web from ../shared/data or $FILMKW_DATA, serves it with the replay server, runs every mode on every seed set). Percentages. HR = harvest rate (relevant fetched / fetched, every fetch counted, lookahead included); P/R/F = the saved pages (by the save rule: two-step score ≥ η by default, own sim ≥ η in "save on sim" and in the modes without a two-step score) against the gold; target recall = share of a held-out target set fetched. "real:" = the same counted over the real saved pages only (no generated page).',
    '',
    head,
    `|${'---|'.repeat(17)}`,
    ...rows,
    '',
    '## Targets',
    '',
    '| seed set | focused / bfs harvest (target ≥ 1.5×) | extended vs static library (KG) | extended vs static library (no KG: hand lists only) | two-step (focused) vs one-step | two-step with τ_low 0 vs one-step | two-step vs one-step, no lookahead gate |',
    '|---|---|---|---|---|---|---|',
    ...checks,
    '',
  ].join('\n');
}
