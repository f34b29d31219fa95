/**
 * `filmkw html records <file|dir|pipe> [--mode auto|rendered|structural] [--out FILE] [--max-bytes N]`
 *
 * One JSON line per record found on each page (src/html/records.ts); a bad page (empty, not HTML,
 * wrong encoding, larger than --max-bytes) or a bad directory entry (symlink loop, dangling link) gives one error line `{id, error}`, a page without records one
 * `{file, mode, n:0, empty:true, reason}` line. A summary goes to stderr, and, when the rendered mode
 * is not available under `--mode auto`, a note saying why the structural mode is used.
 * Exit 0 (also with error lines); 2 bad option (or --out is an input); 3 missing path, a path that is not a
 * file, a directory or a pipe (`/dev/zero`), or --mode rendered without chromium; 7 --out not writable or locked by another run; 130 / 143 SIGINT / SIGTERM (nothing is
 * written for the page in progress, chromium is closed).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { Option, type Command } from 'commander';
import { assertNotAnInput, lockOutput } from '../../util/files.js';
import { EXIT, FilmkwError } from '../../errors.js';
import { MAX_BYTES } from './html-options.js';
import { PAGE_READ_DEFAULTS } from '../../html/index.js';
import { listPages, recordsOfFile, resolveMode, type RecordRenderer, type RecordsLine, type RecordsMode } from '../../html/records.js';

interface Flags {
  mode: RecordsMode;
  out?: string;
  maxBytes?: number;
}

const err = (s: string) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`);

/** Opens the rendered-mode browser (src/html/render.ts), loaded only when needed. */
export type RendererFactory = () => Promise<RecordRenderer>;

let rendererFactory: RendererFactory | null = null;
/** A test factory is in place: the chromium sandbox note does not apply. */
let testRenderer = false;

/** Replaces the rendered-mode factory (tests); by default src/html/render.ts, loaded on first use. */
export function setRendererFactory(f: RendererFactory | null): void {
  rendererFactory = f;
  testRenderer = f !== null;
}

async function openRenderer(): Promise<RecordRenderer> {
  if (!rendererFactory) rendererFactory = (await import('../../html/render.js')).createRecordRenderer;
  return rendererFactory();
}

export async function runHtmlRecords(path: string, flags: Flags): Promise<void> {
  const maxBytes = flags.maxBytes ?? PAGE_READ_DEFAULTS.maxBytes;
  const pages = await listPages(path);
  const chosen = resolveMode(flags.mode);
  if (chosen.note) err(chosen.note);
  let unlock = () => undefined as void;
  if (flags.out) {
    assertNotAnInput('html records', '--out', flags.out, [path]);
    unlock = lockOutput('html records', flags.out);
  }
  // SIGINT / SIGTERM: stop after the page in progress, write nothing for it (its failure would be the
  // browser closing, not the page), close chromium, exit 130 / 143.
  let stopped: 'SIGINT' | 'SIGTERM' | null = null;
  let renderer: RecordRenderer | null = null;
  let wake: () => void = () => undefined;
  // A page call cut by the browser closing may never settle: the loop waits for the page or the signal.
  const signalled = new Promise<null>((resolve) => (wake = () => resolve(null)));
  const onSignal = (sig: 'SIGINT' | 'SIGTERM') => {
    if (stopped) return;
    stopped = sig;
    process.exitCode = EXIT[sig]; // also if nothing is left to run
    wake();
    void renderer?.close().catch(() => undefined);
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  let out: WriteStream | null = null;
  const t0 = performance.now();
  let records = 0;
  let errors = 0;
  let empty = 0;
  let done = 0;
  try {
    if (chosen.mode === 'rendered') {
      try {
        renderer = await openRenderer();
        const note = (await import('../../html/render.js')).sandboxNote();
        if (note && !testRenderer) err(note);
      } catch (e) {
        if (flags.mode === 'rendered') throw e;
        err(`${(e as Error).message}; using the structural mode`);
      }
    }
    if (flags.out) {
      const o = createWriteStream(flags.out);
      out = o;
      await new Promise<void>((resolve, reject) => {
        o.once('open', () => resolve());
        o.once('error', (e) => reject(new FilmkwError('OUTPUT', `html records: cannot write ${flags.out}: ${e.message}`, { cause: e })));
      });
    }
    const write = async (s: string): Promise<void> => {
      const w = out ?? process.stdout;
      if (!w.write(s)) await new Promise<void>((r) => w.once('drain', () => r()));
    };
    for (const p of pages) {
      if (stopped) break;
      const r: { lines: RecordsLine[]; records: number } | null = p.problem
        ? { lines: [{ id: p.display, error: `html records: ${p.display}: skipped: ${p.problem}` }], records: 0 }
        : await Promise.race([recordsOfFile(p.path, p.display, { renderer, maxBytes }), signalled]);
      if (stopped || r === null) break; // the page was cut by the signal: nothing false is written
      records += r.records;
      for (const l of r.lines) {
        if ('error' in l) errors++;
        else if ('empty' in l) empty++;
        await write(`${JSON.stringify(l)}\n`);
      }
      done++;
    }
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    if (renderer) await renderer.close().catch(() => undefined);
    if (out) {
      const o = out;
      await new Promise<void>((r) => o.end(() => r()));
    }
    unlock();
  }
  if (stopped) {
    throw new FilmkwError(stopped, `html records: interrupted (${stopped}) after ${done} of ${pages.length} page(s)${flags.out ? `; ${flags.out} holds the records of those pages` : ''}; chromium was closed`);
  }
  const s = (performance.now() - t0) / 1000;
  err(
    `html records: ${pages.length} page(s), ${records} record(s), ${errors} error page(s), ${empty} page(s) without records; ` +
      `mode ${renderer ? 'rendered' : 'structural'}; ${(pages.length / Math.max(s, 1e-6)).toFixed(1)} pages/s`,
  );
}

/** Adds `records` to the `filmkw html` command (called from src/cli/commands/html.ts). */
export function registerHtmlRecords(htmlCommand: Command): void {
  htmlCommand
    .command('records')
    .description('extract data records (films on Douban list pages) from result/list pages as JSON lines')
    .argument('<path>', 'an HTML file or a directory of *.html files')
    .addOption(new Option('--mode <mode>', 'auto (rendered when /usr/bin/chromium exists), rendered or structural').choices(['auto', 'rendered', 'structural']).default('auto'))
    .option('--out <file>', 'write the JSON lines to FILE instead of stdout')
    .option('--max-bytes <N>', 'largest page read, bytes; a bigger page is an error line (default 5242880, the crawler\'s cap)', MAX_BYTES)
    .action(async (path: string, flags: Flags) => {
      await runHtmlRecords(path, flags);
    });
}
