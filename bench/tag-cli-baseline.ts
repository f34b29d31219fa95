/**
 * This build against another build of filmkw as a user runs it (issue 24, speed): `filmkw tag` of each
 * build over the bench's reviews and synopses (bench/tag.ts), one process per run, each child's CPU time
 * (user + system, read at its exit: _cli.ts CPU_HOOK), the two builds alternating which goes first round
 * by round. A run is the whole job, start-up included: loading the KG snapshot, the model and the corpus
 * table, reading the JSONL, writing the keywords.
 *
 *   FILMKW_BENCH_BASELINE=<dir> node --import tsx bench/tag-cli-baseline.ts [--rounds N] [--copies N] [--corpus reviews|synopses|all] [--presets a,b]
 *
 * Why beside bench/tag-baseline.ts: there the two builds' extractors share one process and take turns
 * every 16 documents, so each turn starts with caches the other systems filled; here each process runs
 * one build alone, as a `filmkw tag` job does. `--copies N` repeats the corpus N times in the input, so
 * that start-up weighs less. One run of each system before the timed rounds fills the lexicon cache
 * (FILMKW_CACHE as set in the environment), as any later run finds it.
 *
 * Skipped (with a message) without FILMKW_BENCH_BASELINE, without the corpora of ../shared/data, or
 * without a built dist/ here.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CPU_HOOK, benchKgPath, bin, childCpuMs, distState, fmt } from './_cli.js';
import { readReviews, readSynopses, REVIEWS, SYNOPSES, type Corpus } from './tag.js';

const TITLE = '## `filmkw tag` of this build against a baseline build, one process per run (bench/tag-cli-baseline.ts)';

interface Args {
  rounds: number;
  copies: number;
  corpus: string;
  presets: string[];
}

function parseArgs(argv: string[]): Args {
  const a: Args = { rounds: 5, copies: 1, corpus: 'all', presets: ['filmkw-rerank', 'filmkw'] };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    const n = Number(v);
    if (k === '--rounds' && Number.isInteger(n) && n >= 1) a.rounds = n;
    else if (k === '--copies' && Number.isInteger(n) && n >= 1 && n <= 100) a.copies = n;
    else if (k === '--corpus' && ['reviews', 'synopses', 'all'].includes(v)) a.corpus = v;
    else if (k === '--presets' && v && /^[\w+,-]+$/u.test(v)) a.presets = v.split(',');
    else throw new Error(`bench/tag-cli-baseline: bad argument ${k} ${v ?? ''} (valid: --rounds N ≥ 1, --copies 1..100, --corpus reviews|synopses|all, --presets a,b)`);
  }
  return a;
}

/** The corpus, `copies` times over, as the JSONL `filmkw tag` reads (one `{ id, text }` per line). */
function writeInput(dir: string, c: Corpus, copies: number): string {
  const lines: string[] = [];
  for (let k = 0; k < copies; k++) c.texts.forEach((text, i) => lines.push(JSON.stringify({ id: `${c.name}-${k}-${i}`, text })));
  const file = join(dir, `${c.name}.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** One `filmkw tag` job of the launcher `launcher`: the child's CPU seconds (it must succeed and print one record per input). */
function runTag(launcher: string, preset: string, kg: string | undefined, input: string, records: number): number {
  const args = ['--import', CPU_HOOK, launcher, 'tag', '--preset', preset, ...(kg ? ['--kg', kg] : []), input];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  const lines = r.stdout ? r.stdout.split('\n').filter((l) => l !== '').length : 0;
  const ms = childCpuMs(r.stderr ?? '');
  if (r.status !== 0 || ms === undefined || lines !== records) {
    throw new Error(`bench/tag-cli-baseline: ${launcher} tag --preset ${preset} exited ${r.status} with ${lines} of ${records} records: ${(r.stderr ?? '').trim().split('\n')[0]}`);
  }
  return ms / 1000;
}

/** Per preset: CPU seconds of each round, this build's and the baseline's, in alternating order. */
function measure(base: string, preset: string, kg: string | undefined, input: string, records: number, rounds: number): { mine: number[]; theirs: number[] } {
  const launchers = [bin, join(base, 'bin', 'filmkw')];
  for (const l of launchers) runTag(l, preset, kg, input, records);
  const mine: number[] = [];
  const theirs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) (k === 0 ? mine : theirs).push(runTag(launchers[k], preset, kg, input, records));
  }
  return { mine, theirs };
}

const geomean = (xs: number[]): number => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const base = process.env.FILMKW_BENCH_BASELINE;
  const skip = !base
    ? 'set FILMKW_BENCH_BASELINE to a checkout of another commit with `npm ci && npm run build` done in it (bench/README.md)'
    : !existsSync(REVIEWS) || !existsSync(SYNOPSES)
      ? 'needs the review and synopsis corpora under ../shared/data (or FILMKW_DATA)'
      : !distState().built || !existsSync(join(base, 'bin', 'filmkw'))
        ? `needs dist/ built here and bin/filmkw in ${base} (npm run build)`
        : null;
  if (skip || !base) {
    console.log(`${TITLE}\n\nskipped: ${skip}\n`);
    return;
  }
  const corpora: Corpus[] = [];
  if (args.corpus !== 'synopses') corpora.push(readReviews());
  if (args.corpus !== 'reviews') corpora.push(readSynopses());
  const { path: kg, shown } = benchKgPath();
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-tag-cli-'));
  const load0 = loadavg()[0];
  const out = ['| corpus (documents per run) | preset | this build, CPU s per run (median) | baseline | docs/s ratio per round (this / baseline) | ratio over all rounds | geometric mean |', '|---|---|---:|---:|---|---:|---:|'];
  try {
    for (const c of corpora) {
      const records = c.texts.length * args.copies;
      const input = writeInput(dir, c, args.copies);
      for (const preset of args.presets) {
        const { mine, theirs } = measure(base, preset, kg, input, records, args.rounds);
        const ratios = mine.map((s, r) => theirs[r] / s);
        const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1];
        const sum = (xs: number[]): number => xs.reduce((s, x) => s + x, 0);
        out.push(`| ${c.name} (${fmt(records)}) | ${preset} | ${median(mine).toFixed(2)} | ${median(theirs).toFixed(2)} | ${ratios.map((x) => x.toFixed(2)).join(', ')} | ${(sum(theirs) / sum(mine)).toFixed(2)} | ${geomean(ratios).toFixed(2)} |`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const head = `KG: ${shown}; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}; load average ${load0.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end. ${args.rounds} rounds after one untimed run of each; in a round each build runs \`filmkw tag --preset P\` once as a fresh process (this build first in odd rounds, the baseline first in even ones), timed by the child's CPU time; the input is the corpus ${args.copies === 1 ? 'once' : `${args.copies} times over`}.`;
  console.log([TITLE, '', head, '', ...out, ''].join('\n'));
}

try {
  main();
} catch (e) {
  console.error((e as Error).message);
  process.exitCode = 1;
}
