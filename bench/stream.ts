/**
 * Streaming benchmark (issue 6 item 4): a 100,000-document stream through `filmkw tag` (spawned, reading
 * stdin, writing stdout), made by cycling the real texts; the child's RSS is sampled while it runs. The
 * run is "flat" when RSS after warm-up does not grow with the number of documents. stdin to stdout in
 * jsonl is the Unix-filter path of `tag` (src/batch/pipe.ts, issue 14); every document carries its own
 * id (`--id-field id`), so the filter keeps it, and the bench checks the contract it relies on: output
 * line k is the record of input line k (id `s<k>`), one line per input line.
 *
 *   node --import tsx bench/stream.ts [--docs N] [--workers N] [--preset P] [--interval MS] [--compare-docs N] [--json]
 *
 * Filter vs file output (`--compare-docs N`, default 20,000; 0 skips it): the same N documents from a file
 * on stdin through the filter (stdout redirected to a file) and through `tag - --out FILE` (not a
 * filter: checkpoint, lock), in alternating order, 3 rounds; docs/s from each run's summary line, CPU
 * time per document of the whole process (bash's `time`), and the two outputs checked byte-identical
 * (every record has its own id). It tells the filter path's cost apart
 * from the machine's load, which moves the absolute rates of the main table a lot on the shared machine.
 *
 * Texts (FILMKW_DATA overrides ../shared/data): the Douban reviews of 百鸟朝凤 (review_full), the long
 * reviews of 19 films (text) and the short comments of 197 films (Review), read with the tag readers and
 * cycled in file order; each document gets a fresh id. Without the data, the 12 bundled samples are
 * cycled (and the section says so). KG: FILMKW_BENCH_KG, else the merged KG of this code (bench/_cli.ts benchKgPath), else
 * the bundled demo KG. Needs the built CLI (`npm run build`).
 *
 * Second table: the readers alone on a generated 50 MB file (jsonl, csv, tsv, txt; the same texts), each
 * read in a fresh child process: peak RSS of the child next to a child that only loads the modules, so
 * the difference is what reading costs (it must not grow with the file: nothing is loaded whole).
 *
 * Flat means: the median RSS over the last 30% of the stream exceeds the median over 20–50% by less than
 * max(32 MiB, 10%). Long windows, because worker heaps oscillate by ±10% with GC under CPU contention;
 * the least-squares slope after 20% is reported for information.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRecords, type InputFormat } from '../src/io/readers.js';
import { benchKgPath } from './_cli.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const dataDir = process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data');
const SOURCES: { path: string; format: InputFormat; textField: string }[] = [
  { path: join(dataDir, 'texts', 'douban-reviews-bainiaochaofeng', 'douban_reviews.json'), format: 'jsonl', textField: 'review_full' },
  { path: join(dataDir, 'texts', 'douban-long-reviews-19films', 'reviews.jsonl'), format: 'jsonl', textField: 'text' },
  { path: join(dataDir, 'texts', 'douban-short-comments-197films', 'douban_movie_reviews.csv'), format: 'csv', textField: 'Review' },
];
const SAMPLES = join(root, 'datasets', 'samples', 'reviews.jsonl');

interface Args {
  readerMiB: number;
  docs: number;
  workers: number;
  preset: string | undefined;
  intervalMs: number;
  json: boolean;
  compareDocs: number;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { readerMiB: 50, docs: 100_000, workers: 2, preset: undefined, intervalMs: 500, json: false, compareDocs: 20_000 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`bench/stream: ${k} needs a value`);
      return x;
    };
    if (k === '--docs') a.docs = Number(v());
    else if (k === '--workers') a.workers = Number(v());
    else if (k === '--preset') a.preset = v();
    else if (k === '--interval') a.intervalMs = Number(v());
    else if (k === '--json') a.json = true;
    else if (k === '--reader-mib') a.readerMiB = Number(v());
    else if (k === '--compare-docs') a.compareDocs = Number(v());
    else throw new Error(`bench/stream: unknown argument ${k} (valid: --docs N, --workers N, --preset P, --interval MS, --reader-mib N, --compare-docs N, --json)`);
  }
  return a;
}

async function loadTexts(): Promise<{ texts: string[]; source: string }> {
  const present = SOURCES.filter((s) => existsSync(s.path));
  const texts: string[] = [];
  if (present.length === 0) {
    for await (const r of readRecords(SAMPLES, { format: 'jsonl' })) if ('text' in r) texts.push(r.text);
    return { texts, source: `the 12 bundled samples (no ${dataDir})` };
  }
  for (const s of present) for await (const r of readRecords(s.path, { format: s.format, textField: s.textField })) if ('text' in r && r.text.trim() !== '') texts.push(r.text);
  return { texts, source: present.map((s) => s.path.slice(dataDir.length + 1)).join(', ') };
}

function kgArgs(): { args: string[]; name: string; path: string | null; shown: string } {
  const { path: kg, shown } = benchKgPath();
  return kg !== undefined && existsSync(kg) ? { args: ['--kg', kg], name: `merged snapshot (${shown})`, path: kg, shown } : { args: [], name: 'demo (bundled)', path: null, shown: '' };
}

/** RSS of a process in bytes (Linux /proc; else ps). */
function rssOf(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/u.exec(status);
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

interface Sample {
  t: number;
  docs: number;
  rss: number;
}

const MiB = 1024 * 1024;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}

