/**
 * `filmkw tag --workers 1` against `--workers 2`, each a fresh run of the built CLI on a large batch, the
 * way a user tags a corpus (issue 6: "2 workers: at least 1.7× the single-worker rate").
 *
 *   node --import tsx bench/workers.ts [--reps N] [--preset P] [--json]
 *
 * Batches (jsonl written to a temp dir, ids made unique): the 297 Douban reviews repeated 32 times
 * (≈ 9,500 documents, ≈ 10 s on one thread), the 2,050 film synopses repeated 12 times (≈ 24,600), and,
 * to show how the ratio depends on the batch size, the reviews repeated 8 times. Each repetition runs
 * `--workers 1` and `--workers 2` back to back, in alternating order (drift on a shared machine falls on
 * both). The rate is the one `filmkw tag` reports in its summary line (documents ÷ tagging time, the
 * set-up of the KG, lexicon and workers excluded); the wall clock and the child's CPU time (all threads)
 * are shown next to it.
 *
 * Reference: two `--workers 1` processes started together, each tagging one half of the batch — what
 * the machine gives two threads of this very work with no pool, no shared process, no messages.
 *
 * Why batch size matters: `--workers 1` tags in the main thread, `--workers 2` starts two workers that
 * each load the KG and the native dictionary, and each JIT-compiles the pipeline from scratch; V8's
 * background threads (concurrent compilation, GC) use the second core for free in the one-thread run
 * (it averages ~1.2 cores), but compete with the second worker. Both costs are fixed, so the ratio rises
 * with the batch.
 *
 * KG: FILMKW_BENCH_KG, else the merged KG of this code (bench/_cli.ts benchKgPath, scripts/merged-kg.mjs), built when absent, else the bundled demo KG. Needs the
 * built CLI (`npm run build`) and ../shared/data (or FILMKW_DATA); skipped with a message otherwise.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CPU_HOOK, benchKgPath, bin, childCpuMs, distState, root } from './_cli.js';
import { readReviews, readSynopses, REVIEWS, SYNOPSES } from './tag.js';

interface Args {
  reps: number;
  preset: string;
  json: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { reps: 3, preset: 'textrank+w+g+r', json: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`bench/workers: ${k} needs a value`);
      return x;
    };
    if (k === '--reps') a.reps = Number(v());
    else if (k === '--preset') a.preset = v();
    else if (k === '--json') a.json = true;
    else throw new Error(`bench/workers: unknown argument ${k} (valid: --reps N, --preset P, --json)`);
  }
  if (!Number.isInteger(a.reps) || a.reps < 1) throw new Error('bench/workers: --reps needs a positive integer');
  return a;
}

interface Run {
  workers: number;
  docs: number;
  /** Documents per second of tagging, as the summary line reports it (set-up excluded). */
  docsPerSecond: number;
  setupS: number;
  wallS: number;
  cpuS: number | undefined;
}

interface Batch {
  name: string;
  what: string;
  file: string;
  docs: number;
  chars: number;
  /** The same documents split in two files (first half, second half), for the two-process reference. */
  halves: [Batch, Batch] | null;
}

