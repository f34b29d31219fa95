/**
 * `filmkw dict export`: write the segmenter user dictionary of a KG (src/lexicon/dict.ts). Thin.
 *
 *   filmkw dict export --out <path> [--kg <file> | --neo4j] [--backend node-rs|nodejieba]
 *                      [--common-word-titles include|exclude] [--common-phrases include|exclude] [--freq-margin N] [--no-compound-parts] [--json]
 *
 * Prints a summary on stderr (entries, compounds, parts, skipped names by reason with examples), or the
 * same as one JSON object on stdout with --json.
 */
import { Command, Option } from 'commander';
import { assertNotAnInput } from '../../util/files.js';
import { FilmkwError, inputError, writeFailureReason } from '../../errors.js';
import type { KgView } from '../../kg/model.js';
import { writeUserDict, DEFAULT_EXPORT_OPTIONS, type ExportUserDictOptions, type SkippedName } from '../../lexicon/dict.js';
import { SEGMENTER_BACKENDS, type SegmenterBackend } from '../../lexicon/base.js';
import { checked } from './option-parsers.js';

interface ExportFlags {
  kg?: string;
  neo4j?: boolean;
  out: string;
  backend: SegmenterBackend;
  commonWordTitles: 'include' | 'exclude';
  commonPhrases: 'include' | 'exclude';
  freqMargin: number;
  compoundParts: boolean;
  json?: boolean;
  examples: number;
}

type LoadKg = (opts: { kg?: string; neo4j?: boolean; onProgress?: (msg: string) => void }) => Promise<KgView>;

async function kgLoader(): Promise<LoadKg> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(new URL('../../kg/load.js', import.meta.url).href)) as Record<string, unknown>;
  } catch (err) {
    throw inputError(`dict: the KG loader (src/kg/load.ts) is not available in this build: ${(err as Error).message}`, err);
  }
  if (typeof mod.loadKg !== 'function') throw inputError('dict: src/kg/load.ts does not export loadKg()');
  return mod.loadKg as LoadKg;
}

/**
 * An OUTPUT error of the dictionary write that names --out and the reason in words: writeUserDict
 * writes a temp file next to --out and renames it, and the file system's message names that temp path
 * (`d.dict.19419.tmp`), which the user never chose. Kept: the `dict: cannot write <path>: <CODE>` start.
 */
function writeError(err: unknown, out: string): unknown {
  if (!(err instanceof FilmkwError) || err.code !== 'OUTPUT') return err;
  const cause = err.cause as NodeJS.ErrnoException | undefined;
  const code = cause?.code;
  const why = writeFailureReason(code, out);
  const msg = code
    ? `dict: cannot write ${out}: ${code}${why ? ` (${why})` : ''}; nothing was changed at that path`
    : `dict: cannot write ${out}: ${(cause?.message ?? err.message).split(`${out}.${process.pid}.tmp`).join(out)}`;
  return new FilmkwError('OUTPUT', msg, { cause: cause ?? err });
}

function examplesByReason(skipped: SkippedName[], n: number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const s of skipped) {
    const key = s.reason.split(':')[0];
    const list = (out[key] ??= []);
    if (list.length < n) list.push(s.name);
  }
  return out;
}

const INCLUDE = ['include', 'exclude'] as const;

const FREQ_MARGIN = checked(
  (raw) => {
    const n = Number(raw);
    return Number.isFinite(n) && n >= 1 && n <= 1e6 ? n : undefined;
  },
  'must be a number ≥ 1 and ≤ 1000000',
);

const EXAMPLES = checked(
  (raw) => {
    const n = Number(raw);
    return Number.isInteger(n) && n >= 0 && n <= 1e6 ? n : undefined;
  },
  'must be an integer ≥ 0 and ≤ 1000000',
);

export async function runDictExport(flags: ExportFlags): Promise<void> {
  const margin = flags.freqMargin;
  const examples = flags.examples;
  if (flags.kg) assertNotAnInput('dict export', '--out', flags.out, [flags.kg]);
  const opts: Partial<ExportUserDictOptions> = {
    backend: flags.backend,
    commonWordTitles: flags.commonWordTitles,
    commonPhrases: flags.commonPhrases,
    freqMargin: margin,
    compoundParts: flags.compoundParts,
  };
  const loadKg = await kgLoader();
  const started = Date.now();
  const kg = await loadKg({ kg: flags.kg, neo4j: flags.neo4j === true, onProgress: (m) => process.stderr.write(`${m}\n`) });
  let r: ReturnType<typeof writeUserDict>;
  try {
    r = writeUserDict(kg, flags.out, opts);
  } catch (err) {
    throw writeError(err, flags.out);
  }
  const summary = {
    out: flags.out,
    kg: flags.kg ?? (flags.neo4j ? 'neo4j' : 'demo (bundled)'),
    backend: flags.backend,
    bytes: r.bytes,
    ...r.stats,
    skippedExamples: examplesByReason(r.skipped, examples),
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  const lines = [
    `dict export: wrote ${r.stats.entries} entries (${r.bytes} bytes) to ${flags.out} from ${summary.kg} in ${summary.seconds} s`,
    `  names and aliases in the KG: ${r.stats.names}; compounds (merged after tagging): ${r.stats.compounds}; compound parts added: ${r.stats.parts}; full-width variants: ${r.stats.variants}; common words: ${r.stats.commonWords}`,
    `  skipped: ${r.skipped.length}${r.skipped.length ? '' : ' (none)'}`,
  ];
  const ex = summary.skippedExamples;
  for (const [reason, count] of Object.entries(r.stats.skippedByReason)) {
    const full = r.skipped.find((s) => s.reason.startsWith(reason))!.reason;
    lines.push(`    ${count} × ${full}${ex[reason]?.length ? ` — e.g. ${ex[reason].map((n) => JSON.stringify(n)).join(', ')}` : ''}`);
  }
  process.stderr.write(`${lines.join('\n')}\n`);
}

/** Registers `filmkw dict`. */
export function registerDict(program: Command): void {
  const dict = program.command('dict').description('segmenter user dictionary built from the KG');
  dict
    .command('export')
    .description('write the KG user dictionary ("word freq tag" lines) for the segmenters and nodejieba')
    .requiredOption('--out <path>', 'output file (written atomically)')
    .addOption(new Option('--kg <file>', 'KG snapshot file or csv directory (default: the bundled demo KG)').conflicts('neo4j'))
    .option('--neo4j', 'read the KG from Neo4j (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD)')
    .addOption(new Option('--backend <name>', 'base dictionary used for frequencies and common words').choices(SEGMENTER_BACKENDS).default(DEFAULT_EXPORT_OPTIONS.backend))
    .addOption(new Option('--common-word-titles <mode>', 'include or exclude titles and character names that are common words (活着, 英雄)').choices(INCLUDE).default(DEFAULT_EXPORT_OPTIONS.commonWordTitles))
    .addOption(new Option('--common-phrases <mode>', 'include or exclude titles and character names made of common words (来了, 一个人)').choices(INCLUDE).default(DEFAULT_EXPORT_OPTIONS.commonPhrases))
    .option('--freq-margin <n>', 'multiplier on the suggested frequency', FREQ_MARGIN, DEFAULT_EXPORT_OPTIONS.freqMargin)
    .option('--no-compound-parts', 'do not add the non-word parts of names with punctuation (迪卡普里奥 of 莱昂纳多·迪卡普里奥)')
    .option('--examples <n>', 'skipped names shown per reason', EXAMPLES, 5)
    .option('--json', 'print the summary as one JSON object on stdout')
    .action(async (flags: ExportFlags) => {
      await runDictExport(flags);
    });
}
