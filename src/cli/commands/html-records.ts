/**
 * `filmkw html records <file|dir> [--mode auto|rendered|structural] [--out FILE]`
 *
 * One JSON line per record found on each page (src/html/records.ts); a bad page (empty, not HTML,
 * wrong encoding) gives one error line `{file, error:{code,message}}`, a page without records one
 * `{file, mode, n:0, empty:true, reason}` line. A summary goes to stderr, and, when the rendered mode
 * is not available under `--mode auto`, a note saying why the structural mode is used.
 * Exit 0 (also with error lines); 2 bad option; 3 missing path, or --mode rendered without chromium;
 * 7 --out not writable.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Command } from 'commander';
import { assertNotAnInput, lockOutput } from '../../io/files.js';
import { FilmkwError, usageError } from '../../errors.js';
import { listPages, recordsOfFile, resolveMode, type RecordRenderer, type RecordsMode } from '../../html/records.js';

interface Flags {
  mode: string;
  out?: string;
}

const err = (s: string) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`);

/** Opens the rendered-mode browser (src/html/render.ts), loaded only when needed. */
export type RendererFactory = () => Promise<RecordRenderer>;

let rendererFactory: RendererFactory | null = null;

/** Replaces the rendered-mode factory (tests); by default src/html/render.ts, loaded on first use. */
export function setRendererFactory(f: RendererFactory | null): void {
  rendererFactory = f;
}

async function openRenderer(): Promise<RecordRenderer> {
  if (!rendererFactory) rendererFactory = (await import('../../html/render.js')).createRecordRenderer;
  return rendererFactory();
}

export async function runHtmlRecords(path: string, flags: Flags): Promise<void> {
  if (!['auto', 'rendered', 'structural'].includes(flags.mode)) throw usageError(`html records: --mode must be auto, rendered or structural, got ${JSON.stringify(flags.mode)}`);
  const pages = await listPages(path);
  const chosen = resolveMode(flags.mode as RecordsMode);
  if (chosen.note) err(chosen.note);
  let renderer: RecordRenderer | null = null;
  if (chosen.mode === 'rendered') {
    try {
      renderer = await openRenderer();
    } catch (e) {
      if (flags.mode === 'rendered') throw e;
      err(`${(e as Error).message}; using the structural mode`);
    }
  }
  let out: WriteStream | null = null;
  const write = async (s: string): Promise<void> => {
    if (!out) {
      process.stdout.write(s);
      return;
    }
    if (!out.write(s)) await new Promise<void>((r) => out!.once('drain', () => r()));
  };
  let unlock = () => undefined as void;
  if (flags.out) {
    assertNotAnInput('html records', '--out', flags.out, [path]);
    unlock = lockOutput('html records', flags.out);
    out = createWriteStream(flags.out);
    await new Promise<void>((resolve, reject) => {
      out!.once('open', () => resolve());
      out!.once('error', (e) => reject(new FilmkwError('OUTPUT', `html records: cannot write ${flags.out}: ${e.message}`, { cause: e })));
    });
  }
  const t0 = performance.now();
  let records = 0;
  let errors = 0;
  let empty = 0;
  try {
    for (const p of pages) {
      const r = await recordsOfFile(p.path, p.display, { renderer });
      records += r.records;
      for (const l of r.lines) {
        if ('error' in l) errors++;
        else if ('empty' in l) empty++;
        await write(`${JSON.stringify(l)}\n`);
      }
    }
  } finally {
    if (renderer) await renderer.close();
    if (out) await new Promise<void>((r) => out!.end(() => r()));
    unlock();
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
    .option('--mode <mode>', 'auto (rendered when /usr/bin/chromium exists) | rendered | structural', 'auto')
    .option('--out <file>', 'write the JSON lines to FILE instead of stdout')
    .action(async (path: string, flags: Flags) => {
      await runHtmlRecords(path, flags);
    });
}
