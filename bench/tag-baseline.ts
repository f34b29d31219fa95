/**
 * This build against another build of filmkw (issue 13, speed): `filmkw` and `filmkw-rerank` of this
 * checkout and of a baseline checkout (FILMKW_BENCH_BASELINE: a folder holding another commit with
 * `npm ci && npm run build` done in it) on the reviews and the synopses of bench/tag.ts, in one
 * process, the four systems taking turns every 16 documents (bench/tag.ts `measureAll`: a warm-up pass
 * each, then `--rounds` timed rounds). Prints docs/s and the ratios this build / baseline per round.
 *
 *   FILMKW_BENCH_BASELINE=<dir> node --import tsx bench/tag-baseline.ts [--rounds N] [--corpus reviews|synopses|all] [--this dist|src] [--cold] [--baseline-first]
 *
 * `--baseline-first`: the baseline's extractors are created (and its KG loaded) before this build's. The
 * order of creation moves the ratio by a few per cent, in either direction (the same build in both places
 * reads 0.93–0.96; bench/README.md), so a claim rests on a run in each order.
 *
 * `--cold`: each round is a first pass over the corpus by freshly created extractors (no warm-up pass,
 * so every per-extractor cache, e.g. the segmenter's word → tag cache, starts empty; the JIT is warmed
 * by a throw-away set of extractors first), the systems again in turns every 16 documents. This is what
 * a single `filmkw tag` run over a corpus of that size sees; the default (warm) rounds repeat the
 * corpus after a warm-up pass.
 *
 * This build runs from its dist/ when that is built and not older than src/ (both builds then run what
 * tsc made of them, as the CLI does; src/ through tsx is slower: bench/README.md), else from src/
 * through tsx; `--this src|dist` chooses.
 *
 * FILMKW_BENCH_CLOCK=cpu times every turn by the process's CPU time (user + system) instead of the wall
 * clock, for a machine shared with other jobs.
 *
 * Skipped (with a message) without FILMKW_BENCH_BASELINE or without the corpora of ../shared/data.
 */
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createExtractor } from '../src/pipeline/extract.js';
import { diskCacheFromEnv } from '../src/lexicon/cache.js';
import { benchClock, clockSeconds, distState, fmt, root } from './_cli.js';
import { BASELINE, baselineSection, baselineSystems, benchKg, CHUNK, measureAll, percentile, readReviews, readSynopses, REVIEWS, SYNOPSES, type Corpus, type Row, type System } from './tag.js';

const PRESETS = ['filmkw', 'filmkw-rerank'];
const TITLE = '## This build against a baseline build (bench/tag-baseline.ts)';

function parseArgs(argv: string[]): { rounds: number; corpus: string; cold: boolean; baselineFirst: boolean; self: 'dist' | 'src' } {
  const { built, stale } = distState();
  const a = { rounds: 3, corpus: 'all', cold: false, baselineFirst: false, self: built && !stale ? ('dist' as const) : ('src' as const) };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--cold' || k === '--baseline-first') {
      if (k === '--cold') a.cold = true;
      else a.baselineFirst = true;
      continue;
    }
    const v = argv[++i];
    if (v === undefined) throw new Error(`bench/tag-baseline: ${k} needs a value`);
    if (k === '--rounds' && Number.isInteger(Number(v)) && Number(v) >= 1) a.rounds = Number(v);
    else if (k === '--corpus' && ['reviews', 'synopses', 'all'].includes(v)) a.corpus = v;
    else if (k === '--this' && (v === 'dist' || v === 'src')) a.self = v;
    else throw new Error(`bench/tag-baseline: bad argument ${k} ${v} (valid: --rounds N ≥ 1, --corpus reviews|synopses|all, --this dist|src, --cold, --baseline-first)`);
  }
  return a;
}

/**
 * `--cold` rounds (module header): `warm` (a throw-away set) warms the JIT on the corpus, then each
 * round makes fresh systems and times their first pass, in turns every CHUNK documents.
 */