/** Child mode: read one file with the readers, print records, seconds and peak RSS. */
async function readerChild(path: string, format: InputFormat): Promise<void> {
  const t0 = Date.now();
  let records = 0;
  let errors = 0;
  if (path !== '-none-') {
    for await (const r of readRecords(path, { format, textField: format === 'txt' ? undefined : 'text' })) {
      records++;
      if ('error' in r) errors++;
    }
  }
  process.stdout.write(JSON.stringify({ records, errors, seconds: (Date.now() - t0) / 1000, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
}

interface ReaderRow {
  format: string;
  mib: number;
  records: number;
  errors: number;
  seconds: number;
  maxRssMiB: number;
  overBaselineMiB: number;
}

/** Write a file of about `mib` MiB in each format from the texts, read each in a child; peak RSS. */
function readerBench(texts: string[], mib: number): { baselineMiB: number; rows: ReaderRow[] } {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-stream-readers-'));
  const self = fileURLToPath(import.meta.url);
  const child = (path: string, format: string) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', self, '--reader-child', path, format], { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`bench/stream: reader child failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as { records: number; errors: number; seconds: number; maxRssMiB: number };
  };
  try {
    const baselineMiB = child('-none-', 'txt').maxRssMiB;
    const rows: ReaderRow[] = [];
    const flatText = texts.map((t) => t.replace(/[\t\r\n]+/gu, ' ')).filter((t) => t.trim() !== '');
    for (const format of ['jsonl', 'csv', 'tsv', 'txt'] as const) {
      const path = join(dir, `big.${format}`);
      const header = format === 'csv' ? 'text\n' : format === 'tsv' ? 'text\n' : '';
      let bytes = Buffer.byteLength(header);
      const chunks: string[] = [header];
      for (let i = 0; bytes < mib * 1024 * 1024; i++) {
        const t = flatText[i % flatText.length];
        const line = format === 'jsonl' ? JSON.stringify({ text: t }) : format === 'csv' ? `"${t.replace(/"/gu, '""')}"` : t;
        chunks.push(`${line}\n`);
        bytes += Buffer.byteLength(line) + 1;
      }
      // Written in one go by the parent (it is the child's memory that is measured).
      writeFileSync(path, chunks.join(''));
      const r = child(path, format);
      rows.push({ format, mib: bytes / 1024 / 1024, ...r, overBaselineMiB: r.maxRssMiB - baselineMiB });
      rmSync(path, { force: true });
    }
    return { baselineMiB, rows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface CompareRow {
  way: 'filter' | 'out';
  round: number;
  docsPerSecond: number;
  /** CPU time of the filmkw process (all its threads) per document, ms (bash's `time`). */
  cpuMsPerDoc: number;
}

const ROUNDS = 3;

/** docs/s from a `tag` summary line (`…, 1234.5 docs/s, …`). */
function summaryRate(stderr: string): number {
  const m = /, ([\d.]+) docs\/s,/u.exec(stderr);
  if (!m) throw new Error(`bench/stream: no summary line in: ${stderr.slice(-500)}`);
  return Number(m[1]);
}

/** The same documents through the filter and through `--out FILE`, alternating, ROUNDS rounds (module header). */
function filterVsOut(texts: string[], n: number, common: string[]): { rows: CompareRow[]; identical: boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-stream-compare-'));
  try {
    const input = join(dir, 'in.jsonl');
    writeFileSync(input, Array.from({ length: n }, (_, i) => `${JSON.stringify({ id: `s${i}`, text: texts[i % texts.length] })}\n`).join(''));
    const rows: CompareRow[] = [];
    const outputs = new Map<string, string>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const way of (round % 2 ? ['filter', 'out'] : ['out', 'filter']) as ('filter' | 'out')[]) {
        const out = join(dir, `${way}.jsonl`);
        rmSync(out, { force: true });
        rmSync(`${out}.progress.json`, { force: true });
        const inFd = openSync(input, 'r');
        const outFd = way === 'filter' ? openSync(out, 'w') : 'ignore';
        try {
          // bash's `time` reports the child's CPU time, its worker threads included
          const argv = [process.execPath, 'bin/filmkw', ...common, ...(way === 'out' ? ['--out', out] : [])];
          const r = spawnSync('bash', ['-c', 'TIMEFORMAT="cpu %U %S"; time "$@"', 'bash', ...argv], { cwd: root, stdio: [inFd, outFd, 'pipe'], encoding: 'utf8' });
          if (r.status !== 0) throw new Error(`bench/stream: ${way} run exited with ${r.status}: ${r.error?.message ?? r.stderr.slice(-1000)}`);
          const cpu = /^cpu ([\d.]+) ([\d.]+)$/mu.exec(r.stderr);
          rows.push({ way, round, docsPerSecond: summaryRate(r.stderr), cpuMsPerDoc: cpu ? ((Number(cpu[1]) + Number(cpu[2])) * 1000) / n : NaN });
        } finally {
          closeSync(inFd);
          if (typeof outFd === 'number') closeSync(outFd);
        }
        outputs.set(way, readFileSync(out, 'utf8'));
      }
    }
    return { rows, identical: outputs.get('filter') === outputs.get('out') && outputs.get('filter')!.split('\n').length === n + 1 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--reader-child') return readerChild(argv[1], argv[2] as InputFormat);
  const args = parseArgs(argv);
  if (!existsSync(join(root, 'dist', 'batch', 'tag-run.js'))) throw new Error('bench/stream: run `npm run build` first (needs dist/)');
  const { texts, source } = await loadTexts();
  const kg = kgArgs();
  const load0 = loadavg()[0];
  const cli = ['bin/filmkw', 'tag', '-', '--format', 'jsonl', '--id-field', 'id', '--workers', String(args.workers), ...kg.args, ...(args.preset ? ['--preset', args.preset] : [])];
  const child = spawn(process.execPath, cli, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let linesOut = 0;
  let errorsOut = 0;
  let outOfOrder: string | null = null;
  let tail = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    const parts = (tail + d).split('\n');
    tail = parts.pop()!;
    for (const p of parts) {
      // the filter's contract: output line k belongs to input line k (whose id is s<k>)
      if (outOfOrder === null && !p.startsWith(`{"id":"s${linesOut}",`)) outOfOrder = `output line ${linesOut + 1} is not the record of input line ${linesOut + 1}: ${p.slice(0, 80)}`;
      linesOut++;
      if (p.includes('"error":')) errorsOut++;
    }
  });
  const samples: Sample[] = [];
  const t0 = Date.now();
  const timer = setInterval(() => {
    const rss = rssOf(child.pid!);
    if (rss !== null) samples.push({ t: (Date.now() - t0) / 1000, docs: linesOut, rss });
  }, args.intervalMs);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let chars = 0;
  for (let i = 0; i < args.docs; i++) {
    const text = texts[i % texts.length];
    chars += text.length;
    if (!child.stdin.write(`${JSON.stringify({ id: `s${i}`, text })}\n`)) await new Promise((r) => child.stdin.once('drain', r));
  }
  child.stdin.end();
  const code = await exited;
  clearInterval(timer);
  const seconds = (Date.now() - t0) / 1000;
  if (code !== 0) throw new Error(`bench/stream: filmkw tag exited with ${code}: ${stderr.slice(-2000)}`);
  if (linesOut !== args.docs) throw new Error(`bench/stream: ${linesOut} output lines for ${args.docs} documents`);
  if (outOfOrder !== null) throw new Error(`bench/stream: ${outOfOrder}`);

  // Flatness after warm-up (the first 20% of the documents).
  // Samples while documents flow (after the last line the workers are gone and RSS drops).
  const warm = samples.filter((s) => s.docs >= args.docs * 0.2 && s.docs < args.docs);
  // Windows long enough to ride out GC oscillation (±10% under load): 20–50% vs 70–100% of the stream.
  const base = median(warm.filter((s) => s.docs < args.docs * 0.5).map((s) => s.rss));
  const end = median(warm.filter((s) => s.docs >= args.docs * 0.7).map((s) => s.rss));
  const max = Math.max(...samples.map((s) => s.rss));
  let slope = NaN; // bytes per document
  if (warm.length >= 3) {
    const mx = warm.reduce((a, s) => a + s.docs, 0) / warm.length;
    const my = warm.reduce((a, s) => a + s.rss, 0) / warm.length;
    const sxy = warm.reduce((a, s) => a + (s.docs - mx) * (s.rss - my), 0);
    const sxx = warm.reduce((a, s) => a + (s.docs - mx) ** 2, 0);
    slope = sxx > 0 ? sxy / sxx : 0;
  }
  const growth = end - base;
  const slopePer10k = (slope * 10_000) / MiB;
  const flat = Number.isFinite(growth) && growth < Math.max(32 * MiB, 0.1 * base);
  const deciles = Array.from({ length: 10 }, (_, k) => {
    const lo = (args.docs * k) / 10;
    const hi = (args.docs * (k + 1)) / 10;
    const xs = samples.filter((s) => s.docs >= lo && s.docs < hi).map((s) => s.rss);
    return { from: lo, to: hi, maxMiB: xs.length ? Math.max(...xs) / MiB : NaN, medianMiB: xs.length ? median(xs) / MiB : NaN };
  });
  const readers = args.readerMiB > 0 ? readerBench(texts, args.readerMiB) : null;
  const compare = args.compareDocs > 0 ? filterVsOut(texts, args.compareDocs, cli.slice(1)) : null;
  const load1 = loadavg()[0];
  const result = {
    readers,
    compare,
    loadAverage: { start: load0, end: load1 },
    docs: args.docs,
    workers: args.workers,
    preset: args.preset ?? 'default (textrank+w+g+r)',
    kg: kg.name,
    texts: texts.length,
    source,
    seconds,
    docsPerSecond: args.docs / seconds,
    charsPerSecond: chars / seconds,
    errorRecords: errorsOut,
    rssBaseMiB: base / MiB,
    rssEndMiB: end / MiB,
    rssMaxMiB: max / MiB,
    growthMiB: growth / MiB,
    slopeMiBPer10kDocs: slopePer10k,
    flat,
    samples: samples.length,
    deciles,
    // No machine paths in results.md.
    summary: stderr.trim().split('\n').pop()?.split(kg.path ?? '\u0000').join(kg.shown),
  };
  if (args.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
  const out: string[] = [];
  out.push(`## Stream: ${args.docs.toLocaleString('en')} documents through \`filmkw tag\` (issue 6 item 4)`, '');
  out.push(
    `\`${['filmkw', ...cli.slice(1)].map((a) => (a === kg.path ? kg.shown : a)).join(' ')}\` (stdin to stdout: the Unix-filter path, src/batch/pipe.ts; output line k checked to be the record of input line k) fed ${args.docs.toLocaleString('en')} JSON lines on stdin (${texts.length.toLocaleString('en')} real texts cycled: ${source}); KG: ${kg.name}. RSS of the child sampled every ${args.intervalMs} ms (${samples.length} samples). Load average ${load0.toFixed(1)} at the start, ${load1.toFixed(1)} at the end (2 cores shared with other jobs: the absolute rates move with it; the filter-vs-file table below is measured in the same run).`,
    '',
  );
  out.push('| docs | workers | seconds | docs/s | chars/s | median RSS 20–50% | median RSS 70–100% | max RSS | growth | slope | flat |');
  out.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  out.push(
    `| ${args.docs} | ${args.workers} | ${f1(seconds)} | ${f1(result.docsPerSecond)} | ${Math.round(result.charsPerSecond)} | ${f1(result.rssBaseMiB)} MiB | ${f1(result.rssEndMiB)} MiB | ${f1(result.rssMaxMiB)} MiB | ${f1(result.growthMiB)} MiB | ${slopePer10k.toFixed(2)} MiB/10k docs | ${flat ? 'yes' : '**no**'} |`,
  );
  out.push('', 'Median RSS per tenth of the stream (MiB): ' + deciles.map((d) => f1(d.medianMiB)).join(' · '), '');
  if (compare) {
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const of = (way: string) => compare.rows.filter((r) => r.way === way);
    const rate = (way: string) => mean(of(way).map((r) => r.docsPerSecond));
    const cpu = (way: string) => mean(of(way).map((r) => r.cpuMsPerDoc));
    out.push(
      `The same ${args.compareDocs.toLocaleString('en')} documents from a file on stdin, through the filter (stdout to a file) and through \`tag - --out FILE\` (not a filter: checkpoint and lock), alternating, ${ROUNDS} rounds; docs/s from each run's summary line, CPU time of the whole process (its worker threads and the KG load included, bash \`time\`) per document, which the load moves much less than the wall-clock rate; outputs ${compare.identical ? 'byte-identical' : '**differ**'}:`,
      '',
      `| way | docs/s per round | mean docs/s | ratio to --out | CPU ms/doc per round | mean CPU ms/doc | ratio to --out |`,
      '|---|---|---:|---:|---|---:|---:|',
      ...(['filter', 'out'] as const).map(
        (way) =>
          `| ${way === 'filter' ? 'filter (stdout)' : '--out FILE'} | ${of(way).map((r) => f1(r.docsPerSecond)).join(' · ')} | ${f1(rate(way))} | ${(rate(way) / rate('out')).toFixed(2)}× | ${of(way).map((r) => r.cpuMsPerDoc.toFixed(3)).join(' · ')} | ${cpu(way).toFixed(3)} | ${(cpu(way) / cpu('out')).toFixed(2)}× |`,
      ),
      '',
    );
  }
  if (readers) {
    out.push(`Readers alone on a generated ${args.readerMiB} MB file (same texts, one per record), each format in a fresh process; peak RSS next to a process that only loads the modules (${f1(readers.baselineMiB)} MiB):`, '');
    out.push('| format | file | records | seconds | MB/s | peak RSS | over baseline |');
    out.push('|---|---:|---:|---:|---:|---:|---:|');
    for (const r of readers.rows) out.push(`| ${r.format} | ${f1(r.mib)} MiB | ${r.records} | ${r.seconds.toFixed(2)} | ${f1(r.mib / r.seconds)} | ${f1(r.maxRssMiB)} MiB | ${f1(r.overBaselineMiB)} MiB |`);
    out.push('');
  }
  out.push(`Flat = median RSS over the last 30% of the stream exceeds the median over 20–50% by less than max(32 MiB, 10%) (the slope is the least-squares fit of RSS on documents after 20%, for information). ${errorsOut} error records. CLI summary: \`${result.summary}\``, '');
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