function writeLines(file: string, lines: string[]): void {
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function writeBatch(dir: string, name: string, what: string, texts: string[], times: number): Batch {
  const file = join(dir, `${name}.jsonl`);
  const lines: string[] = [];
  const chars: number[] = [];
  for (let r = 0; r < times; r++) {
    for (let i = 0; i < texts.length; i++) {
      lines.push(JSON.stringify({ id: `${r}-${i}`, text: texts[i] }));
      chars.push(texts[i].length);
    }
  }
  writeLines(file, lines);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const mid = lines.length >> 1;
  const half = (k: 0 | 1): Batch => {
    const part = k === 0 ? lines.slice(0, mid) : lines.slice(mid);
    const f = join(dir, `${name}.half${k + 1}.jsonl`);
    writeLines(f, part);
    return { name: `${name}/${k + 1}`, what, file: f, docs: part.length, chars: sum(k === 0 ? chars.slice(0, mid) : chars.slice(mid)), halves: null };
  };
  return { name, what, file, docs: lines.length, chars: sum(chars), halves: [half(0), half(1)] };
}

const SUMMARY = /^tag: (\d+) records \((\d+) tagged, (\d+) error records\), [\d.]+ s, ([\d.]+) docs\/s, .*setup ([\d.]+) s/mu;

async function runTag(b: Batch, workers: number, preset: string, kg: string | undefined): Promise<Run> {
  const argv = ['--import', CPU_HOOK, bin, 'tag', b.file, '--format', 'jsonl', '--id-field', 'id', '--preset', preset, '--workers', String(workers), ...(kg ? ['--kg', kg] : [])];
  const t0 = performance.now();
  const child = spawn(process.execPath, argv, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (stderr += d));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const wallS = (performance.now() - t0) / 1000;
  const m = SUMMARY.exec(stderr);
  if (status !== 0 || !m) throw new Error(`bench/workers: filmkw tag ${b.name} --workers ${workers} exited ${status}: ${stderr.slice(-500)}`);
  if (Number(m[2]) !== b.docs) throw new Error(`bench/workers: ${b.name}: ${m[2]} of ${b.docs} documents tagged`);
  const cpuMs = childCpuMs(stderr);
  return { workers, docs: Number(m[1]), docsPerSecond: Number(m[4]), setupS: Number(m[5]), wallS, cpuS: cpuMs === undefined ? undefined : cpuMs / 1000 };
}

/** Two `--workers 1` processes at once, one per half: documents ÷ the longer of the two tagging times. */
async function runHalves(b: Batch, preset: string, kg: string | undefined): Promise<number> {
  const [h1, h2] = b.halves!;
  const [a, c] = await Promise.all([runTag(h1, 1, preset, kg), runTag(h2, 1, preset, kg)]);
  return (a.docs + c.docs) / Math.max(a.docs / a.docsPerSecond, c.docs / c.docsPerSecond);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const title = '## `filmkw tag --workers 1` vs `--workers 2` on large batches (bench/workers.ts)';
  const { built, stale } = distState();
  if (!built) {
    console.log(`${title}\n\nskipped: dist/ is missing (run \`npm run build\`).`);
    return;
  }
  if (!existsSync(REVIEWS) || !existsSync(SYNOPSES)) {
    console.log(`${title}\n\nskipped: needs the Douban reviews and kg/douban-movies-2065 under ../shared/data (or FILMKW_DATA).`);
    return;
  }
  const kg = benchKgPath();
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-workers-'));
  const load0 = loadavg()[0];
  const results: { batch: Batch; reps: { one: Run; two: Run; processes: number }[] }[] = [];
  try {
    const reviews = readReviews().texts;
    const synopses = readSynopses().texts;
    const batches = [
      writeBatch(dir, 'reviews-x32', 'the 297 Douban reviews × 32', reviews, 32),
      writeBatch(dir, 'synopses-x12', 'the 2,050 film synopses × 12', synopses, 12),
      writeBatch(dir, 'reviews-x8', 'the 297 Douban reviews × 8 (a smaller batch)', reviews, 8),
    ];
    await runTag(batches[2], 1, args.preset, kg.path); // warm-up: page cache and the lexicon cache
    for (const batch of batches) {
      const reps: { one: Run; two: Run; processes: number }[] = [];
      for (let r = 0; r < args.reps; r++) {
        if (r % 2 === 0) {
          const one = await runTag(batch, 1, args.preset, kg.path);
          const two = await runTag(batch, 2, args.preset, kg.path);
          reps.push({ one, two, processes: await runHalves(batch, args.preset, kg.path) });
        } else {
          const processes = await runHalves(batch, args.preset, kg.path);
          const two = await runTag(batch, 2, args.preset, kg.path);
          reps.push({ one: await runTag(batch, 1, args.preset, kg.path), two, processes });
        }
      }
      results.push({ batch, reps });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (args.json) {
    console.log(JSON.stringify({ preset: args.preset, kg: kg.shown, stale, results }, null, 2));
    return;
  }
  const f = (x: number, d = 0) => x.toLocaleString('en', { minimumFractionDigits: d, maximumFractionDigits: d });
  const out: string[] = [title, ''];
  out.push(
    `Preset ${args.preset}, KG ${kg.shown}; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}, load average ${load0.toFixed(1)} at start. Each run is a fresh \`filmkw tag <batch>.jsonl --workers N\`; docs/s is the rate in its summary line (tagging only, set-up excluded), wall and CPU (all threads) are the whole process. ${args.reps} repetitions, \`--workers 1\` and \`--workers 2\` back to back in alternating order.${stale ? ' **Warning: a src/ file is newer than dist/ — run `npm run build` first.**' : ''}`,
  );
  out.push('');
  out.push('| batch | docs | rep | 1 worker docs/s | 2 workers docs/s | 2 / 1 | two processes docs/s | two processes / 1 | set-up s (1 / 2) | wall s (1 / 2) | CPU s (1 / 2) |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|');
  const lines: string[] = [];
  for (const { batch, reps } of results) {
    reps.forEach(({ one, two, processes }, r) => {
      out.push(
        `| ${batch.name} | ${f(batch.docs)} | ${r + 1} | ${f(one.docsPerSecond)} | ${f(two.docsPerSecond)} | ${(two.docsPerSecond / one.docsPerSecond).toFixed(2)} | ${f(processes)} | ${(processes / one.docsPerSecond).toFixed(2)} | ${one.setupS.toFixed(1)} / ${two.setupS.toFixed(1)} | ${one.wallS.toFixed(1)} / ${two.wallS.toFixed(1)} | ${one.cpuS?.toFixed(1) ?? '?'} / ${two.cpuS?.toFixed(1) ?? '?'} |`,
      );
    });
    const ratios = reps.map(({ one, two }) => two.docsPerSecond / one.docsPerSecond);
    const ref = reps.map(({ one, processes }) => processes / one.docsPerSecond);
    const span = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
    lines.push(
      `- ${batch.name} (${batch.what}, ${f(batch.docs)} documents, ${f(batch.chars)} chars): 2 workers = ${median(ratios).toFixed(2)}× one worker (median of ${reps.length}; ${span(ratios)})${batch.name === 'reviews-x8' ? '' : `, target ≥ 1.7: ${median(ratios) >= 1.7 ? 'met' : 'not met'}`}; two independent processes, each tagging half, ${median(ref).toFixed(2)}× (${span(ref)}).`,
    );
  }
  out.push('');
  out.push('Target (issue 6): 2 workers ≥ 1.7× the single-worker rate. "Two processes" is a reference for what this machine gives two threads of this very work with no pool at all: two `--workers 1` processes started together, each on one half of the batch (documents ÷ the longer tagging time).');
  out.push(...lines);
  console.log(out.join('\n'));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
