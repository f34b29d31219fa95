/**
 * Output-changing speed trade-offs of the re-ranker (issue 13; ANALYSIS.md §7): documents/s of `filmkw`,
 * of `filmkw-rerank` with the committed model, of `filmkw-rerank` with no trees (the feature work alone,
 * for timing only: its output is the graph order) and of recipe variants (a smaller pool, fewer or
 * shallower trees) trained by `npm run train:rerank -- --pool N --trees N --depth N --out FILE`. All
 * systems run in one process on one thread, taking turns round by round (the order rotates); the table
 * gives the median docs/s, each system's per-round ratio to the committed preset, and the share of the
 * re-ranking cost (filmkw-rerank's time per document minus filmkw's) that a variant saves.
 *
 *   node --import tsx bench/rerank-variants.ts [--rounds N] [--limit N] [--variant NAME=MODEL.json[@KEY=VALUE,…]]…
 *
 * FILMKW_BENCH_CLOCK=cpu times each turn by the process's CPU time instead of the wall clock (a machine
 * shared with other jobs: the time spent waiting for a core does not count).
 *
 * e.g. --variant 'pool 40=/tmp/pool40.json@rerank.pool=40' for a model trained with --pool 40 --out /tmp/pool40.json.
 *
 * KG: as bench/tag.ts (FILMKW_BENCH_KG, else the merged KG of this code (bench/_cli.ts benchKgPath), else the demo KG).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createExtractor } from '../src/pipeline/extract.js';
import { parseOverride } from '../src/pipeline/options.js';
import { parseRerankModel, zeroRerankModel } from '../src/pipeline/rerank-model.js';
import { benchClock, eachCorpus, fmt, median, timeInTurns } from './_cli.js';
import { benchKg, readReviews, readSynopses, REVIEWS, SYNOPSES } from './tag.js';

interface Variant {
  name: string;
  model: string;
  /** Option overrides the model was trained with (`train:rerank -- --pool N` is `rerank.pool=N`, `--set K=V` is `K=V`). */
  overrides: Record<string, unknown>;
}

function parseArgs(argv: string[]): { rounds: number; limit: number; variants: Variant[] } {
  const a = { rounds: 5, limit: Infinity, variants: [] as Variant[] };
  for (let i = 0; i < argv.length; i += 2) {
    const raw = argv[i + 1] ?? '';
    const v = Number(raw);
    if (argv[i] === '--rounds' && Number.isInteger(v) && v > 0) a.rounds = v;
    else if (argv[i] === '--limit' && Number.isInteger(v) && v > 0) a.limit = v;
    else if (argv[i] === '--variant' && /^[^=]+=[^@]+(@[^=,]+=[^=,]+(,[^=,]+=[^=,]+)*)?$/u.test(raw)) {
      const [name, rest] = [raw.slice(0, raw.indexOf('=')), raw.slice(raw.indexOf('=') + 1)];
      const [model, options] = rest.split('@');
      a.variants.push({ name, model, overrides: Object.fromEntries((options ? options.split(',') : []).map(parseOverride)) });
    } else throw new Error(`bench/rerank-variants: unknown or bad argument ${argv[i]} ${raw}`);
  }
  return a;
}

/** A variant's model file, or one line naming the file and the problem (exit 2). */
function readModel(file: string): ReturnType<typeof parseRerankModel> {
  try {
    return parseRerankModel(JSON.parse(readFileSync(file, 'utf8')), file);
  } catch (err) {
    process.stderr.write(`bench/rerank-variants: ${file}: ${(err as Error).message}\n`);
    process.exit(2);
  }
}

const args = parseArgs(process.argv.slice(2));
const { kg, shown } = await benchKg();
const systems: { name: string; ex: ReturnType<typeof createExtractor> }[] = [
  { name: 'filmkw', ex: createExtractor({ preset: 'filmkw', kg }) },
  { name: 'filmkw-rerank (committed)', ex: createExtractor({ preset: 'filmkw-rerank', kg }) },
  { name: 'no trees (timing only)', ex: createExtractor({ preset: 'filmkw-rerank', kg, rerankModel: zeroRerankModel() }) },
  ...args.variants.map((v) => ({
    name: v.name,
    ex: createExtractor({
      preset: 'filmkw-rerank',
      kg,
      overrides: v.overrides,
      rerankModel: readModel(v.model),
    }),
  })),
];
const load0 = loadavg()[0];
const corpora = [
  [REVIEWS, () => readReviews(args.limit)],
  [SYNOPSES, () => readSynopses(args.limit)],
] as const;
const body = eachCorpus(corpora, (c) => {
  const perRound = timeInTurns(systems.map((s) => (t: string) => s.ex.extract(t)), c.texts, args.rounds, benchClock());
  // seconds per document, per round: the re-ranking cost is committed − filmkw
  const cost = perRound[1].map((x, r) => 1 / x - 1 / perRound[0][r]);
  return [
    `### ${c.name}: ${fmt(c.texts.length)} ${c.what}`,
    '',
    '| system | docs/s (median) | ÷ committed (median per round) | re-ranking cost saved (median per round) |',
    '|---|---:|---:|---:|',
    ...systems.map((s, i) => {
      const ratio = median(perRound[i].map((x, r) => x / perRound[1][r]));
      const saved = i === 0 ? '' : `${fmt(100 * median(perRound[i].map((x, r) => (1 / perRound[1][r] - 1 / x) / cost[r])))} %`;
      return `| ${s.name} | ${fmt(median(perRound[i]))} | ${fmt(ratio, 2)} | ${saved} |`;
    }),
    '',
  ];
});
process.stdout.write(
  [
    '## Re-ranker speed variants (bench/rerank-variants.ts, issue 13)',
    '',
    `KG: ${shown}; one thread, a warm-up pass, then ${args.rounds} rounds with the systems in turns${benchClock() === 'cpu' ? ', timed by the process\'s CPU time (FILMKW_BENCH_CLOCK=cpu)' : ''}. Load average ${fmt(load0, 1)} at start, ${fmt(loadavg()[0], 1)} at the end.`,
    '',
    ...body,
  ]
    .join('\n')
    .trimEnd() + '\n',
);
