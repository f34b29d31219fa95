/**
 * `filmkw html text <file|dir|pipe> [--out FILE] [--decay T] [--stop-at current|child] [--max-link-density D]
 *                  [--max-bytes N] [--fail-on-error]`
 *
 * One JSON line per page, in sorted path order: `{id, url?, title, text, author?, date?, warning?}` (main
 * text by the information-decay method, src/html/maintext.ts; `warning` when the page looks truncated or
 * its declared charset does not fit the bytes), or `{id, error}` for a bad page (unreadable, empty, not
 * HTML, wrong encoding, larger than --max-bytes, no main text / truncated). The output is what
 * `filmkw tag --format jsonl` reads. A summary goes to stderr.
 * Exit 0 (also with error lines; 1 with --fail-on-error), 2 bad option, 3 missing path or a path that is
 * not a file, a directory or a pipe (`/dev/zero`), 7 --out not writable.
 *
 * `filmkw html records` is added by src/cli/commands/html-records.ts.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { Option, type Command } from 'commander';
import { assertNotAnInput, lockOutput } from '../../util/files.js';
import { EXIT, FilmkwError } from '../../errors.js';
import { htmlBytesToRecord, listHtmlPages, PAGE_READ_DEFAULTS, readPage, type MainTextOptions } from '../../html/index.js';
import { registerHtmlRecords } from './html-records.js';
import { MAX_BYTES } from './html-options.js';
import { numberIn } from './option-parsers.js';

interface TextFlags {
  out?: string;
  decay?: number;
  stopAt?: 'current' | 'child';
  maxLinkDensity?: number;
  maxBytes?: number;
  failOnError?: boolean;
}

export async function runHtmlText(path: string, flags: TextFlags): Promise<void> {
  const opts: MainTextOptions = {};
  if (flags.decay !== undefined) opts.decay = flags.decay;
  if (flags.maxLinkDensity !== undefined) opts.maxLinkDensity = flags.maxLinkDensity;
  if (flags.stopAt !== undefined) opts.stopAt = flags.stopAt;
  const maxBytes = flags.maxBytes ?? PAGE_READ_DEFAULTS.maxBytes;
  const pages = await listHtmlPages(path, 'html text');
  let out: WriteStream | null = null;
  let unlock = () => undefined as void;
  if (flags.out) {
    assertNotAnInput('html text', '--out', flags.out, [path]);
    unlock = lockOutput('html text', flags.out);
    const o = createWriteStream(flags.out);
    await new Promise<void>((resolve, reject) => {
      o.once('open', () => resolve());
      o.once('error', (e) => reject(new FilmkwError('OUTPUT', `html text: cannot write ${flags.out}: ${e.message}`, { cause: e })));
    });
    out = o;
  }
  const write = async (s: string): Promise<void> => {
    const w = out ?? process.stdout;
    if (!w.write(s)) await new Promise<void>((r) => w.once('drain', () => r()));
  };
  const t0 = performance.now();
  let errors = 0;
  try {
    for (const p of pages) {
      let line;
      if (p.problem) line = { id: p.id, error: `html text: ${p.id}: skipped: ${p.problem}` };
      else try {
        line = htmlBytesToRecord(await readPage(p.path, p.id, 'html text', { maxBytes, flag: '--max-bytes' }), p.id, opts);
      } catch (err) {
        line = { id: p.id, error: err instanceof FilmkwError ? err.message : `html text: ${p.id}: cannot read: ${(err as Error).message}` };
      }
      if ('error' in line) errors++;
      await write(`${JSON.stringify(line)}\n`);
    }
  } finally {
    if (out) await new Promise<void>((r) => out!.end(() => r()));
    unlock();
  }
  const s = (performance.now() - t0) / 1000;
  process.stderr.write(`html text: ${pages.length} page(s), ${pages.length - errors} with main text, ${errors} error record(s); ${(pages.length / Math.max(s, 1e-6)).toFixed(1)} pages/s\n`);
  if (errors > 0 && flags.failOnError) process.exitCode = EXIT.PARTIAL;
}

/** Registers `filmkw html` with the subcommands `text` (here) and `records` (html-records.ts). */
export function registerHtml(program: Command): void {
  const html = program.command('html').description('web ingestion: main text of article/review pages, records of list pages');
  html
    .command('text')
    .description('extract the main text (title, text, author, date) of saved HTML pages as JSON lines for `filmkw tag`')
    .argument('<path>', 'an HTML file, a directory of *.html / *.htm files (recursive, sorted) or a pipe')
    .option('--out <file>', 'write the JSON lines to FILE instead of stdout')
    .option('--decay <T>', 'information-decay threshold T (default 0.34)', numberIn(0, 1))
    .addOption(new Option('--stop-at <node>', 'node returned where the decay exceeds T (default: current)').choices(['current', 'child']))
    .option('--max-link-density <D>', 'link-density threshold DLmax for removing link blocks (default 0.65)', numberIn(0, 1))
    .option('--max-bytes <N>', 'largest page read, bytes; a bigger page is an error record (default 5242880, the crawler\'s cap)', MAX_BYTES)
    .option('--fail-on-error', 'exit 1 when some page gave an error record')
    .action(async (path: string, flags: TextFlags) => {
      await runHtmlText(path, flags);
    });
  registerHtmlRecords(html);
}
