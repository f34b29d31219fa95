/**
 * Cold start of `filmkw tag` on one short text (issue 6 target: < 1 s with the merged KG).
 *
 *   node --import tsx bench/cold.ts [--runs N] [--json]
 *
 * Runs `node bin/filmkw tag <one-line jsonl> --format jsonl --id-field id --kg <KG>` as a fresh process,
 * `runs` times, and reports the wall-clock time (median, min, max); with hyperfine on PATH it is used
 * instead (`--warmup 1`, its mean ± σ, min and max). Three configurations:
 * - warm cache: the KG-derived lexicon cache (src/lexicon/cache.ts) already filled by a previous run —
 *   the normal case after the first run with a given KG;
 * - cold cache: `FILMKW_CACHE=off` (every run exports the user dictionary and parses the base lexicon);
 * - `node -e ""` and `filmkw --version`: the floor of starting Node and of loading the CLI.
 * The CLI runs from dist/ (`npm run build` first); the section warns when a src/ file is newer than dist/.
 *
 * KG: FILMKW_BENCH_KG, else the merged KG of this code (bench/_cli.ts benchKgPath, scripts/merged-kg.mjs), built when absent, else the bundled demo KG.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CPU_HOOK, benchKgPath, bin, childCpuMs, distState, root } from './_cli.js';
const TEXT = '以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。';

interface Stats {
  label: string;
  /** Median CPU time (user + system, all threads) of the child, from process.cpuUsage() at exit; repeated runs only. */
  cpuMs?: number;
  command: string;
  medianMs: number;
  minMs: number;
  maxMs: number;
  runs: number;
  tool: 'hyperfine' | 'repeated runs';
  meanMs?: number;
  sdMs?: number;
}

function hasHyperfine(): boolean {
  const r = spawnSync('hyperfine', ['--version'], { encoding: 'utf8' });
  return r.status === 0;
}

