/**
 * `filmkw kg`: build and inspect the film KG. Thin: the work is in src/kg/{import,load,snapshot,neo4j}.ts.
 *
 *   filmkw kg import (--out FILE | --neo4j) [--strict] [--json] [--openkg-composer wrote|skip] [--no-played] SOURCE...
 *       SOURCE = openkg:<dir> | kgqa:<file|dir> | douban-csv:<file|dir> | csv:<dir> | html-list:<file|dir> | demo
 *       Summary on stderr (or one JSON object on stdout with --json), progress on stderr.
 *       Exit 0; 2 usage (unknown source prefix, bad option); 3 input (missing file, wrong header,
 *       any skipped row under --strict — nothing is written then); 4/5/6 Neo4j; 7 output not writable.
 *   filmkw kg show <name|alias|id> [--kg FILE|DIR | --neo4j] [--json] [--limit N]
 *       One entity (every entity of a name): what tells it apart, aliases, neighbours by relation; --json
 *       prints the answer of the viewer's GET /api/kg/entity. Exit 3 when none has that name, alias or id.
 *   filmkw kg stats [--kg FILE|DIR | --neo4j] [--json]
 *       Counts by kind; --json prints exactly {"entities":{"total":N,"byKind":{…}},"relations":{…}}.
 */
import { Option, type Command } from 'commander';
import { assertNotAnInput } from '../../util/files.js';
import { FilmkwError, inputError, usageError } from '../../errors.js';
import { importSources, importSummary, formatSummary, parseSource } from '../../kg/import.js';
import { loadKg, progressLines } from '../../kg/load.js';
import { commonWordTest } from '../../lexicon/title-policy.js';
import { saveSnapshot } from '../../kg/snapshot.js';
import type { KgStats } from '../../kg/model.js';
import { KgBrowser, type EntityDetail } from '../../serve/kg-browse.js';
import { groupByRelation } from '../../serve/kg-words.js';
import type * as Neo4j from '../../kg/neo4j.js'; // types only: the module (and neo4j-driver) is loaded with --neo4j
import { checked } from './option-parsers.js';

interface ImportFlags {
  out?: string;
  neo4j?: boolean;
  strict?: boolean;
  json?: boolean;
  openkgComposer: 'wrote' | 'skip';
  played: boolean;
  examples: number;
}

interface ShowFlags {
  kg?: string;
  neo4j?: boolean;
  json?: boolean;
  limit: number;
}

interface StatsFlags {
  kg?: string;
  neo4j?: boolean;
  json?: boolean;
}