async function measureCold(warm: System[], make: () => Promise<{ systems: System[] }>, c: Corpus, rounds: number): Promise<Row[]> {
  for (const s of warm) for (const t of c.texts) s.fn(t);
  const perRound: number[][] = warm.map(() => []);
  const latencies: number[][] = warm.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const { systems } = await make();
    const seconds = systems.map(() => 0);
    for (let i = 0; i < c.texts.length; i += CHUNK) {
      const chunk = c.texts.slice(i, i + CHUNK);
      systems.forEach((s, k) => {
        for (const t of chunk) {
          const t0 = clockSeconds(benchClock()) * 1000;
          s.fn(t);
          const ms = clockSeconds(benchClock()) * 1000 - t0;
          latencies[k].push(ms);
          seconds[k] += ms / 1000;
        }
      });
    }
    seconds.forEach((sec, k) => perRound[k].push(c.texts.length / sec));
  }
  return warm.map((s, k) => {
    const sorted = latencies[k].sort((a, b) => a - b);
    const total = perRound[k].reduce((a, x) => a + c.texts.length / x, 0);
    return { system: s.name, docsPerSecond: (c.texts.length * rounds) / total, charsPerSecond: (c.chars * rounds) / total, p50ms: percentile(sorted, 50), p99ms: percentile(sorted, 99), perRound: perRound[k] };
  });
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const dir = process.env.FILMKW_BENCH_BASELINE;
  if (!dir) {
    console.log(`${TITLE}\n\nskipped: set FILMKW_BENCH_BASELINE to a checkout of another commit with \`npm ci && npm run build\` done in it (bench/README.md)\n`);
    return;
  }
  if (!existsSync(REVIEWS) || !existsSync(SYNOPSES)) {
    console.log(`${TITLE}\n\nskipped: needs the review and synopsis corpora under ../shared/data (or FILMKW_DATA)\n`);
    return;
  }
  const corpora: Corpus[] = [];
  if (args.corpus !== 'synopses') corpora.push(readReviews());
  if (args.corpus !== 'reviews') corpora.push(readSynopses());
  const { kg, source, path } = await benchKg();
  const makeSystems = async (): Promise<{ systems: System[]; label: string }> => {
    const early = args.baselineFirst ? await baselineSystems(dir, PRESETS, path) : undefined;
    const systems: System[] =
      args.self === 'dist'
        ? (await baselineSystems(root, PRESETS, path, '')).systems
        : PRESETS.map((preset) => {
            const extractor = createExtractor({ preset, kg, cache: diskCacheFromEnv() });
            return { name: preset, fn: (t: string) => extractor.extract(t) };
          });
    const baseline = early ?? (await baselineSystems(dir, PRESETS, path));
    return { systems: [...systems, ...baseline.systems], label: baseline.label };
  };
  const { systems, label } = await makeSystems();
  const loadStart = loadavg()[0];
  const results: { corpus: Corpus; rows: Row[] }[] = [];
  for (const c of corpora) results.push({ corpus: c, rows: args.cold ? await measureCold(systems, makeSystems, c, args.rounds) : measureAll(systems, c.texts, c.chars, args.rounds, benchClock()) });
  const out = [
    TITLE,
    '',
    `KG: ${source}; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}; load average ${loadStart.toFixed(1)} at the start of the timed rounds, ${loadavg()[0].toFixed(1)} at the end. This build: ${args.self === 'dist' ? 'its dist/ (compiled as the baseline is)' : 'src/ through tsx'}, created ${args.baselineFirst ? 'after' : 'before'} the baseline's extractors. ${args.cold ? `${args.rounds} cold rounds (each a first pass by fresh extractors; JIT warmed by a throw-away set)` : `${args.rounds} rounds after a warm-up pass`}, the four systems in turns every ${CHUNK} documents${benchClock() === 'cpu' ? ', each turn timed by the process\'s CPU time (FILMKW_BENCH_CLOCK=cpu)' : ''}.`,
    '',
    '| corpus | system | docs/s | p50 ms | p99 ms |',
    '|---|---|---:|---:|---:|',
  ];
  for (const { corpus: c, rows } of results) {
    for (const r of rows) out.push(`| ${c.name} (${fmt(c.texts.length)}) | ${r.system.endsWith(BASELINE) ? r.system : `${r.system} (this build)`} | ${fmt(r.docsPerSecond)} | ${r.p50ms.toFixed(2)} | ${r.p99ms.toFixed(2)} |`);
  }
  out.push('', ...baselineSection(results, PRESETS, PRESETS, label));
  console.log(out.join('\n'));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
