/**
 * `filmkw tag`: batch keyword tagging (src/batch/tag-run.ts does the work). Thin: parses flags, runs,
 * prints the summary on stderr.
 *
 *   filmkw tag [INPUT|-] [--format jsonl|csv|tsv|txt|html] [--text-field F] [--id-field F]
 *              [--film-field F] [--title-field F] [--corpus-stats FILE|self|none]
 *              [--kg FILE|DIR | --neo4j] [--preset P] [--set key=value]... [--backend B] [--top K]
 *              [--explain] [--out FILE] [--workers N] [--worker-heap-mb N] [--resume] [--checkpoint-records N] [--max-record-bytes N] [--fail-on-error]
 *
 * Output: JSON lines, one per input record, in input order (src/batch/format.ts). `tag - --format
 * txt|jsonl` writing to stdout is a Unix filter: one line per input line, nothing position-dependent
 * (src/batch/pipe.ts; `--pipe` asks for the same with --out or an input file).
 * `--format html`: INPUT is a saved page or a directory of pages (one record per page, main text by
 * src/html/maintext.ts, id = relative path); a directory without --format is read as html when it holds
 * pages, else refused naming what it holds. `--format json` (`.json`): JSON lines or one JSON array.
 * stdin without --format: jsonl when its first non-blank character is {, else txt (said on stderr).
 * Exit codes: 0 done (error records included), 1 error records and --fail-on-error, 2 usage (unknown
 * option, preset, format, bad value, --resume refused), 3 input (missing file, bad header, KG), 4–6 Neo4j,
 * 7 output not writable.
 */
import { statSync } from 'node:fs';
import { Command, Option } from 'commander';
import { checkUntrustedKey, usageError, EXIT } from '../../errors.js';
import { checkEncoding, DEFAULT_TEXT_FIELD, folderFormat, inferFormat, INPUT_FORMATS, type InputFormat } from '../../io/readers.js';
import { peekStreamFirstChar } from '../../io/json.js';
import { DEFAULT_MAX_RECORD_BYTES } from '../../io/lines.js';
import { DEFAULT_OPTIONS, DEFAULT_PRESET, describeOptions, parseOverride, resolveOptions } from '../../pipeline/options.js';
import { listPresets } from '../../pipeline/presets.js';
import { DEFAULT_BACKEND, SEGMENTER_BACKENDS, type SegmenterBackend } from '../../lexicon/base.js';
import { runTag, summaryLine } from '../../batch/tag-run.js';
import { PIPE_FORMATS } from '../../batch/pipe.js';
import { readProgress } from '../../batch/resume.js';
import { cacheDirFromEnv } from '../../lexicon/cache.js';
import { endBySignal } from '../signals.js';
import { anyCase, digits } from './option-parsers.js';
import { conflicts } from '../usage-errors.js';

interface TagFlags {
  format?: InputFormat;
  textField?: string;
  idField?: string;
  filmField?: string;
  titleField?: string;
  corpusStats?: string;
  encoding?: string;
  kg?: string;
  neo4j?: boolean;
  preset: string;
  set: string[];
  backend: SegmenterBackend;
  top?: number;
  explain?: boolean;
  out?: string;
  workers: number;
  workerHeapMb?: number;
  resume?: boolean;
  checkpointRecords?: number;
  maxRecordBytes: number;
  failOnError?: boolean;
  pipe?: boolean;
  queue?: string;
  chunkDocs: number;
  queueWindow: number;
  queueTimeout: number;
}

const collect = (v: string, prev: string[]) => [...prev, v];

const isDirectory = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};


/**
 * SIGINT / SIGTERM: say what is saved and how to continue, then end by the signal (130 / 143; cli/signals.ts:
 * the process ends even when a pipe read blocks). The checkpoint on disk is always consistent (resume.ts),
 * so stopping at once is safe; worker threads end with the process and the output lock is removed first.
 */
function interrupted(sig: 'SIGINT' | 'SIGTERM', out: string | undefined, readOnce: boolean): never {
  let msg: string;
  if (out && readOnce) {
    msg = `tag: interrupted (${sig}); the input is a pipe, which cannot be read again: ${out} is incomplete, run the command again from the start`;
  } else if (out) {
    let saved: number | null = null;
    try {
      saved = readProgress(out)?.records ?? null;
    } catch {
      // unreadable: say nothing about the count
    }
    msg =
      saved === null
        ? `tag: interrupted (${sig}) before the first checkpoint of ${out}; run the same command again (with --resume it starts over)`
        : `tag: interrupted (${sig}); ${saved} records are saved in ${out}; run the same command with --resume to continue`;
  } else {
    msg = `tag: interrupted (${sig}); the output on stdout is incomplete (a long run written with --out FILE can be continued with --resume)`;
  }
  process.stderr.write(`${process.stderr.isTTY ? '\n' : ''}filmkw: ${msg}\n`);
  endBySignal(sig);
}

