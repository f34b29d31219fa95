/**
 * KG store benchmark (issues 2 and 6): snapshot save/load time, file size, process RSS after load,
 * and the speed of the hot-path queries (neighbours, lookup, relationCount) for
 *   - the merged real KG: the snapshot named by FILMKW_BENCH_KG, else the merged KG of this code
 *     (bench/_cli.ts benchKgPath, scripts/merged-kg.mjs; built when absent); otherwise the bundled demo KG (through loadKg, saved to a temp
 *     snapshot first), labelled as such; skipped with a note when neither is available;
 *   - the synthetic KG at the paper's scale (17,000 entities, 3,000,000 relations, seed 1; src/kg/synthetic.ts),
 *     built and saved to a temp file first (build and save times reported);
 * and the tagging rate (textrank+w+g+r) with each KG on the Douban reviews in ../shared/data (FILMKW_DATA
 * overrides; skipped when absent).
 *
 *   node --import tsx bench/kg.ts [--entities N] [--relations N] [--seed N] [--json]
 *
 * Every measurement runs in a fresh child process so that RSS is that of one loaded KG. Prints a markdown
 * section (bench/run.mjs collects it into bench/results.md). Targets (issue 6): load < 3 s, RSS < 400 MB
 * for the synthetic KG; tagging with it ≥ 0.7× the rate with the real KG.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSnapshot, saveSnapshot } from '../src/kg/snapshot.js';
import { syntheticKgStore } from '../src/kg/synthetic.js';
import type { KgStore } from '../src/kg/store.js';
import { benchKgPath } from './_cli.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const self = fileURLToPath(import.meta.url);
const dataDir = process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data');
const REVIEWS = join(dataDir, 'texts', 'douban-reviews-bainiaochaofeng', 'douban_reviews.json');
const MB = 1024 * 1024;
const rssMB = () => process.memoryUsage().rss / MB;
const show = (p: string) => p.replace(tmpdir(), '$TMPDIR');

/** Deterministic xorshift PRNG for the query workloads. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

/** Operations per second of `fn(i)` over `n` calls (after a warm-up tenth). */
function rate(n: number, fn: (i: number) => number): { perSec: number; sink: number } {
  let sink = 0;
  for (let i = 0; i < n / 10; i++) sink += fn(i);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) sink += fn(i);
  return { perSec: n / ((performance.now() - t0) / 1000), sink };
}

interface LoadResult {
  path: string;
  bytes: number;
  loadMs: number;
  rssBeforeMB: number;
  rssAfterMB: number;
  heapMB: number;
  entities: number;
  relations: number;
  neighbourSlots: number;
  maxDegree: number;
  maxDegreeKind: string;
  meanDegree: number;
  neighboursPerSec: number;
  lookupHitPerSec: number;
  lookupMissPerSec: number;
  relationCountPerSec: number;
  saveMs: number;
}

