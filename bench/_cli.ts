/**
 * What several benches share (not a bench itself: bench/run.mjs skips files starting with `_`).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureMergedKg } from '../scripts/merged-kg.mjs';

export const root = fileURLToPath(new URL('../', import.meta.url));
export const bin = join(root, 'bin', 'filmkw');

/** Preloaded into each measured child: prints its CPU time (µs, user + system) on stderr at exit. */
export const CPU_HOOK = `data:text/javascript,${encodeURIComponent("import { writeSync } from 'node:fs'; process.on('exit', () => { const u = process.cpuUsage(); writeSync(2, '\\nFILMKW_BENCH_CPU_US ' + (u.user + u.system) + '\\n'); });")}`;

/** The child's CPU time in ms, from the line {@link CPU_HOOK} printed on its stderr. */
export function childCpuMs(stderr: string): number | undefined {
  const m = /FILMKW_BENCH_CPU_US (\d+)/u.exec(stderr);
  return m ? Number(m[1]) / 1000 : undefined;
}

function newestMtime(dir: string, ext: string): number {
  let newest = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(ext)) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  if (existsSync(dir)) walk(dir);
  return newest;
}

/** Whether dist/ holds the CLI, and whether a src/ file is newer than every dist/ file. */
export function distState(): { built: boolean; stale: boolean } {
  const built = existsSync(join(root, 'dist', 'cli', 'main.js'));
  return { built, stale: built && newestMtime(join(root, 'src'), '.ts') > newestMtime(join(root, 'dist'), '.js') };
}

/** How the sections name the merged KG of scripts/merged-kg.mjs. */
export const MERGED_SHOWN = '$TMPDIR/filmkw-merged-<fingerprint>.fkg';

/**
 * The KG of the benches: FILMKW_BENCH_KG, else the merged KG of this code and ../shared/data's sources
 * (scripts/merged-kg.mjs: the cached snapshot, built when this code has none, so that no snapshot of older
 * code is measured), else none (the demo KG: the sources or dist/ missing; the reason is printed).
 */
export function benchKgPath(): { path: string | undefined; shown: string } {
  if (process.env.FILMKW_BENCH_KG) return { path: process.env.FILMKW_BENCH_KG, shown: '$FILMKW_BENCH_KG' };
  try {
    return { path: ensureMergedKg({ log: (s) => process.stderr.write(`bench: ${s}\n`) }).path, shown: MERGED_SHOWN };
  } catch (err) {
    process.stderr.write(`bench: no merged KG (${(err as Error).message}): the bundled demo KG stands in\n`);
    return { path: undefined, shown: 'the bundled demo KG' };
  }
}

/** The median of a non-empty list. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** A number with thousands separators and `d` decimals (en-US). */
export const fmt = (x: number, d = 0): string => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

/** The clock of {@link timeInTurns}: `FILMKW_BENCH_CLOCK=cpu` for the process's CPU time (user + system), else wall time. */
export const benchClock = (): 'wall' | 'cpu' => (process.env.FILMKW_BENCH_CLOCK === 'cpu' ? 'cpu' : 'wall');

/** Seconds now on the clock (CPU time of this process, or a monotonic wall clock). */
export function clockSeconds(clock: 'wall' | 'cpu'): number {
  if (clock === 'wall') return Number(process.hrtime.bigint()) / 1e9;
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/**
 * Documents/s of each function over the texts, per round: one warm-up pass of each, then `rounds` rounds
 * in which every function runs over all the texts in turn, the order rotating round by round (so load
 * drift hits all alike). `result[i][r]` is function i's rate in round r. With the `cpu` clock the
 * seconds are this process's CPU time (on a machine loaded by other jobs the time waiting for a core
 * does not count; the ratios of two systems stay comparable).
 */
export function timeInTurns(fns: readonly ((text: string) => unknown)[], texts: readonly string[], rounds: number, clock: 'wall' | 'cpu' = 'wall'): number[][] {
  for (const fn of fns) for (const t of texts) fn(t);
  const perRound: number[][] = fns.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let p = 0; p < fns.length; p++) {
      const k = (p + r) % fns.length;
      const t0 = clockSeconds(clock);
      for (const t of texts) fns[k](t);
      perRound[k].push(texts.length / (clockSeconds(clock) - t0));
    }
  }
  return perRound;
}

/** The lines `section` makes of each corpus whose file exists, a one-line note for each that is absent. */
export function eachCorpus<C>(corpora: readonly (readonly [file: string, read: () => C])[], section: (c: C) => string[]): string[] {
  const body: string[] = [];
  for (const [file, read] of corpora) {
    if (existsSync(file)) body.push(...section(read()));
    else body.push(`(${file.replace(/^.*\/data\//u, '../shared/data/')} is absent: corpus skipped)`, '');
  }
  return body;
}