/** Whether `input` can be read only once (a FIFO, `<(…)`, a device). */
function readOnlyOnce(input: string): boolean {
  if (input === '-') return false;
  try {
    const st = statSync(input);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

export async function runTagCommand(inputArg: string | undefined, flags: TagFlags): Promise<void> {
  let input = inputArg;
  if (input === undefined) {
    if (process.stdin.isTTY) throw usageError('tag: give an INPUT file, or - to read stdin');
    input = '-';
  }
  let format: InputFormat;
  if (flags.format !== undefined) format = flags.format;
  else if (input === '-') {
    // stdin without --format: JSON lines when the first character is {, else one text per line
    format = (await peekStreamFirstChar(process.stdin)) === '{' ? 'jsonl' : 'txt';
    process.stderr.write(`tag: reading stdin as ${format} (${format === 'jsonl' ? 'it starts with {' : 'it does not start with {'}; --format to choose)\n`);
  }
  else {
    const f = isDirectory(input) ? folderFormat(input) : inferFormat(input);
    if (!f) throw usageError(`tag: cannot tell the format of ${input} from its extension; pass --format ${INPUT_FORMATS.join('|')}`);
    format = f;
  }
  for (const [name, value] of [['--text-field', flags.textField], ['--id-field', flags.idField], ['--film-field', flags.filmField], ['--title-field', flags.titleField]] as const) {
    if (value !== undefined && value.trim() === '') throw usageError(`tag: ${name} must name a field, got an empty string`);
    if (value !== undefined) checkUntrustedKey(value, `tag: ${name}`);
  }
  const overrides: Record<string, unknown> = Object.create(null) as Record<string, unknown>; // keys are untyped input
  for (const a of flags.set) {
    const [k, v] = parseOverride(a);
    overrides[k] = v;
  }
  const readOnce = readOnlyOnce(input);
  const stopOnSignal = (sig: 'SIGINT' | 'SIGTERM') => interrupted(sig, flags.out, readOnce);
  const onInt = () => stopOnSignal('SIGINT');
  const onTerm = () => stopOnSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  const common = {
    input,
    format,
    textField: flags.textField,
    idField: flags.idField,
    filmField: flags.filmField,
    titleField: flags.titleField,
    corpusStats: flags.corpusStats,
    encoding: flags.encoding === undefined ? undefined : checkEncoding(flags.encoding),
    maxRecordBytes: flags.maxRecordBytes,
    out: flags.out,
    resume: flags.resume === true,
    topK: flags.top,
    explain: flags.explain === true,
    preset: flags.preset,
    overrides: Object.keys(overrides).length > 0 ? overrides : undefined,
    backend: flags.backend,
    kg: flags.kg,
    neo4j: flags.neo4j === true,
    cacheDir: cacheDirFromEnv(),
    progress: process.stderr.isTTY === true,
    // stdin to stdout in a one-record-per-line format is a Unix filter (src/batch/pipe.ts); --pipe asks for it anywhere
    pipe: flags.pipe === true || (input === '-' && flags.out === undefined && flags.queue === undefined && PIPE_FORMATS.includes(format)),
  };
  let summary;
  if (flags.queue !== undefined) {
    const { runQueueTag, queueSummaryLine } = await import('../../batch/queue/submit.js');
    const q = { queue: flags.queue, chunkDocs: flags.chunkDocs, window: flags.queueWindow, timeoutMs: 1000 * flags.queueTimeout };
    summary = await runQueueTag({ ...common, ...q });
    process.stderr.write(queueSummaryLine(summary, flags.out));
  } else {
    summary = await runTag({ ...common, checkpointRecords: flags.checkpointRecords, workers: flags.workers, workerHeapMb: flags.workerHeapMb });
    process.stderr.write(summaryLine(summary, flags.out));
  }
  process.off('SIGINT', onInt);
  process.off('SIGTERM', onTerm);
  if (flags.failOnError && summary.errors > 0) process.exitCode = EXIT.PARTIAL;
}

/** Registers `filmkw tag`. */
export function registerTag(program: Command): void {
  program
    .command('tag')
    .description('Tag documents with keywords: JSON lines out, one per input record, in input order')
    .argument('[input]', 'input file (or, for --format html, a directory of pages), or - for stdin (default: stdin when it is not a terminal)')
    .addOption(new Option('--format <format>', `input format (json: JSON lines or one JSON array, told by the first character; default: from the file extension; stdin: jsonl when it starts with {, else txt)`).choices(INPUT_FORMATS).argParser(anyCase(INPUT_FORMATS)))
    .addOption(new Option('--text-field <field>', `jsonl: field path of the text (string or array of strings); csv/tsv: column name (default: "${DEFAULT_TEXT_FIELD}")`))
    .addOption(new Option('--id-field <field>', 'field path / column of the record id (default: jsonl: the record\'s own "id" when it is a string or a number, else the line number; csv/tsv/txt: the line number)'))
    .addOption(new Option('--film-field <field>', 'field path / column of the film each text is about: a Douban subject id (or a Douban subject URL) or a film name, resolved in the KG (movie/douban/<id> first, then name and alias); read by the re-ranker\'s context features; a film the KG lacks is reported once per run'))
    .addOption(new Option('--title-field <field>', 'field path / column of each text\'s title (a review headline), read by the re-ranker\'s context features'))
    .addOption(new Option('--corpus-stats <stats>', 'corpus statistics for the re-ranker\'s corpus features: a table file of `filmkw corpus build`, self (counted over this input first: it is read twice), or none (default: the table shipped with the package, when the model uses it)'))
    .addOption(new Option('--encoding <name>', 'input encoding, e.g. gbk, gb18030, big5, utf-16le (default: UTF-8, or UTF-16 when the file starts with its byte-order mark)'))
    .addOption(new Option('--kg <path>', 'KG snapshot file or csv directory (default: the bundled demo KG)').conflicts('neo4j'))
    .option('--neo4j', 'read the KG from Neo4j (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD)', false)
    .option('--preset <name>', `pipeline preset: ${listPresets().join(', ')}`, DEFAULT_PRESET)
    .option('--set <key=value>', 'pipeline option override group.key=value, repeatable (e.g. graph.window=3; value read as JSON when it parses)', collect, [] as string[])
    .addOption(new Option('--backend <name>', 'segmenter backend').choices(SEGMENTER_BACKENDS).default(DEFAULT_BACKEND))
    .addOption(new Option('--top <k>', `keywords per document (default: the preset's output.topK, ${DEFAULT_OPTIONS.output.topK})`).argParser(digits))
    .option('--explain', 'add per keyword the co-occurrence, KG and semantic contributions; with the re-ranker (filmkw-rerank, the default) also its logit and each feature\'s contribution to it; `why` reads them in plain words (every term: filmkw glossary)', false)
    .addOption(new Option('--out <file>', 'output file (default: stdout)'))
    .addOption(conflicts(new Option('--workers <n>', 'worker threads (1 = tag in the main thread)').argParser(digits).default(1), 'queue', 'give it to `filmkw worker`'))
    .addOption(conflicts(new Option('--worker-heap-mb <n>', 'heap cap of each worker thread in MB: a document that needs more on its own becomes an error record and the run goes on (given, tagging runs in worker threads even with --workers 1)').argParser(digits), 'queue', 'the records are tagged by `filmkw worker`'))
    .option('--resume', 'continue an interrupted run of the same --out file (same input and options)', false)
    .addOption(conflicts(new Option('--checkpoint-records <n>', 'with --out: also save the point --resume continues from after every n records (default: once a second only)').argParser(digits), 'queue', 'its checkpoint follows the finished chunks'))
    .option('--max-record-bytes <n>', 'longest line / csv record; longer ones become error records', digits, DEFAULT_MAX_RECORD_BYTES)
    .option('--fail-on-error', 'exit with code 1 when any record is an error record', false)
    .addOption(conflicts(new Option('--pipe', 'the Unix-filter contract (Spark RDD.pipe, Hadoop Streaming: one output line per input line, blank lines included, no line numbers in the output; txt, jsonl) also with --out or an input file; reading - and writing stdout follows it without this flag').default(false), 'queue', 'a filter runs where its partition is'))
    .addOption(new Option('--queue <url>', 'tag on `filmkw worker` processes through the Redis queue at redis://host:port[/db] (README "Many machines")'))
    .option('--chunk-docs <n>', 'with --queue: records per chunk (job)', digits, 256)
    .option('--queue-window <n>', 'with --queue: chunks of this run in the queue at once (bounds Redis memory)', digits, 64)
    .option('--queue-timeout <s>', 'with --queue: seconds Redis may stay unreachable before the run stops (--resume continues it)', digits, 60)
    .addHelpText('after', () => {
      const lines = describeOptions(resolveOptions(DEFAULT_PRESET)).map((l) => `  ${l}`);
      return `\nPipeline options for --set group.key=value (values and defaults of the preset ${DEFAULT_PRESET}; every preset sets its own, see src/pipeline/presets.ts):\n${lines.join('\n')}\n`;
    })
    .action((input: string | undefined, flags: TagFlags) => runTagCommand(input, flags));
}
