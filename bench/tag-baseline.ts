/**
 * This build against another build of filmkw (issue 13, speed): `filmkw` and `filmkw-rerank` of this
 * checkout and of a baseline checkout (FILMKW_BENCH_BASELINE: a folder holding another commit with
 * `npm ci && npm run build` done in it) on the reviews and the synopses of bench/tag.ts, in one
 * process, the four systems taking turns every 16 documents (bench/tag.ts `measureAll`: a warm-up pass
 * each, then `--rounds` timed rounds). Prints docs/s and the ratios this build / baseline per round.
 *
 *   FILMKW_BENCH_BASELINE=<dir> node --import tsx bench/tag-baseline.ts [--rounds N] [--corpus reviews|synopses|all]
 *
 * Skipped (with a message) without FILMKW_BENCH_BASELINE or without the corpora of ../shared/data.
 */
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createExtractor } from '../src/pipeline/extract.js';
import { diskCacheFromEnv } from '../src/lexicon/cache.js';
import { BASELINE, baselineSection, baselineSystems, benchKg, measureAll, readReviews, readSynopses, REVIEWS, SYNOPSES, type Corpus, type System } from './tag.js';

const PRESETS = ['filmkw', 'filmkw-rerank'];
const TITLE = '## This build against a baseline build (bench/tag-baseline.ts)';

function parseArgs(argv: string[]): { rounds: number; corpus: string } {
  const a = { rounds: 3, corpus: 'all' };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = argv[++i];
    if (v === undefined) throw new Error(`bench/tag-baseline: ${k} needs a value`);
    if (k === '--rounds' && Number.isInteger(Number(v)) && Number(v) >= 1) a.rounds = Number(v);
    else if (k === '--corpus' && ['reviews', 'synopses', 'all'].includes(v)) a.corpus = v;
    else throw new Error(`bench/tag-baseline: bad argument ${k} ${v} (valid: --rounds N ≥ 1, --corpus reviews|synopses|all)`);
  }
  return a;
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
  const systems: System[] = PRESETS.map((preset) => {
    const extractor = createExtractor({ preset, kg, cache: diskCacheFromEnv() });
    return { name: preset, fn: (t: string) => extractor.extract(t) };
  });
  const baseline = await baselineSystems(dir, PRESETS, path);
  systems.push(...baseline.systems);
  const loadStart = loadavg()[0];
  const results = corpora.map((c) => ({ corpus: c, rows: measureAll(systems, c.texts, c.chars, args.rounds) }));
  const f = (x: number) => x.toLocaleString('en', { maximumFractionDigits: 0 });
  const out = [
    TITLE,
    '',
    `KG: ${source}; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}; load average ${loadStart.toFixed(1)} at the start of the timed rounds, ${loadavg()[0].toFixed(1)} at the end. ${args.rounds} rounds after a warm-up pass, the four systems in turns every 16 documents.`,
    '',
    '| corpus | system | docs/s | p50 ms | p99 ms |',
    '|---|---|---:|---:|---:|',
  ];
  for (const { corpus: c, rows } of results) {
    for (const r of rows) out.push(`| ${c.name} (${f(c.texts.length)}) | ${r.system.endsWith(BASELINE) ? r.system : `${r.system} (this build)`} | ${f(r.docsPerSecond)} | ${r.p50ms.toFixed(2)} | ${r.p99ms.toFixed(2)} |`);
  }
  out.push('', ...baselineSection(results, PRESETS, PRESETS, baseline.label));
  console.log(out.join('\n'));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