async function childLoad(path: string): Promise<LoadResult> {
  const rssBeforeMB = rssMB();
  const t0 = performance.now();
  const kg = await loadSnapshot(path);
  const loadMs = performance.now() - t0;
  const rssAfterMB = rssMB();
  const heapMB = process.memoryUsage().heapUsed / MB;
  const E = kg.entityCount;
  let maxDegree = 0, maxAt = 0;
  for (let i = 0; i < E; i++) if (kg.degree(i) > maxDegree) (maxDegree = kg.degree(i)), (maxAt = i);
  const rnd = prng(7);
  const Q = 1 << 20;
  const idx = Int32Array.from({ length: Q }, () => Math.floor(rnd() * E));
  const nb = rate(Q, (i) => {
    const n = kg.neighbours(idx[i]);
    return n.length ? n[n.length - 1] : 0;
  });
  const names = [...kg.names()].map((x) => x.name);
  const hits = Array.from({ length: 1 << 16 }, () => names[Math.floor(rnd() * names.length)] ?? '');
  // misses: what the tagger mostly asks (segmenter tokens that are no name); mixed scripts
  const missPool = ['电影', '导演的', 'really', '镜头', '２０２１', '的', '剧情太', '演技', 'ＡＢＣ', '感动'];
  const misses = Array.from({ length: 1 << 16 }, (_, i) => `${missPool[i % missPool.length]}${i % 97}`);
  const lh = rate(1 << 20, (i) => kg.lookup(hits[i & 0xffff]).length);
  const lm = rate(1 << 20, (i) => kg.lookup(misses[i & 0xffff]).length);
  // relationCount: half neighbour pairs (hits), half random pairs
  const pa = new Int32Array(Q), pb = new Int32Array(Q);
  for (let i = 0; i < Q; i++) {
    pa[i] = idx[i];
    const n = kg.neighbours(idx[i]);
    pb[i] = i % 2 === 0 && n.length ? n[Math.floor(rnd() * n.length)] : Math.floor(rnd() * E);
  }
  const rc = rate(Q, (i) => kg.relationCount(pa[i], pb[i]));
  const copy = join(tmpdir(), `filmkw-bench-copy-${process.pid}.fkg`);
  const t1 = performance.now();
  await saveSnapshot(kg, copy);
  const saveMs = performance.now() - t1;
  unlinkSync(copy);
  return {
    path,
    bytes: statSync(path).size,
    loadMs,
    rssBeforeMB,
    rssAfterMB,
    heapMB,
    entities: E,
    relations: kg.relationTotal,
    neighbourSlots: kg.cols.nbTargets.length,
    maxDegree,
    maxDegreeKind: E ? kg.kindOf(maxAt) : '-',
    meanDegree: E ? kg.cols.nbTargets.length / E : 0,
    neighboursPerSec: nb.perSec,
    lookupHitPerSec: lh.perSec,
    lookupMissPerSec: lm.perSec,
    relationCountPerSec: rc.perSec,
    saveMs,
  };
}

/** Saves the bundled demo KG (src/kg/load.ts, another helper's module, resolved at run time) as a snapshot. */
async function childDemo(out: string) {
  const specifier = '../src/kg/load.js';
  const { loadKg } = (await import(specifier)) as { loadKg: (o: object) => Promise<KgStore> };
  const kg = await loadKg({});
  await saveSnapshot(kg, out);
  return { entities: kg.entityCount };
}

async function childSynth(out: string, entities: number, relations: number, seed: number) {
  const t0 = performance.now();
  const kg = syntheticKgStore({ entities, relations, seed });
  const buildMs = performance.now() - t0;
  const peakBuildMB = rssMB();
  const t1 = performance.now();
  const { bytes } = await saveSnapshot(kg, out);
  return { buildMs, saveMs: performance.now() - t1, bytes, peakBuildMB, contentHash: kg.contentHash };
}

function reviews(limit: number): string[] {
  const texts: string[] = [];
  for (const line of readFileSync(REVIEWS, 'utf8').split('\n')) {
    try {
      const f = (JSON.parse(line) as { review_full?: unknown }).review_full;
      const t = Array.isArray(f) ? f.join('') : typeof f === 'string' ? f : '';
      if (t) texts.push(t);
    } catch {
      /* the few lines that are not JSON are skipped (bench/tag.ts counts them) */
    }
  }
  return texts.slice(0, limit);
}

async function childTag(path: string, rounds: number) {
  const { createExtractor } = await import('../src/pipeline/extract.js');
  const { diskCacheFromEnv } = await import('../src/lexicon/cache.js');
  const texts = reviews(Infinity);
  const kg: KgStore = await loadSnapshot(path);
  const t0 = performance.now();
  const ex = createExtractor({ preset: 'textrank+w+g+r', kg, cache: diskCacheFromEnv() });
  const createMs = performance.now() - t0;
  for (const t of texts) ex.extract(t);
  const t1 = performance.now();
  for (let r = 0; r < rounds; r++) for (const t of texts) ex.extract(t);
  const secs = (performance.now() - t1) / 1000;
  return { texts: texts.length, createMs, docsPerSec: (texts.length * rounds) / secs, rssMB: rssMB() };
}