const err = (s: string) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`);

/** `kg show --limit`: an integer from 1 to 1000000. */
const SHOW_LIMIT = checked(
  (raw) => (/^\d+$/u.test(raw) && Number(raw) >= 1 && Number(raw) <= 1_000_000 ? Number(raw) : undefined),
  'must be an integer from 1 to 1000000',
);

/** `kg import --examples`: an integer from 0 to 1000000. */
const IMPORT_EXAMPLES = checked(
  (raw) => (/^\d+$/u.test(raw) && Number(raw) <= 1_000_000 ? Number(raw) : undefined),
  'must be an integer from 0 to 1000000',
);

export async function runKgImport(sources: string[], flags: ImportFlags): Promise<void> {
  const started = performance.now();
  if (!flags.out && !flags.neo4j) throw usageError('kg import: give exactly one of --out FILE or --neo4j'); // both: a declared conflict
  const examples = flags.examples;
  if (sources.length === 0) throw usageError('kg import: no SOURCE given (valid sources: openkg:<dir>, kgqa:<file|dir>, douban-csv:<file|dir>, csv:<dir>, html-list:<file|dir>, demo)');
  const specs = sources.map(parseSource); // usage errors before any work
  if (flags.out) assertNotAnInput('kg import', '--out', flags.out, specs.map((s) => s.path));
  const progress = (m: string) => err(m);
  // Neo4j: settings and the server (reachable, credentials accepted) are checked before the sources are
  // read, so that a wrong NEO4J_URI or password fails in a second, not after the whole import
  let neo: typeof Neo4j | undefined;
  let cfg: Neo4j.Neo4jConfig | undefined;
  if (flags.neo4j) {
    neo = await import('../../kg/neo4j.js');
    cfg = neo.neo4jConfigFromEnv();
    progress(`kg import: checking Neo4j at ${neo.redactUri(cfg.uri)}`);
    await neo.verifyNeo4j(cfg);
  }
  const result = await importSources(specs, {
    onProgress: progress,
    openkg: { composer: flags.openkgComposer === 'wrote' ? 'WROTE' : 'skip' },
    builder: { minePlayed: flags.played, examples, commonWord: commonWordTest() },
  });
  const skipped = result.report.skipped.reduce((n, g) => n + g.count, 0);
  if (flags.strict && skipped > 0) {
    const s = importSummary(result);
    if (flags.json) process.stdout.write(`${JSON.stringify(s)}\n`);
    else err(formatSummary(s));
    const first = result.report.skipped[0];
    throw inputError(`kg import: --strict: ${skipped} bad row(s) skipped, nothing written (first: ${first.examples[0] ?? ''} ${first.reason})`);
  }
  let output: Record<string, unknown>;
  if (flags.out) {
    progress(`kg import: writing the snapshot ${flags.out}`);
    const t = performance.now();
    let bytes: number;
    try {
      ({ bytes } = await saveSnapshot(result.store, flags.out));
    } catch (e) {
      if (e instanceof FilmkwError) throw e;
      throw new FilmkwError('OUTPUT', `kg import: cannot write ${flags.out}: ${(e as Error).message}`, { cause: e });
    }
    output = { snapshot: flags.out, bytes, writeMs: Math.round(performance.now() - t) };
  } else {
    if (!neo || !cfg) throw new Error('kg import: Neo4j is not set up'); // unreachable: set up above with --neo4j
    progress(`kg import: writing to Neo4j at ${neo.redactUri(cfg.uri)}`);
    const w = await neo.writeKgToNeo4j(result.store.toData(), cfg, {
      onProgress: progressLines((m) => progress(`kg import: ${m}`), { live: process.stderr.isTTY === true, steps: 4 }),
    });
    output = { neo4j: neo.redactUri(cfg.uri), nodes: w.nodes, relationships: w.relationships, created: w.created, written: w.written, removed: w.removed, skipped: w.skipped, writeMs: w.ms };
  }
  const s = importSummary(result, output);
  s.totalMs = Math.round(performance.now() - started);
  if (flags.json) process.stdout.write(`${JSON.stringify(s)}\n`);
  else err(formatSummary(s));
}

function formatStats(st: KgStats, source: string): string {
  const lines = [`kg stats: ${source}`, `  entities  ${st.entities.total}`];
  for (const [k, v] of Object.entries(st.entities.byKind)) lines.push(`    ${k.padEnd(10)} ${v}`);
  lines.push(`  relations ${st.relations.total}`);
  for (const [k, v] of Object.entries(st.relations.byKind)) lines.push(`    ${k.padEnd(10)} ${v}`);
  return lines.join('\n') + '\n';
}

export async function runKgStats(flags: StatsFlags): Promise<void> {
  let stats: KgStats;
  let source: string;
  if (flags.neo4j) {
    const neo = await import('../../kg/neo4j.js');
    const cfg = neo.neo4jConfigFromEnv();
    stats = await neo.neo4jStats(cfg);
    source = `neo4j ${neo.redactUri(cfg.uri)}`;
  } else {
    // progress is quiet under --json, warnings (skipped csv rows) never are: stderr, stdout has the JSON
    const kg = await loadKg({ kg: flags.kg, onProgress: flags.json ? undefined : (m) => err(m), onWarning: (m) => err(m) });
    stats = kg.stats();
    source = flags.kg ?? 'demo KG (bundled)';
    if (!flags.json) source += ` (content hash ${kg.contentHash})`;
  }
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ entities: stats.entities, relations: stats.relations })}\n`);
  } else process.stdout.write(formatStats(stats, source));
}

/** One entity as text: name, kind and id; what tells it apart; aliases; neighbours by relation. */
export function formatEntity(e: EntityDetail): string {
  const lines = [`${e.name} · ${e.kind} · ${e.id}`, `  ${e.about ?? ''}`];
  if (e.aliases.length > 0) lines.push(`  aliases: ${e.aliases.join(', ')}`);
  if (e.surfaces.length > 0 && e.surfaces.join() !== e.name) lines.push(`  surfaces: ${e.surfaces.join(', ')}`);
  for (const g of groupByRelation(e.neighbours)) {
    // a name twice in one group (two people called 王伟) is followed by its id
    const twice = new Set(g.neighbours.map((n) => n.name).filter((n, i, all) => all.indexOf(n) !== i));
    lines.push(`  ${g.label} (${g.neighbours.length}): ${g.neighbours.map((n) => (twice.has(n.name) ? `${n.name} [${n.id}]` : n.name)).join(', ')}`);
  }
  const shown = e.neighbours.length < e.neighbourCount ? `, the first ${e.neighbours.length} listed (--limit)` : '';
  lines.push(`  ${e.neighbourCount} neighbour${e.neighbourCount === 1 ? '' : 's'}${shown}`);
  return `${lines.join('\n')}\n`;
}

