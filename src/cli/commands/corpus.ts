/**
 * `filmkw corpus build`: corpus statistics for the re-ranker's corpus features (src/batch/corpus.ts
 * counts, src/pipeline/corpus-stats.ts holds the table). Thin.
 *
 *   filmkw corpus build <input…> --out FILE [--format F] [--text-field F] [--id-field F] [--film-field F]
 *                       [--encoding E] [--exclude FILE]… [--min-df N] [--kg FILE | --neo4j] [--preset P] [--set k=v]…
 *
 * An input may carry its own reading options after `::` (`reviews.json::text-field=review_full,film=10831445`):
 * format, text-field, id-field, film-field, film (the film of every record; such an input reads no film
 * field unless it names one), id-prefix (put before the record id when it is compared with the excluded
 * ids), encoding. `--out` ending in `.gz` is written
 * gzip-compressed. The summary (per input: records, counted, excluded by id and by text, duplicates)
 * goes to stderr.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Command, Option } from 'commander';
import { checkUntrustedKey, FilmkwError, usageError, writeFailureReason } from '../../errors.js';
import { assertNotAnInput } from '../../util/files.js';
import { checkEncoding, checkFormat, inferFormat, INPUT_FORMATS, type InputFormat } from '../../io/readers.js';
import { DEFAULT_PRESET, parseOverride } from '../../pipeline/options.js';
import { CorpusCounter, DEFAULT_MIN_DF } from '../../pipeline/corpus-stats.js';
import { countCorpus, readExclusion, type CorpusSource, type CorpusSourceReport } from '../../batch/corpus.js';
import { loadTagKg } from '../../batch/kg-source.js';
import { tagExtractorWithKg } from '../../batch/tag-extractor.js';
import { cacheDirFromEnv } from '../../lexicon/cache.js';
import { anyCase, checked } from './option-parsers.js';

interface BuildFlags {
  out: string;
  format?: string;
  textField?: string;
  idField?: string;
  filmField?: string;
  encoding?: string;
  exclude: string[];
  minDf: number;
  kg?: string;
  neo4j?: boolean;
  preset: string;
  set: string[];
}

const collect = (v: string, prev: string[]) => [...prev, v];

/** The per-input keys after `::` (module header). */
const INPUT_KEYS = ['format', 'text-field', 'id-field', 'film-field', 'film', 'id-prefix', 'encoding'] as const;

/** An input argument `PATH[::key=value,…]` with the global flags as defaults. */
export function parseCorpusInput(arg: string, flags: Pick<BuildFlags, 'format' | 'textField' | 'idField' | 'filmField' | 'encoding'>): CorpusSource {
  const cut = arg.indexOf('::');
  const path = cut < 0 ? arg : arg.slice(0, cut);
  const own: Record<string, string> = {};
  if (cut >= 0) {
    for (const kv of arg.slice(cut + 2).split(',')) {
      const eq = kv.indexOf('=');
      const key = eq < 0 ? kv : kv.slice(0, eq);
      if (!(INPUT_KEYS as readonly string[]).includes(key) || eq < 0) throw usageError(`corpus build: ${arg}: expected PATH::key=value,… with keys ${INPUT_KEYS.join(', ')}, got ${JSON.stringify(kv)}`);
      own[key] = kv.slice(eq + 1);
    }
  }
  const pick = (key: (typeof INPUT_KEYS)[number], flag: string | undefined): string | undefined => (Object.hasOwn(own, key) ? own[key] : flag);
  const formatName = pick('format', flags.format) ?? inferFormat(path);
  if (!formatName) throw usageError(`corpus build: cannot tell the format of ${path} from its extension; add ::format=${INPUT_FORMATS.join('|')} or pass --format`);
  const format: InputFormat = checkFormat(formatName);
  // a source given its film (film=VALUE) reads no film field unless it names one itself
  const filmField = Object.hasOwn(own, 'film') && !Object.hasOwn(own, 'film-field') ? undefined : pick('film-field', flags.filmField) || undefined;
  const fields = { textField: pick('text-field', flags.textField), idField: pick('id-field', flags.idField), filmField };
  for (const [name, v] of Object.entries(fields)) if (v !== undefined) checkUntrustedKey(v, `corpus build: ${name}`);
  const encoding = pick('encoding', flags.encoding);
  return {
    path,
    format,
    ...fields,
    ...(encoding !== undefined ? { encoding: checkEncoding(encoding) } : {}),
    ...(own.film !== undefined ? { film: own.film } : {}),
    ...(own['id-prefix'] !== undefined ? { idPrefix: own['id-prefix'] } : {}),
  };
}

function reportLine(r: CorpusSourceReport): string {
  const dropped = [r.excludedById ? `${r.excludedById} excluded by id` : '', r.excludedByText ? `${r.excludedByText} excluded by text` : '', r.duplicates ? `${r.duplicates} duplicate texts` : '', r.errors ? `${r.errors} error records` : '', r.blank ? `${r.blank} blank` : '']
    .filter(Boolean)
    .join(', ');
  return `corpus build: ${basename(r.path)}: ${r.records} records, ${r.counted} counted${dropped ? ` (${dropped})` : ''}${r.withoutFilm ? `, ${r.withoutFilm} without a film` : ''}\n`;
}

/** The readers' errors say `tag:`; here they are the command's. */
async function asCorpusCommand<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof FilmkwError && err.message.startsWith('tag: ')) throw new FilmkwError(err.code, `corpus build: ${err.message.slice(5)}`, { cause: err });
    throw err;
  }
}

