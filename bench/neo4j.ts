/**
 * Neo4j benchmark (issue 18): on the merged real KG (the three Douban sources of ../shared/data/kg, README
 * "Build the knowledge graph"), against the server of NEO4J_URI (e.g. `eval "$(npm run -s neo4j:start)"`):
 *   - import rate of `writeKgToNeo4j` into an empty database (relations/s, entities/s), and of a re-run of
 *     the same import (which writes nothing: `written` 0);
 *   - load time of the KG for tagging: `loadKg({ neo4j: true })` (paged read + store build) against
 *     `loadKg({ kg: snapshot })`;
 *   - `filmkw tag` on the annotated film texts (dev + train, 400 documents) with `--neo4j` against
 *     `--kg <snapshot>`: wall time of the whole command, its setup (KG load + extractor) and docs/s as the
 *     command reports them; the two outputs must be byte-identical.
 *
 *   node --import tsx bench/neo4j.ts [--batch N] [--reps N] [--json]     (npm run bench -- neo4j)
 *
 * Prints a skip section without NEO4J_URI or without ../shared/data. WARNING: it deletes filmkw's nodes
 * (:Entity, :Alias) of the target database first; clearKgInNeo4j refuses when the database holds anything
 * filmkw did not write.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilmkwError } from '../src/errors.js';
import { importSources } from '../src/kg/import.js';
import { loadKg } from '../src/kg/load.js';
import { clearKgInNeo4j, neo4jConfigFromEnv, neo4jStats, NEO4J_DEFAULTS, redactUri, writeKgToNeo4j } from '../src/kg/neo4j.js';
import { saveSnapshot } from '../src/kg/snapshot.js';
import { bin, distState, root } from './_cli.js';

const DATA = process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data');
const SOURCES = [
  `openkg:${join(DATA, 'kg', 'openkg-douban-movie')}`,
  `kgqa:${join(DATA, 'kg', 'douban-kgqa-small')}`,
  `douban-csv:${join(DATA, 'kg', 'douban-movies-2065', 'douban_all_movies.csv')}`,
];
const TEXTS = ['film-dev.jsonl', 'film-train.jsonl'].map((f) => join(DATA, 'annotated', f));

interface Args {
  batch: number;
  reps: number;
  json: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { batch: NEO4J_DEFAULTS.batchSize, reps: 3, json: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) throw new Error(`bench/neo4j: ${k} needs a positive integer`);
      return v;
    };
    if (k === '--batch') a.batch = num();
    else if (k === '--reps') a.reps = num();
    else if (k === '--json') a.json = true;
    else throw new Error(`bench/neo4j: unknown option ${k}`);
  }
  return a;
}

const rate = (n: number, ms: number) => Math.round((n / Math.max(ms, 1)) * 1000);
const fmt = (n: number) => n.toLocaleString('en-US');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function skip(why: string): void {
  process.stdout.write(`## Neo4j\n\nSkipped: ${why}\n`);
}

/** One `filmkw tag` run: wall ms, and setup s / docs/s from its summary line. */
function tagRun(args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; setupS: number; docsPerS: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, 'tag', ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      const m = /tag: \d+ records .*?, ([\d.]+) docs\/s, .*setup ([\d.]+) s/.exec(stderr);
      if (code !== 0 || !m) reject(new Error(`filmkw tag ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
      else resolve({ ms, setupS: Number(m[2]), docsPerS: Number(m[1]), stdout });
    });
  });
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!process.env.NEO4J_URI) return skip('set NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD (e.g. `eval "$(npm run -s neo4j:start)"`; the bench deletes filmkw\'s nodes of that database) to measure Neo4j.');
  if (!existsSync(join(DATA, 'kg', 'openkg-douban-movie')) || !TEXTS.every(existsSync)) return skip(`the merged KG and the annotated texts of ${DATA} are absent.`);
  if (!distState().built) return skip('needs `npm run build` (the tag runs use bin/filmkw).');
  const cfg = neo4jConfigFromEnv();
  const tmp = mkdtempSync(join(tmpdir(), 'filmkw-bench-neo4j-'));
  try {
    const imported = await importSources(SOURCES);
    const data = imported.store.toData();
    const expected = imported.store.stats();
    const snap = join(tmp, 'merged.fkg');
    await saveSnapshot(imported.store, snap);
    const docsFile = join(tmp, 'film-texts.jsonl');
    writeFileSync(docsFile, TEXTS.map((f) => readFileSync(f, 'utf8').trimEnd()).join('\n') + '\n');
    const docs = readFileSync(docsFile, 'utf8').trimEnd().split('\n').length;

    const cleared = await clearKgInNeo4j(cfg);
    const first = await writeKgToNeo4j(data, cfg, { batchSize: args.batch });
    const second = await writeKgToNeo4j(data, cfg, { batchSize: args.batch });
    const statsOk = JSON.stringify(await neo4jStats(cfg)) === JSON.stringify(expected);

    // KG load for tagging, alternating the two sources
    const loadNeo: number[] = [];
    const loadSnap: number[] = [];
    let sameHash = true;
    for (let i = 0; i < args.reps; i++) {
      let t = performance.now();
      const a = await loadKg({ neo4j: true });
      loadNeo.push(performance.now() - t);
      t = performance.now();
      const b = await loadKg({ kg: snap });
      loadSnap.push(performance.now() - t);
      sameHash &&= a.contentHash === b.contentHash;
    }

    // filmkw tag, whole command, alternating
    const env = { ...process.env };
    const tagArgs = ['--id-field', 'id', docsFile];
    const viaNeo: Awaited<ReturnType<typeof tagRun>>[] = [];
    const viaSnap: Awaited<ReturnType<typeof tagRun>>[] = [];
    for (let i = 0; i < args.reps; i++) {
      viaNeo.push(await tagRun(['--neo4j', ...tagArgs], env));
      viaSnap.push(await tagRun(['--kg', snap, ...tagArgs], env));
    }
    const identical = viaNeo.every((r) => r.stdout === viaSnap[0].stdout) && viaSnap.every((r) => r.stdout === viaSnap[0].stdout);
    const tagRow = (rs: typeof viaNeo) => ({ wallS: median(rs.map((r) => r.ms)) / 1000, setupS: median(rs.map((r) => r.setupS)), docsPerS: median(rs.map((r) => r.docsPerS)), endToEndDocsPerS: Math.round(docs / (median(rs.map((r) => r.ms)) / 1000)) });

    const result = {
      server: redactUri(cfg.uri),
      database: cfg.database ?? '(default)',
      entities: first.nodes,
      relations: first.relationships,
      batchSize: args.batch,
      cleared,
      import: { ms: first.ms, relationsPerS: rate(first.relationships, first.ms), entitiesPerS: rate(first.nodes, first.ms), created: first.created },
      rerun: { ms: second.ms, relationsPerS: rate(second.relationships, second.ms), created: second.created, written: second.written },
      load: { neo4jMs: Math.round(median(loadNeo)), snapshotMs: Math.round(median(loadSnap)), sameContentHash: sameHash },
      tag: { docs, neo4j: tagRow(viaNeo), snapshot: tagRow(viaSnap), identical },
      statsEqualSnapshot: statsOk,
    };
    if (args.json) {
      process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    } else {
      const t = result.tag;
      const lines = [
        '## Neo4j',
        '',
        `Server ${result.server} (Neo4j 5.26 community of \`npm run neo4j:start\`: heap 1g, page cache 256m), database ${result.database}; merged KG of the three Douban sources: ${fmt(result.entities)} entities, ${fmt(result.relations)} relations; ${fmt(args.batch)} rows per transaction. Medians of ${args.reps} alternating runs where repeated.`,
        '',
        '| step | time | rate |',
        '|---|---:|---:|',
        `| import into an empty database (\`kg import --neo4j\` write phase) | ${(first.ms / 1000).toFixed(1)} s | **${fmt(result.import.relationsPerS)} relations/s** (${fmt(result.import.entitiesPerS)} entities/s overall) |`,
        `| re-run of the same import (created ${second.created.nodes}/${second.created.relationships}, written ${second.written.nodes} nodes / ${second.written.properties} properties) | ${(second.ms / 1000).toFixed(1)} s | ${fmt(result.rerun.relationsPerS)} relations/s |`,
        `| load the KG for tagging from Neo4j (\`loadKg({neo4j: true})\`, pages of ${fmt(NEO4J_DEFAULTS.pageSize)} entities) | ${(result.load.neo4jMs / 1000).toFixed(2)} s | |`,
        `| load the KG for tagging from the snapshot (\`loadKg({kg})\`) | ${(result.load.snapshotMs / 1000).toFixed(2)} s | ${(result.load.neo4jMs / Math.max(result.load.snapshotMs, 1)).toFixed(1)}× faster |`,
        '',
        `\`filmkw tag\` on ${docs} annotated film texts (film-dev + film-train), preset filmkw, 1 worker:`,
        '',
        '| KG | whole command | setup (KG + extractor) | docs/s (tagging) | docs/s (whole command) |',
        '|---|---:|---:|---:|---:|',
        `| \`--neo4j\` | ${t.neo4j.wallS.toFixed(2)} s | ${t.neo4j.setupS.toFixed(1)} s | ${fmt(t.neo4j.docsPerS)} | ${fmt(t.neo4j.endToEndDocsPerS)} |`,
        `| \`--kg\` snapshot | ${t.snapshot.wallS.toFixed(2)} s | ${t.snapshot.setupS.toFixed(1)} s | ${fmt(t.snapshot.docsPerS)} | ${fmt(t.snapshot.endToEndDocsPerS)} |`,
        '',
        `Checks: \`kg stats\` of Neo4j equals the snapshot's: ${statsOk ? 'yes' : 'NO'}; the KG loaded from Neo4j has the snapshot's content hash: ${sameHash ? 'yes' : 'NO'}; \`tag --neo4j\` output byte-identical to \`tag --kg\`: ${identical ? 'yes' : 'NO'}.`,
        '',
      ];
      process.stdout.write(lines.join('\n'));
    }
    if (!statsOk || !sameHash || !identical) process.exitCode = 1;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  if (err instanceof FilmkwError) {
    process.stdout.write(`## Neo4j\n\nFailed: ${err.message}\n`);
    process.exitCode = 1;
  } else throw err;
});