export async function runKgShow(query: string, flags: ShowFlags): Promise<void> {
  if (query.trim() === '') throw usageError('kg show: name an entity (name, alias or id)');
  const store = await loadKg({ kg: flags.kg, neo4j: flags.neo4j === true, onWarning: (m) => err(m) });
  const browser = new KgBrowser(store);
  const limit = flags.limit;
  const byId = browser.byId(query, limit);
  const matches = byId ? [byId] : browser.named(query, limit);
  if (matches.length === 0) {
    const near = browser.search(query, 5);
    throw inputError(`kg show: no entity has the name, alias or id ${JSON.stringify(query)}${near.length > 0 ? `; names containing it: ${near.map((n) => `${n.name} (${n.id})`).join(', ')}` : ''}`);
  }
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ query, matches })}\n`);
    return;
  }
  const head = matches.length > 1 ? `${matches.length} entities are named ${query}:\n\n` : '';
  process.stdout.write(head + matches.map(formatEntity).join('\n'));
}

/** Registers `filmkw kg`. */
export function registerKg(program: Command): void {
  const kg = program.command('kg').description('build and inspect the film knowledge graph');
  kg.command('import')
    .description('import KG sources into a snapshot file or Neo4j, merging the same film or person across them (SOURCE: openkg:<dir>, kgqa:<file|dir>, douban-csv:<file|dir>, csv:<dir>, html-list:<file|dir> = saved Douban list pages, demo = the bundled demo KG)')
    .argument('<source...>', 'sources to merge')
    .addOption(new Option('--out <file>', 'write the merged KG as a snapshot file (atomically)').conflicts('neo4j'))
    .option('--neo4j', 'write into Neo4j (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD)')
    .option('--strict', 'fail (exit 3, nothing written) if any input row is skipped')
    .option('--json', 'print the summary as one JSON object on stdout')
    .addOption(new Option('--openkg-composer <mode>', 'OpenKG composer.csv rows are screenwriter credits (wrote) or left out (skip)').choices(['wrote', 'skip']).default('wrote'))
    .option('--no-played', 'do not mine PLAYED (饰演) from synopses')
    .option('--examples <n>', 'examples kept per report group (merges by rule, ambiguous names left apart, aliases changed and dropped, skipped rows, dropped and cleaned names, stripped 之子/副官 prefixes)', IMPORT_EXAMPLES, 5)
    .action(async (sources: string[], flags: ImportFlags) => {
      await runKgImport(sources, flags);
    });
  kg.command('show')
    .description('one entity by name, alias or id: what tells it apart, its aliases, its neighbours by relation (the JSON of the viewer\'s GET /api/kg/entity with --json)')
    .argument('<entity>', 'a name or alias (every entity of that name is shown), or an entity id such as movie/douban/1292052')
    .addOption(new Option('--kg <file>', 'KG snapshot file or csv directory (default: the bundled demo KG)').conflicts('neo4j'))
    .option('--neo4j', 'read the KG from Neo4j (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD)')
    .option('--json', 'print {"query", "matches": [{id, kind, name, about, aliases, surfaces, movieId?, neighbours: [{id, kind, name, relations: [{kind, direction, movieId?}]}], neighbourCount}]}')
    .option('--limit <n>', 'neighbours listed at most per entity', SHOW_LIMIT, 300)
    .action(async (entity: string, flags: ShowFlags) => {
      await runKgShow(entity, flags);
    });
  kg.command('stats')
    .description('count entities and relations by kind (default: the bundled demo KG)')
    .addOption(new Option('--kg <file>', 'KG snapshot file or csv directory').conflicts('neo4j'))
    .option('--neo4j', 'count the KG in Neo4j (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD)')
    .option('--json', 'print {"entities":{"total","byKind"},"relations":{"total","byKind"}}')
    .action(async (flags: StatsFlags) => {
      await runKgStats(flags);
    });
}
