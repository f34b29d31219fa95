/**
 * Neo4j 5 storage of the film KG (issues 2, 5, 6) with the official neo4j-driver.
 *
 * Graph model (documented in kg/NEO4J.md):
 *   - every entity is a node `(:Entity:<Kind> {id, name, aliases, surfaces, movieId?, sourceIds?})`, Kind
 *     one of ENTITY_KINDS; `id` is unique (constraint `filmkw_entity_id` on :Entity(id)); `sourceIds`
 *     only on an entity merged at import (model.ts `Entity.sourceIds`).
 *   - DIRECTED / WROTE / ACTED_IN / HAS_GENRE / PLAYED are relationships between :Entity nodes in the
 *     direction of RELATION_ENDS; PLAYED carries `movieId` and is MERGEd on it (one PLAYED per movie;
 *     a PLAYED relation without a movie is stored with movieId "" and read back without one).
 *   - ALIAS relations point to `(:Alias {name})` nodes (unique name, constraint `filmkw_alias_name`);
 *     the movie's `aliases` list property holds Entity.aliases. Both are kept so that reading the
 *     graph back gives the same KgData (and content hash) as was written, and so that the ALIAS count
 *     of {@link neo4jStats} equals the number of ALIAS relations, as in the embedded store.
 *   - Alias nodes are not entities: they are not counted in the entity totals.
 *
 * Writes: uniqueness constraints first (CREATE CONSTRAINT ... IF NOT EXISTS), then batched
 * `UNWIND $rows AS row MERGE ...` statements in managed write transactions (session.executeWrite,
 * which the driver retries with exponential backoff on transient errors, ServiceUnavailable and
 * SessionExpired until `maxTransactionRetryTime`). Data travels only in parameters; the only text
 * interpolated into a statement is a label or relationship type from the fixed ENTITY_KINDS /
 * RELATION_KINDS enums, checked before use. MERGE makes the import idempotent: running it again, or
 * re-running it after a failure half-way, converges to the same graph.
 *
 * Stale data (issue 25): after the MERGEs, the import removes what filmkw wrote earlier and the KG no
 * longer holds — relationships of filmkw's types between :Entity nodes (or to :Alias nodes) that are not
 * relations of the KG, :Entity nodes whose id is not an entity of the KG (an entity merged at import,
 * such as `person/name/张艺谋` into `person/douban/1054398`: its relations already are on the kept node),
 * and :Alias nodes left without an ALIAS relationship. So an import onto a database written by an older
 * filmkw (duplicates, junk aliases) leaves the same graph as an import onto an empty one. A stale node
 * with a relationship of a type filmkw does not write is not data of filmkw's alone: it is kept and
 * counted (`removed.keptForeign`).
 *
 * Timeouts: besides the driver's connect / acquisition / retry settings, every managed transaction (its
 * retries included) and the connectivity check run under a client-side deadline (`transactionTimeoutMs`),
 * because the driver has no read timeout of its own: a silent network partition would otherwise hang
 * the job forever. Closing sessions and the driver is bounded too. The CLI takes them from the
 * environment (FILMKW_NEO4J_TX_TIMEOUT_MS and friends, {@link NEO4J_TUNING_ENV}).
 *
 * Reads: keyset paging over :Entity ordered by id, each page with its outgoing relationships, in
 * managed read transactions; the number of entities read is checked against a count taken first.
 * Integers come back as JS numbers (`disableLosslessIntegers`); counts are converted defensively anyway.
 *
 * Modules: neo4j-config.ts (settings, options, defaults), neo4j-cypher.ts (every statement and the import
 * plan), neo4j-errors.ts (error classification), neo4j-driver.ts (driver, deadlines, sockets); this module
 * holds the jobs and re-exports the others' public names.
 */
import neo4j, { type ManagedTransaction } from 'neo4j-driver';
import { FilmkwError } from '../errors.js';
import { cmpStr } from '../util/sorted.js';
import { ENTITY_KINDS, RELATION_KINDS, emptyStats, type Entity, type EntityKind, type KgData, type KgStats, type Relation, type RelationKind } from './model.js';
import { NEO4J_DEFAULTS, redactUri, type Neo4jConfig, type Neo4jReadOptions, type Neo4jTuning, type Neo4jWriteOptions, type Neo4jWriteResult } from './neo4j-config.js';
import {
  ENTITY_KEYS,
  foreignDataQueries,
  planImport,
  readCountQuery,
  readPageQuery,
  relationKey,
  schemaStatements,
  statsQueries,
  sweepQueries,
  type ImportPlan,
  type RelationRow,
} from './neo4j-cypher.js';
import { num, sessionFor, withDriver } from './neo4j-driver.js';

export * from './neo4j-config.js';
export * from './neo4j-cypher.js';
export { classifyNeo4jError } from './neo4j-errors.js';

