/**
 * Neo4j import benchmark (issue 6, item 5): import rate (entities/s, relations/s) of `writeKgToNeo4j`,
 * the rate of an idempotent re-run of the same import, `neo4jStats` time, and the read-back rate of
 * `readKgFromNeo4j`, on the seeded synthetic KG (src/kg/synthetic.ts).
 *
 *   node --import tsx bench/neo4j.ts [--entities N] [--relations N] [--seed N] [--batch N] [--page N] [--json]
 *
 * Runs only when NEO4J_URI (with NEO4J_USER, NEO4J_PASSWORD, optionally NEO4J_DATABASE) is set; otherwise
 * it prints a section saying it was skipped. WARNING: it deletes every filmkw node (:Entity, :Alias) in
 * the target database before it starts; point it at a scratch database.
 *
 * Defaults: 17,000 entities and 300,000 relations (a tenth of the paper's 3M relations, so one run
 * stays within minutes); `--relations 3000000` runs the full scale (the KgData then needs ~1 GB of heap:
 * add `NODE_OPTIONS=--max-old-space-size=4096`).
 */
import { neo4jConfigFromEnv, neo4jStats, readKgFromNeo4j, writeKgToNeo4j, clearKgInNeo4j, NEO4J_DEFAULTS } from '../src/kg/neo4j.js';
import { syntheticKg } from '../src/kg/synthetic.js';
import { KgStore } from '../src/kg/store.js';
import { redactUri } from '../src/kg/neo4j.js';
import { FilmkwError } from '../src/errors.js';

interface Args {
  entities: number;
  relations: number;
  seed: number;
  batch: number;
  page: number;
  json: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { entities: 17_000, relations: 300_000, seed: 1, batch: NEO4J_DEFAULTS.batchSize, page: NEO4J_DEFAULTS.pageSize, json: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) throw new Error(`bench/neo4j: ${k} needs a positive integer`);
      return v;
    };
    if (k === '--entities') a.entities = num();
    else if (k === '--relations') a.relations = num();
    else if (k === '--seed') a.seed = num();
    else if (k === '--batch') a.batch = num();
    else if (k === '--page') a.page = num();
    else if (k === '--json') a.json = true;
    else throw new Error(`bench/neo4j: unknown option ${k}`);
  }
  return a;
}

const rate = (n: number, ms: number) => Math.round((n / Math.max(ms, 1)) * 1000);
const fmt = (n: number) => n.toLocaleString('en-US');

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!process.env.NEO4J_URI) {
    process.stdout.write('## Neo4j import\n\nSkipped: set NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD (a scratch database: the bench deletes every :Entity and :Alias node) to measure the import rate.\n');
    return;
  }
  const cfg = neo4jConfigFromEnv();
  const data = syntheticKg({ entities: args.entities, relations: args.relations, seed: args.seed });
  const expected = KgStore.fromData(data).stats();
  const cleared = await clearKgInNeo4j(cfg);
  const first = await writeKgToNeo4j(data, cfg, { batchSize: args.batch });
  const second = await writeKgToNeo4j(data, cfg, { batchSize: args.batch });
  let t = performance.now();
  const stats = await neo4jStats(cfg);
  const statsMs = performance.now() - t;
  t = performance.now();
  const back = await readKgFromNeo4j(cfg, { pageSize: args.page });
  const readMs = performance.now() - t;
  const statsOk = JSON.stringify(stats) === JSON.stringify(expected);
  const roundTrip = KgStore.fromData(back).contentHash === KgStore.fromData(data).contentHash;
  const result = {
    server: redactUri(cfg.uri),
    database: cfg.database ?? '(default)',
    entities: first.nodes,
    relations: first.relationships,
    batchSize: args.batch,
    cleared,
    import: { ms: first.ms, entitiesPerS: rate(first.nodes, first.ms), relationsPerS: rate(first.relationships, first.ms), created: first.created },
    rerun: { ms: second.ms, relationsPerS: rate(second.relationships, second.ms), created: second.created },
    statsMs: Math.round(statsMs),
    read: { ms: Math.round(readMs), entitiesPerS: rate(back.entities.length, readMs), relationsPerS: rate(back.relations.length, readMs), pageSize: args.page },
    statsEqualStore: statsOk,
    roundTripSameHash: roundTrip,
  };
  if (args.json) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return;
  }
  const lines = [
    '## Neo4j import',
    '',
    `Server ${result.server}, database ${result.database}; synthetic KG seed ${args.seed}: ${fmt(result.entities)} entities, ${fmt(result.relations)} relations; batch ${fmt(args.batch)} rows per transaction.`,
    '',
    '| step | time | rate |',
    '|---|---:|---:|',
    `| import (empty database) | ${(first.ms / 1000).toFixed(1)} s | ${fmt(result.import.relationsPerS)} relations/s (${fmt(result.import.entitiesPerS)} entities/s overall) |`,
    `| re-run of the same import (idempotent, created ${second.created.nodes} nodes / ${second.created.relationships} relationships) | ${(second.ms / 1000).toFixed(1)} s | ${fmt(result.rerun.relationsPerS)} relations/s |`,
    `| \`neo4jStats\` | ${result.statsMs} ms | |`,
    `| read back (\`readKgFromNeo4j\`, page ${args.page}) | ${(readMs / 1000).toFixed(1)} s | ${fmt(result.read.relationsPerS)} relations/s |`,
    '',
    `Stats equal the embedded store's: ${statsOk ? 'yes' : 'NO'}; read back gives the same content hash: ${roundTrip ? 'yes' : 'NO'}.`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  if (!statsOk || !roundTrip) process.exitCode = 1;
}

main().catch((err) => {
  if (err instanceof FilmkwError) {
    process.stdout.write(`## Neo4j import\n\nFailed: ${err.message}\n`);
    process.exitCode = 1;
  } else throw err;
});