/** `--min-df`: an integer from 1 to 1000000. */
const MIN_DF = checked(
  (raw) => {
    const n = Number(raw);
    return Number.isInteger(n) && n >= 1 && n <= 1e6 ? n : undefined;
  },
  'must be an integer from 1 to 1000000',
);

export async function runCorpusBuild(inputs: string[], flags: BuildFlags): Promise<void> {
  if (inputs.length === 0) throw usageError('corpus build: give at least one input');
  const minDf = flags.minDf;
  const sources = inputs.map((a) => parseCorpusInput(a, flags));
  const excludes = flags.exclude.map((path) => ({ path, format: checkFormat(inferFormat(path) ?? 'jsonl') }));
  assertNotAnInput('corpus build', '--out', flags.out, [...sources.map((s) => s.path), ...excludes.map((e) => e.path), ...(flags.kg ? [flags.kg] : [])]);
  const overrides: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const a of flags.set) {
    const [k, v] = parseOverride(a);
    overrides[k] = v;
  }
  const kg = await loadTagKg({ kg: flags.kg, neo4j: flags.neo4j, onProgress: (m) => process.stderr.write(`${m}\n`) });
  const extractor = tagExtractorWithKg({ preset: flags.preset, overrides, cacheDir: cacheDirFromEnv(), corpusStats: null }, kg.store);
  const counter = new CorpusCounter();
  const { exclusion, reports } = await asCorpusCommand(async () => {
    const exclusion = excludes.length > 0 ? await readExclusion(excludes) : null;
    return { exclusion, reports: await countCorpus(sources, extractor, counter, exclusion) };
  });
  for (const r of reports) process.stderr.write(reportLine(r));
  const byId = reports.reduce((a, r) => a + r.excludedById, 0);
  const byText = reports.reduce((a, r) => a + r.excludedByText, 0);
  if (exclusion) process.stderr.write(`corpus build: dropped ${byId + byText} texts of the ${exclusion.records} records of ${excludes.map((e) => basename(e.path)).join(', ')} (${byId} by id, ${byText} by text)\n`);
  const header = {
    sources: reports.map((r) => ({ file: basename(r.path), counted: r.counted })),
    excluded: { files: excludes.map((e) => basename(e.path)), byId, byText },
    kgContentHash: kg.store.contentHash,
    preset: extractor.preset,
    ...(Object.keys(overrides).length > 0 ? { overrides } : {}),
  };
  const text = counter.serialize(header, minDf);
  const bytes = flags.out.endsWith('.gz') ? gzipSync(text, { level: 9 }) : Buffer.from(text, 'utf8');
  const tmp = `${flags.out}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, flags.out);
  } catch (err) {
    rmSync(tmp, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    throw new FilmkwError('OUTPUT', `corpus build: cannot write ${flags.out}: ${code ?? (err as Error).message}${writeFailureReason(code, flags.out) ? ` (${writeFailureReason(code, flags.out)})` : ''}`, { cause: err });
  }
  const words = text.split('\n').filter((l) => l.startsWith('W\t')).length;
  process.stderr.write(`corpus build: ${counter.documents} texts, ${words} surfaces with df ≥ ${minDf} → ${flags.out} (${bytes.length} bytes)\n`);
}

/** Registers `filmkw corpus`. */
export function registerCorpus(program: Command): void {
  const corpus = program.command('corpus').description('Corpus statistics for the re-ranker (document frequency, film spread, per-film counts)');
  corpus
    .command('build')
    .description('Count the candidate words and phrases of a corpus of film texts into a statistics table (tag --corpus-stats FILE)')
    .argument('<input...>', 'input files in the formats tag reads; PATH::key=value,… sets format, text-field, id-field, film-field, film, id-prefix, encoding for that input')
    .requiredOption('--out <file>', 'the table to write (gzip-compressed when it ends in .gz)')
    .addOption(new Option('--format <format>', "input format (default: from each file's extension)").choices(INPUT_FORMATS).argParser(anyCase(INPUT_FORMATS)))
    .addOption(new Option('--text-field <field>', 'field path / column of the text (default: "text")'))
    .addOption(new Option('--id-field <field>', 'field path / column of the record id (compared with the excluded records\' ids)'))
    .addOption(new Option('--film-field <field>', 'field path / column of each record\'s film (a Douban id, a Douban subject URL or a film name)'))
    .addOption(new Option('--encoding <name>', 'input encoding (default: UTF-8, or UTF-16 by its byte-order mark)'))
    .option('--exclude <file>', 'records to leave out, by id and by text (e.g. the annotated sets), repeatable', collect, [] as string[])
    .option('--min-df <n>', 'keep the words and phrases found in at least this many texts (fewer: absent, read as df 0)', MIN_DF, DEFAULT_MIN_DF)
    .addOption(new Option('--kg <path>', 'KG snapshot file or csv directory (default: the bundled demo KG); the same KG as tagging, so the candidates are the same').conflicts('neo4j'))
    .option('--neo4j', 'read the KG from Neo4j', false)
    .option('--preset <name>', 'the preset whose candidate stage is counted', DEFAULT_PRESET)
    .option('--set <key=value>', 'pipeline option override, repeatable', collect, [] as string[])
    .action((inputs: string[], flags: BuildFlags) => runCorpusBuild(inputs, flags));
}