/**
 * Writes `data` into Neo4j (idempotent MERGE import, see module header). Throws FilmkwError with code
 * NEO4J_UNAVAILABLE / NEO4J_AUTH / NEO4J_FAILED (see {@link classifyNeo4jError}).
 */
export async function writeKgToNeo4j(data: KgData, cfg: Neo4jConfig, opts: Neo4jWriteOptions = {}): Promise<Neo4jWriteResult> {
  const t0 = performance.now();
  const plan = planImport(data, opts.batchSize ?? NEO4J_DEFAULTS.batchSize);
  return withDriver(cfg, opts.tuning, async ({ driver, setPhase, guard, closeSession }) => {
    const session = sessionFor(driver, cfg);
    const created = { nodes: 0, relationships: 0 };
    const written = { nodes: 0, properties: 0 };
    const lost = new Map<string, number>();
    let nodes = 0;
    let relationships = 0;
    try {
      setPhase('schema');
      const schema = schemaStatements();
      for (let i = 0; i < schema.length; i++) {
        await guard(session.executeWrite((tx: ManagedTransaction) => tx.run(schema[i])));
        opts.onProgress?.(i + 1, schema.length, 'schema');
      }
      setPhase('write');
      for (const b of plan.batches()) {
        const res = await guard(
          session.executeWrite(async (tx: ManagedTransaction) => {
            const r = await tx.run(b.query, { rows: b.rows });
            const u = r.summary.counters.updates();
            const rec = r.records[0];
            return {
              n: num(rec?.get('n')),
              written: b.phase === 'entities' ? num(rec?.get('written')) : 0,
              nodesCreated: u.nodesCreated,
              relsCreated: u.relationshipsCreated,
              propertiesSet: u.propertiesSet,
            };
          }),
        );
        created.nodes += b.phase === 'entities' ? res.nodesCreated : 0;
        created.relationships += res.relsCreated;
        written.nodes += res.written;
        written.properties += res.propertiesSet;
        if (res.n < b.rows.length) lost.set(String(b.kind), (lost.get(String(b.kind)) ?? 0) + b.rows.length - res.n);
        if (b.phase === 'entities') {
          nodes += res.n;
          opts.onProgress?.(nodes, plan.entities, 'entities');
        } else {
          relationships += res.n;
          opts.onProgress?.(relationships, plan.relations, 'relations');
        }
      }
    } finally {
      await closeSession(session);
    }
    const skipped = [...plan.skipped];
    for (const [kind, count] of lost) {
      skipped.push({ reason: `${kind}: endpoint node not found in the database while writing (deleted concurrently?)`, count, examples: [] });
    }
    let removed: Neo4jWriteResult['removed'];
    const sweepSession = sessionFor(driver, cfg);
    try {
      removed = await sweepStale(sweepSession, plan, guard, opts);
    } finally {
      await closeSession(sweepSession);
    }
    return { nodes, relationships, ms: Math.round(performance.now() - t0), created, written, removed, skipped };
  });
}

type Session = ReturnType<typeof sessionFor>;

/**
 * Removes what the KG no longer holds (module header, "Stale data"): relationships first, then nodes
 * (with the relationships they still have), then orphaned :Alias nodes; batches of `batchSize`.
 */
async function sweepStale(
  session: Session,
  plan: ImportPlan,
  guard: <T>(p: Promise<T>) => Promise<T>,
  opts: Neo4jWriteOptions,
): Promise<Neo4jWriteResult['removed']> {
  const q = sweepQueries();
  const batchSize = opts.batchSize ?? NEO4J_DEFAULTS.batchSize;
  const keep = plan.keep();
  const removed = { relationships: 0, nodes: 0, aliases: 0, keptForeign: 0 };
  const write = async (query: string, params: Record<string, unknown>) =>
    num(await guard(session.executeWrite(async (tx: ManagedTransaction) => (await tx.run(query, params)).records[0]?.get('n'))));
  for (const kind of RELATION_KINDS) {
    const wanted = keep.relations.get(kind)!;
    const records = await guard(session.executeRead(async (tx: ManagedTransaction) => (await tx.run(q.relations(kind))).records));
    const stale: RelationRow[] = [];
    const seen = new Set<string>();
    for (const rec of records) {
      const row = { from: rec.get('from') as string, to: rec.get('to') as string, movieId: rec.get('movieId') as string };
      const key = relationKey(row.from, row.to, row.movieId);
      if (typeof row.to !== 'string' || wanted.has(key) || seen.has(key)) continue;
      seen.add(key);
      stale.push(row);
    }
    for (let i = 0; i < stale.length; i += batchSize) {
      removed.relationships += await write(q.deleteRelations(kind), { rows: stale.slice(i, i + batchSize) });
      opts.onProgress?.(Math.min(i + batchSize, stale.length), stale.length, `removing stale ${kind}`);
    }
  }
  const ids = await guard(session.executeRead(async (tx: ManagedTransaction) => (await tx.run(q.ids)).records.map((r) => r.get('id') as string)));
  const staleIds = ids.filter((id) => !keep.ids.has(id)).sort(cmpStr);
  for (let i = 0; i < staleIds.length; i += batchSize) {
    const batch = staleIds.slice(i, i + batchSize);
    const n = await write(q.deleteNodes, { ids: batch, types: [...RELATION_KINDS] });
    removed.nodes += n;
    removed.keptForeign += batch.length - n;
    opts.onProgress?.(Math.min(i + batchSize, staleIds.length), staleIds.length, 'removing stale entities');
  }
  for (;;) {
    const n = await write(q.deleteOrphanAliases, { limit: neo4j.int(batchSize) });
    removed.aliases += n;
    if (n === 0) break;
  }
  return removed;
}

