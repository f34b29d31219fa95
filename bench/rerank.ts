/**
 * The re-ranking preset against the preset it extends (issue 13): documents/s of `filmkw` and
 * `filmkw-rerank` on the review and synopsis corpora of bench/tag.ts, in one process, one thread, the two
 * presets taking turns round by round (load drift hits both), and the ratio rerank / filmkw of every
 * round (median, min, max). The load average at start and end is printed: on the shared 2-core
 * development machine only the ratio means anything.
 *
 *   node --import tsx bench/rerank.ts [--rounds N] [--limit N]
 *
 * KG: as bench/tag.ts (FILMKW_BENCH_KG, else the merged KG of this code (bench/_cli.ts benchKgPath), else the demo KG). Corpora are
 * skipped with a message when ../shared/data is absent.
 */
import { loadavg } from 'node:os';
import { createExtractor } from '../src/pipeline/extract.js';
import { eachCorpus, fmt, median, timeInTurns } from './_cli.js';
import { benchKg, readReviews, readSynopses, REVIEWS, SYNOPSES } from './tag.js';

const PRESETS = ['filmkw', 'filmkw-rerank'] as const;

function parseArgs(argv: string[]): { rounds: number; limit: number } {
  const a = { rounds: 7, limit: Infinity };
  for (let i = 0; i < argv.length; i++) {
    const v = Number(argv[i + 1]);
    if (argv[i] === '--rounds' && Number.isInteger(v) && v > 0) a.rounds = v;
    else if (argv[i] === '--limit' && Number.isInteger(v) && v > 0) a.limit = v;
    else throw new Error(`bench/rerank: unknown or bad argument ${argv[i]} ${argv[i + 1] ?? ''}`);
    i++;
  }
  return a;
}

const args = parseArgs(process.argv.slice(2));
const { kg, shown } = await benchKg();
const extractors = PRESETS.map((preset) => createExtractor({ preset, kg }));
const load0 = loadavg()[0];
const out: string[] = ['## filmkw-rerank vs filmkw (bench/rerank.ts, issue 13)', ''];
const corpora = [
  [REVIEWS, () => readReviews(args.limit)],
  [SYNOPSES, () => readSynopses(args.limit)],
] as const;
const body = eachCorpus(corpora, (c) => {
  const perRound = timeInTurns(extractors.map((ex) => (t: string) => ex.extract(t)), c.texts, args.rounds);
  const ratios = perRound[1].map((x, r) => x / perRound[0][r]);
  return [
    `### ${c.name}: ${fmt(c.texts.length)} ${c.what}`,
    '',
    '| system | docs/s (median of rounds) | min | max |',
    '|---|---:|---:|---:|',
    ...PRESETS.map((p, i) => `| ${p} | ${fmt(median(perRound[i]))} | ${fmt(Math.min(...perRound[i]))} | ${fmt(Math.max(...perRound[i]))} |`),
    '',
    `rerank / filmkw docs/s per round: median ${fmt(median(ratios), 2)} (min ${fmt(Math.min(...ratios), 2)}, max ${fmt(Math.max(...ratios), 2)}).`,
    '',
  ];
});
out.push(
  `KG: ${shown}; one thread, a warm-up pass, then ${args.rounds} rounds with the presets in turns (alternating which goes first). Load average ${fmt(load0, 1)} at start, ${fmt(loadavg()[0], 1)} at the end.`,
  '',
  ...body,
);
process.stdout.write(`${out.join('\n').trimEnd()}\n`);
