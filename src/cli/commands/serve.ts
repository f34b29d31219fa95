/**
 * `filmkw serve`: the local web viewer (src/serve/server.ts). Thin: loads the KG and the batch files,
 * listens (the server warms the default preset up first), prints the URL on stdout, and runs until SIGINT/SIGTERM.
 *
 *   filmkw serve [--kg FILE|DIR | --neo4j] [--host 127.0.0.1] [--port 0] [--preset P]
 *                [--files TAGS.jsonl...] [--input FILE] [--text-field F] [--id-field F] [--gold FILE]
 *                [--max-body-bytes N] [--workers N] [--request-timeout-ms N] [--request-heap-mb N]
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { usageError } from '../../errors.js';
import { SERVE_DEFAULTS } from '../../serve/limits.js';
import { DEFAULT_PRESET } from '../../pipeline/options.js';
import { findPreset, listPresets } from '../../pipeline/presets.js';
import { checked, integerIn, orList } from './option-parsers.js';

interface ServeFlags {
  kg?: string;
  neo4j?: boolean;
  host: string;
  port: number;
  preset: string;
  files: string[];
  input?: string;
  textField?: string;
  idField?: string;
  gold?: string;
  maxBodyBytes: number;
  workers: number;
  requestTimeoutMs: number;
  requestHeapMb: number;
}

/** `--preset`: a preset name or alias (presets.ts). */
const PRESET = checked(
  (raw) => (findPreset(raw) ? raw : undefined),
  `must be a preset: ${orList(listPresets())}`,
);

export async function runServeCommand(flags: ServeFlags): Promise<void> {
  const { port, maxBodyBytes, workers, requestTimeoutMs, requestHeapMb } = flags;
  if ((flags.input !== undefined || flags.gold !== undefined) && flags.files.length === 0) throw usageError('serve: --input and --gold go with --files (the tag outputs to browse)');
  const [{ loadKg }, { loadBatch }, { startServer }] = await Promise.all([import('../../kg/load.js'), import('../../serve/batch.js'), import('../../serve/server.js')]);
  const kg = await loadKg({ kg: flags.kg, neo4j: flags.neo4j === true, onWarning: (m) => process.stderr.write(`filmkw: ${m}\n`) });
  const batch = await loadBatch({ files: flags.files, input: flags.input, textField: flags.textField, idField: flags.idField, gold: flags.gold });
  const server = await startServer({
    kg,
    kgLabel: flags.neo4j ? 'Neo4j' : (flags.kg ?? 'demo KG (kg/demo)'),
    batch,
    preset: findPreset(flags.preset)!.name,
    host: flags.host,
    port,
    limits: { maxBodyBytes, workers, requestTimeoutMs, requestHeapMb },
    // the extraction workers load a snapshot file given with --kg themselves (otherwise the server writes one)
    kgSnapshot: flags.kg !== undefined && statSync(flags.kg).isFile() ? resolve(flags.kg) : undefined,
  });
  process.stdout.write(`filmkw serve: ${server.url}  (KG: ${kg.entityCount} entities; Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void server.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

const collect = (v: string, prev: string[]) => [...prev, v];

/** Registers `filmkw serve`. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Open the local web viewer: text, word graph, KG, compare and batch views, and a JSON API')
    .addOption(new Option('--kg <path>', 'KG snapshot file or csv directory (default: the bundled demo KG)').conflicts('neo4j'))
    .option('--neo4j', 'read the KG from Neo4j (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD)', false)
    .option('--host <address>', 'address to bind (keep the loopback default unless you mean to share the viewer)', '127.0.0.1')
    .option('--port <n>', 'port (0 = any free port)', integerIn(0, 65535), 0)
    .option('--preset <name>', `preset of the first view: ${listPresets().join(', ')}`, PRESET, DEFAULT_PRESET)
    .option('--files <file...>', 'tag outputs (JSON lines) the Batch view may open; no other file can be browsed', collect, [] as string[])
    .addOption(new Option('--input <file>', 'the input the --files were tagged from (jsonl, csv, tsv, txt), for the texts'))
    .addOption(new Option('--text-field <field>', 'text field / column of --input (default: "text")'))
    .addOption(new Option('--id-field <field>', 'id field / column of --input, as given to filmkw tag (default: the line number)'))
    .addOption(new Option('--gold <file>', 'gold keywords (jsonl with id, text, tag) for hits and misses'))
    .option('--max-body-bytes <n>', 'largest API request body', integerIn(1024, 1 << 30), SERVE_DEFAULTS.maxBodyBytes)
    .option('--workers <n>', `extraction worker threads for short texts; texts over ${SERVE_DEFAULTS.heavyChars.toLocaleString('en-US')} characters get n − 1 more (at least 1), at a lower CPU priority`, integerIn(1, 64), SERVE_DEFAULTS.workers)
    .option('--request-timeout-ms <n>', 'time budget of one extraction request (over it: 413)', integerIn(100, 3_600_000), SERVE_DEFAULTS.requestTimeoutMs)
    .option('--request-heap-mb <n>', 'memory budget of one extraction request, the heap of its worker thread (over it: 413)', integerIn(64, 65_536), SERVE_DEFAULTS.requestHeapMb)
    .action((flags: ServeFlags) => runServeCommand(flags));
}