/**
 * Connects, checks connectivity and credentials (what every job starts with) and closes: lets a caller
 * fail fast, before long work, on a wrong URI or password. Throws like the jobs (NEO4J_UNAVAILABLE,
 * NEO4J_AUTH, NEO4J_FAILED, see {@link classifyNeo4jError}).
 */
export async function verifyNeo4j(cfg: Neo4jConfig, opts: { tuning?: Partial<Neo4jTuning> } = {}): Promise<void> {
  await withDriver(cfg, opts.tuning, async () => undefined);
}

/** Reads the whole filmkw KG back from Neo4j with keyset-paged read transactions. */
export async function readKgFromNeo4j(cfg: Neo4jConfig, opts: Neo4jReadOptions = {}): Promise<KgData> {
  const pageSize = opts.pageSize ?? NEO4J_DEFAULTS.pageSize;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new FilmkwError('USAGE', `neo4j: page size must be a positive integer, got ${pageSize}`);
  return withDriver(cfg, opts.tuning, async ({ driver, setPhase, guard, closeSession }) => {
    setPhase('read');
    const session = sessionFor(driver, cfg);
    const entities: Entity[] = [];
    const relations: Relation[] = [];
    const query = readPageQuery();
    const seen = new Set<string>();
    try {
      const total = num(await guard(session.executeRead(async (tx: ManagedTransaction) => (await tx.run(readCountQuery())).records[0]?.get('n'))));
      let after = '';
      for (;;) {
        const records = await guard(
          session.executeRead(async (tx: ManagedTransaction) => (await tx.run(query, { after, limit: neo4j.int(pageSize), kinds: [...ENTITY_KINDS] })).records),
        );
        if (records.length === 0) break;
        for (const rec of records) {
          const id = rec.get('id') as string;
          after = id;
          // A node seen on the previous page again (possible only if the server's sort and its `>` disagree
          // on some strings) is read once; pages stay contiguous, so nothing is skipped by it.
          if (seen.has(id)) continue;
          seen.add(id);
          const kinds = rec.get('kinds') as string[];
          if (kinds.length !== 1) {
            opts.onWarning?.(`neo4j: node ${JSON.stringify(id)} has ${kinds.length ? 'several kind labels (' + kinds.join(', ') + ')' : 'no kind label'}; skipped with its relations`);
            continue;
          }
          const e: Entity = {
            id,
            kind: kinds[0] as EntityKind,
            name: (rec.get('name') as string | null) ?? '',
            surfaces: (rec.get('surfaces') as string[] | null) ?? [],
            aliases: (rec.get('aliases') as string[] | null) ?? [],
          };
          const movieId = rec.get('movieId') as string | null;
          if (movieId != null) e.movieId = movieId;
          const sourceIds = rec.get('sourceIds') as string[] | null;
          if (sourceIds?.length) e.sourceIds = sourceIds;
          entities.push(e);
          for (const [kind, to, mid] of rec.get('rels') as [RelationKind, string, string | null][]) {
            const r: Relation = { kind, from: id, to };
            if (kind === 'PLAYED' && mid) r.movieId = mid;
            relations.push(r);
          }
          for (const name of rec.get('aliasNames') as string[]) relations.push({ kind: 'ALIAS', from: id, to: name });
        }
        opts.onProgress?.(entities.length, total, 'entities');
        if (records.length < pageSize) break;
      }
      // Pages are separate transactions: a write between them (or a server whose paging order is not
      // consistent) would otherwise give a partial KG without a word.
      if (seen.size !== total) {
        throw new FilmkwError(
          'NEO4J_FAILED',
          `neo4j: reading the KG at ${redactUri(cfg.uri)} gave an inconsistent result (${seen.size} of ${total} :Entity nodes came back; was the graph written to during the read?); the read can be retried`,
        );
      }
    } finally {
      await closeSession(session);
    }
    return { entities, relations };
  });
}