function measure(label: string, argv: string[], env: NodeJS.ProcessEnv, runs: number, hyperfine: boolean, display: string): Stats {
  if (hyperfine) {
    const dir = mkdtempSync(join(tmpdir(), 'filmkw-cold-'));
    const json = join(dir, 'h.json');
    const quoted = argv.map((a) => `'${a.replace(/'/gu, `'\\''`)}'`).join(' ');
    const r = spawnSync('hyperfine', ['--warmup', '1', '--runs', String(runs), '--export-json', json, '--style', 'none', `${quoted} >/dev/null 2>&1`], { cwd: root, env, encoding: 'utf8' });
    if (r.status === 0) {
      const res = JSON.parse(readFileSync(json, 'utf8')) as { results: { mean: number; stddev: number; median: number; min: number; max: number }[] };
      rmSync(dir, { recursive: true, force: true });
      const x = res.results[0];
      return { label, command: display, medianMs: x.median * 1000, minMs: x.min * 1000, maxMs: x.max * 1000, meanMs: x.mean * 1000, sdMs: x.stddev * 1000, runs, tool: 'hyperfine' };
    }
    rmSync(dir, { recursive: true, force: true });
  }
  const times: number[] = [];
  const cpu: number[] = [];
  // the child reports its own CPU time at exit (a load-independent figure next to the wall clock)
  const withCpu = [argv[0], '--import', CPU_HOOK, ...argv.slice(1)];
  spawnSync(argv[0], argv.slice(1), { cwd: root, env, stdio: 'ignore' }); // warm-up (fills the page cache, and the lexicon cache unless it is off)
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(withCpu[0], withCpu.slice(1), { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`bench/cold: ${display} exited ${r.status}: ${r.stderr}`);
    const c = childCpuMs(r.stderr);
    if (c !== undefined) cpu.push(c);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return {
    label,
    command: display,
    medianMs: times[Math.floor(times.length / 2)],
    minMs: times[0],
    maxMs: times[times.length - 1],
    cpuMs: cpu.length === runs ? cpu[Math.floor(cpu.length / 2)] : undefined,
    runs,
    tool: 'repeated runs',
  };
}

function main(): void {
  const args = process.argv.slice(2);
  let runs = 7;
  let json = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--runs') runs = Number(args[++i]);
    else if (args[i] === '--json') json = true;
    else throw new Error(`bench/cold: unknown argument ${args[i]} (valid: --runs N, --json)`);
  }
  const { built, stale } = distState();
  if (!built) {
    console.log('## Cold start of `filmkw tag` (bench/cold.ts)\n\nskipped: dist/ is missing (run `npm run build`).');
    return;
  }
  const { path: kgPath, shown: kgShown } = benchKgPath();
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-cold-'));
  const input = join(dir, 'one.jsonl');
  writeFileSync(input, `${JSON.stringify({ id: 'one', text: TEXT })}\n`);
  const cacheDir = join(dir, 'cache');
  const hyperfine = hasHyperfine();
  const tagArgs = [process.execPath, bin, 'tag', input, '--format', 'jsonl', '--id-field', 'id', ...(kgPath ? ['--kg', kgPath] : [])];
  const shown = `filmkw tag one.jsonl --format jsonl --id-field id${kgPath ? ` --kg ${kgShown}` : ''}`;
  const base = { ...process.env, FILMKW_CACHE_DIR: cacheDir };
  delete (base as Record<string, string | undefined>).FILMKW_CACHE;
  const load0 = loadavg()[0];
  let rows: Stats[];
  try {
    rows = [
      measure('node -e ""', [process.execPath, '-e', ''], base, runs, hyperfine, 'node -e ""'),
      measure('filmkw --version', [process.execPath, bin, '--version'], base, runs, hyperfine, 'filmkw --version'),
      measure('tag, warm lexicon cache', tagArgs, base, runs, hyperfine, shown),
      measure('tag textrank+w+g+r, warm lexicon cache', [...tagArgs, '--preset', 'textrank+w+g+r'], base, runs, hyperfine, `${shown} --preset textrank+w+g+r`),
      measure('tag, cache off', tagArgs, { ...base, FILMKW_CACHE: 'off' }, Math.max(3, Math.ceil(runs / 2)), hyperfine, `FILMKW_CACHE=off ${shown}`),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (json) {
    console.log(JSON.stringify({ kg: kgShown, stale, rows }, null, 2));
    return;
  }
  const f = (x: number) => Math.round(x).toLocaleString('en');
  const out: string[] = [];
  out.push('## Cold start of `filmkw tag` on one short text (bench/cold.ts)');
  out.push('');
  out.push(
    `One JSON line (${TEXT.length} chars), preset default, KG ${kgShown}; each command a fresh process, measured with ${rows[0].tool}${rows[0].tool === 'repeated runs' ? ' (hyperfine is not installed; one warm-up run first)' : ''}; load average ${load0.toFixed(1)} at start (2 cores shared with other jobs: times include waiting for a core).${stale ? ' **Warning: a src/ file is newer than dist/ — run `npm run build` first.**' : ''}`,
  );
  out.push('');
  out.push('| what | command | runs | median ms | min ms | max ms | median CPU ms (user+sys) |');
  out.push('|---|---|---:|---:|---:|---:|---:|');
  for (const r of rows) out.push(`| ${r.label} | \`${r.command}\` | ${r.runs} | ${f(r.medianMs)} | ${f(r.minMs)} | ${f(r.maxMs)} | ${r.cpuMs === undefined ? '' : f(r.cpuMs)} |`);
  const warm = rows[2];
  const wgr = rows[3];
  out.push('');
  out.push(
    `Target (issue 6): cold start < 1 s with the merged KG → warm lexicon cache: median ${f(warm.medianMs)} ms, min ${f(warm.minMs)} ms (${warm.medianMs < 1000 ? 'met' : warm.minMs < 1000 ? 'met by the fastest runs, not by the median' : 'not met'}); with --preset textrank+w+g+r: median ${f(wgr.medianMs)} ms, min ${f(wgr.minMs)} ms; without the cache ${f(rows[4].medianMs)} ms. The CPU column is the child's own CPU time: on a loaded machine the wall clock also counts waiting for a core.`,
  );
  console.log(out.join('\n'));
}

main();