function child<T>(args: string[], quiet = false): T {
  const r = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', quiet ? 'pipe' : 'inherit'],
    maxBuffer: 16 * MB,
  });
  if (r.status !== 0) throw new Error(`bench/kg: child ${args.join(' ')} failed (${r.signal ?? `exit ${r.status}`})`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as T;
}

const f0 = (x: number) => Math.round(x).toLocaleString('en-US');
const f1 = (x: number) => x.toFixed(1);
const mps = (x: number) => `${(x / 1e6).toFixed(2)} M/s`;

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    const [, what, ...rest] = argv;
    const out =
      what === 'load'
        ? await childLoad(rest[0])
        : what === 'synth'
          ? await childSynth(rest[0], Number(rest[1]), Number(rest[2]), Number(rest[3]))
          : what === 'tag'
            ? await childTag(rest[0], Number(rest[1]))
            : what === 'demo'
              ? await childDemo(rest[0])
            : (() => {
                throw new Error(`bench/kg: unknown child ${what}`);
              })();
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return;
  }
  const opt = { entities: 17_000, relations: 3_000_000, seed: 1, json: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--json') opt.json = true;
    else if (k === '--entities' || k === '--relations' || k === '--seed') opt[k.slice(2) as 'entities' | 'relations' | 'seed'] = Number(argv[++i]);
    else throw new Error(`bench/kg: unknown argument ${k} (valid: --entities N, --relations N, --seed N, --json)`);
  }
  let realPath = benchKgPath().path;
  let realLabel = realPath ? `merged real KG (${show(realPath)})` : '';
  const synPath = join(tmpdir(), `filmkw-bench-synthetic-${process.pid}.fkg`);
  const demoPath = join(tmpdir(), `filmkw-bench-demo-${process.pid}.fkg`);
  let demoNote = '';
  if (!realPath) {
    try {
      child(['demo', demoPath], true);
      realPath = demoPath;
      realLabel = 'bundled demo KG (no merged KG)';
    } catch {
      demoNote = ' The demo KG could not be loaded either (src/kg/load.ts missing or failing).';
    }
  }
  const haveReviews = existsSync(REVIEWS);
  const res: Record<string, unknown> = {};
  try {
    const synth = child<{ buildMs: number; saveMs: number; bytes: number; peakBuildMB: number; contentHash: string }>([
      'synth',
      synPath,
      String(opt.entities),
      String(opt.relations),
      String(opt.seed),
    ]);
    res.synthBuild = synth;
    res.synthetic = child<LoadResult>(['load', synPath]);
    if (realPath) res.real = existsSync(realPath) ? child<LoadResult>(['load', realPath]) : { missing: realPath };
    if (haveReviews) {
      res.tagSynthetic = child(['tag', synPath, '2']);
      if (realPath && existsSync(realPath)) res.tagReal = child(['tag', realPath, '2']);
    }
  } finally {
    for (const p of [synPath, demoPath]) if (existsSync(p)) unlinkSync(p);
  }
  if (opt.json) {
    console.log(JSON.stringify(res, null, 2));
    return;
  }
  const sb = res.synthBuild as { buildMs: number; saveMs: number; bytes: number; peakBuildMB: number };
  const cols: [string, LoadResult][] = [];
  if (res.real && !('missing' in (res.real as object))) cols.push([realLabel, res.real as LoadResult]);
  cols.push([`synthetic ${f0(opt.entities)} / ${f0(opt.relations)} (seed ${opt.seed})`, res.synthetic as LoadResult]);
  const row = (label: string, fn: (r: LoadResult) => string) => `| ${label} | ${cols.map(([, r]) => fn(r)).join(' | ')} |`;
  const out = [
    '## KG store: snapshot and hot-path queries (bench/kg.ts)',
    '',
    realPath
      ? existsSync(realPath)
        ? realPath === demoPath
          ? 'Real KG: no merged KG (FILMKW_BENCH_KG, or the sources in ../shared/data/kg for scripts/merged-kg.mjs), so the bundled demo KG stands in for it.\n'
          : ''
        : `Real KG: ${show(realPath)} does not exist — skipped.\n`
      : `Real KG: skipped (no FILMKW_BENCH_KG, and no merged KG: the sources in ../shared/data/kg are missing).${demoNote}\n`,
    `| | ${cols.map(([l]) => l).join(' | ')} |`,
    `|---|${cols.map(() => '---:').join('|')}|`,
    row('entities', (r) => f0(r.entities)),
    row('relations', (r) => f0(r.relations)),
    row('neighbour slots (both directions)', (r) => f0(r.neighbourSlots)),
    row('mean / max degree', (r) => `${f1(r.meanDegree)} / ${f0(r.maxDegree)} (${r.maxDegreeKind})`),
    row('snapshot size', (r) => `${f1(r.bytes / MB)} MB`),
    row('snapshot load', (r) => `${f0(r.loadMs)} ms`),
    row('RSS after load (process before load)', (r) => `${f0(r.rssAfterMB)} MB (${f0(r.rssBeforeMB)} MB)`),
    row('JS heap after load', (r) => `${f0(r.heapMB)} MB`),
    row('snapshot save', (r) => `${f0(r.saveMs)} ms`),
    row('`neighbours(i)` (random i)', (r) => mps(r.neighboursPerSec)),
    row('`lookup(name)` hit', (r) => mps(r.lookupHitPerSec)),
    row('`lookup(token)` miss', (r) => mps(r.lookupMissPerSec)),
    row('`relationCount(a,b)` (½ neighbours)', (r) => mps(r.relationCountPerSec)),
    '',
    `Synthetic KG built by the seeded generator in ${f0(sb.buildMs)} ms (process RSS ${f0(sb.peakBuildMB)} MB after the build), saved in ${f0(sb.saveMs)} ms (${f1(sb.bytes / MB)} MB).`,
    `Issue 6 targets for the synthetic KG: load < 3 s → ${f0((res.synthetic as LoadResult).loadMs)} ms; RSS < 400 MB → ${f0((res.synthetic as LoadResult).rssAfterMB)} MB.`,
    '',
  ];
  if (!haveReviews) out.push(`Tagging with the KGs: skipped (needs ${show(REVIEWS)}; ../shared/data or FILMKW_DATA).`);
  else {
    type Tag = { texts: number; createMs: number; docsPerSec: number; rssMB: number };
    const ts = res.tagSynthetic as Tag;
    const tr = res.tagReal as Tag | undefined;
    out.push(
      `Tagging (textrank+w+g+r, ${ts.texts} Douban reviews, warm-up pass then 2 rounds, one thread):`,
      '',
      '| KG | extractor creation | docs/s | RSS |',
      '|---|---:|---:|---:|',
      ...(tr ? [`| ${realLabel} | ${f0(tr.createMs)} ms | ${f0(tr.docsPerSec)} | ${f0(tr.rssMB)} MB |`] : []),
      `| synthetic | ${f0(ts.createMs)} ms | ${f0(ts.docsPerSec)} | ${f0(ts.rssMB)} MB |`,
      '',
      tr
        ? `Synthetic / ${realPath === demoPath ? 'demo' : 'real'} rate: ${(ts.docsPerSec / tr.docsPerSec).toFixed(2)}× (target ≥ 0.7× of the merged real KG).`
        : 'No real KG: the synthetic/real ratio is not measured.',
    );
  }
  console.log(out.filter((l, i) => l !== '' || out[i - 1] !== '').join('\n'));
}

await main();