/** Counts by kind, with the same patterns as {@link readKgFromNeo4j}, in one read transaction. */
export async function neo4jStats(cfg: Neo4jConfig, opts: { tuning?: Partial<Neo4jTuning> } = {}): Promise<KgStats> {
  return withDriver(cfg, opts.tuning, async ({ driver, setPhase, guard, closeSession }) => {
    setPhase('read');
    const q = statsQueries();
    const session = sessionFor(driver, cfg);
    try {
      return await guard(session.executeRead(async (tx: ManagedTransaction) => {
        const stats = emptyStats();
        for (const k of ENTITY_KINDS) {
          const n = num((await tx.run(q.entities[k])).records[0]?.get('n'));
          stats.entities.byKind[k] = n;
          stats.entities.total += n;
        }
        for (const k of RELATION_KINDS) {
          const n = num((await tx.run(q.relations[k])).records[0]?.get('n'));
          stats.relations.byKind[k] = n;
          stats.relations.total += n;
        }
        return stats;
      }));
    } finally {
      await closeSession(session);
    }
  });
}

/**
 * Examples (up to 5 each) of nodes and relationships in the database that filmkw did not write, see
 * {@link foreignDataQueries}; both lists empty when the database holds only filmkw's KG (or nothing).
 */
export async function foreignDataInNeo4j(cfg: Neo4jConfig, opts: { tuning?: Partial<Neo4jTuning> } = {}): Promise<{ nodes: string[]; relationships: string[] }> {
  return withDriver(cfg, opts.tuning, async ({ driver, setPhase, guard, closeSession }) => {
    setPhase('read');
    const session = sessionFor(driver, cfg);
    try {
      return await guard(session.executeRead((tx: ManagedTransaction) => foreignIn(tx)));
    } finally {
      await closeSession(session);
    }
  });
}

async function foreignIn(tx: ManagedTransaction): Promise<{ nodes: string[]; relationships: string[] }> {
  const q = foreignDataQueries();
  const nodes = (await tx.run(q.nodes, { kinds: [...ENTITY_KINDS], keys: ENTITY_KEYS })).records.map(
    (r) => `(${(r.get('labels') as string[]).map((l) => `:${l}`).join('')} {${(r.get('keys') as string[]).join(', ')}})`,
  );
  const relationships = (await tx.run(q.relationships, { types: [...RELATION_KINDS] })).records.map((r) => `[:${r.get('type') as string}]`);
  return { nodes, relationships };
}

/**
 * Deletes every filmkw node (:Entity, :Alias) and its relationships, in batches of `batchSize`
 * relationships / nodes per transaction (used by tests and benchmarks on a scratch database).
 * Refuses (NEO4J_FAILED, nothing deleted) when the database holds data filmkw did not write
 * ({@link foreignDataInNeo4j}): `:Entity` is a common label, and this is meant for a scratch database.
 * Returns the numbers deleted.
 */
export async function clearKgInNeo4j(
  cfg: Neo4jConfig,
  opts: { batchSize?: number; tuning?: Partial<Neo4jTuning> } = {},
): Promise<{ nodes: number; relationships: number }> {
  const limit = neo4j.int(opts.batchSize ?? 10_000);
  return withDriver(cfg, opts.tuning, async ({ driver, setPhase, guard, closeSession }) => {
    setPhase('read');
    const session = sessionFor(driver, cfg);
    const out = { nodes: 0, relationships: 0 };
    try {
      const foreign = await guard(session.executeRead((tx: ManagedTransaction) => foreignIn(tx)));
      if (foreign.nodes.length || foreign.relationships.length) {
        const db = cfg.database ? ` "${cfg.database}"` : '';
        throw new FilmkwError(
          'NEO4J_FAILED',
          `neo4j: refusing to delete filmkw's nodes: the database${db} at ${redactUri(cfg.uri)} holds data filmkw did not write (e.g. ${[...foreign.nodes, ...foreign.relationships].slice(0, 3).join(', ')}); use a scratch database (NEO4J_DATABASE or another server)`,
        );
      }
      setPhase('write');
      const loop = async (query: string): Promise<number> => {
        let total = 0;
        for (;;) {
          const n = num(await guard(session.executeWrite(async (tx: ManagedTransaction) => (await tx.run(query, { limit })).records[0]?.get('n'))));
          total += n;
          if (n === 0) return total;
        }
      };
      out.relationships = await loop('MATCH (:Entity)-[r]->() WITH r LIMIT $limit DELETE r RETURN count(*) AS n');
      out.nodes = await loop('MATCH (n) WHERE n:Entity OR n:Alias WITH n LIMIT $limit DETACH DELETE n RETURN count(*) AS n');
    } finally {
      await closeSession(session);
    }
    return out;
  });
}
