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
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import neo4j, { Neo4jError, type Driver, type ManagedTransaction } from 'neo4j-driver';
import { FilmkwError } from '../errors.js';
import {
  ENTITY_KINDS,
  RELATION_KINDS,
  emptyStats,
  type Entity,
  type EntityKind,
  type KgData,
  type KgStats,
  type Relation,
  type RelationKind,
} from './model.js';

export interface Neo4jConfig {
  /** bolt://, bolt+s://, bolt+ssc://, neo4j://, neo4j+s:// or neo4j+ssc:// */
  uri: string;
  user: string;
  password: string;
  /** Database name; the server's default database when absent. */
  database?: string;
  /** Timeouts from the environment (FILMKW_NEO4J_*_MS, see {@link neo4jConfigFromEnv}); a job's own `tuning` wins. */
  tuning?: Partial<Neo4jTuning>;
}

/** Driver timeouts; tests make them small. */
export interface Neo4jTuning {
  /** TCP connect timeout (driver `connectionTimeout`). @default 15000 */
  connectionTimeoutMs: number;
  /** Time to wait for a pooled connection, incl. the Bolt handshake (driver `connectionAcquisitionTimeout`). @default 30000 */
  connectionAcquisitionTimeoutMs: number;
  /** How long a managed transaction is retried on transient errors (driver `maxTransactionRetryTime`). @default 30000 */
  maxTransactionRetryTimeMs: number;
  /**
   * Client-side deadline of one managed transaction, its retries included (and of the connectivity check).
   * The driver has no read timeout unless the server sends one (`connection.recv_timeout_seconds`), so a
   * silent network partition (no RST, no FIN) would otherwise leave a job waiting forever. When the
   * deadline passes the job fails with NEO4J_FAILED (NEO4J_UNAVAILABLE while connecting) and the driver
   * is closed. Keep it well above the time of one batch plus `maxTransactionRetryTimeMs`. @default 300000
   */
  transactionTimeoutMs: number;
  /** How long closing the session and driver may take at the end of a job (a dead peer never answers GOODBYE). @default 2000 */
  closeTimeoutMs: number;
}

export interface Neo4jWriteOptions {
  /** Rows per UNWIND statement (one managed transaction each). @default 5000 */
  batchSize?: number;
  onProgress?: (done: number, total: number, phase: string) => void;
  tuning?: Partial<Neo4jTuning>;
}

export interface Neo4jReadOptions {
  /** Entities per page (with their outgoing relationships). @default 1000 */
  pageSize?: number;
  onProgress?: (done: number, total: number, phase: string) => void;
  /** Called for each node that cannot be read back as an entity (no or several kind labels), which is skipped. */
  onWarning?: (message: string) => void;
  tuning?: Partial<Neo4jTuning>;
}

/** One reason why rows were not written, with the first few examples. */
export interface Neo4jSkip {
  reason: string;
  count: number;
  examples: string[];
}

export interface Neo4jWriteResult {
  /** Entity nodes of the data (MERGEd). */
  nodes: number;
  /**
   * Stale data removed after the MERGEs (see module header): relationships, :Entity nodes and :Alias nodes
   * the KG no longer holds; `keptForeign`: stale :Entity nodes kept because they have a relationship of
   * a type filmkw does not write. All 0 on a re-run of the same import.
   */
  removed: { relationships: number; nodes: number; aliases: number; keptForeign: number };
  /** Relationships written (MERGEd), ALIAS included. */
  relationships: number;
  ms: number;
  /** What the server reported as newly created (0 on a re-run of the same import). */
  created: { nodes: number; relationships: number };
  /**
   * What was written: entity nodes created or changed (properties or kind label), and the properties the
   * server reports as set. Both 0 on a re-run of the same import: an unchanged KG costs no writes.
   */
  written: { nodes: number; properties: number };
  skipped: Neo4jSkip[];
}

export const NEO4J_DEFAULTS = Object.freeze({
  batchSize: 5000,
  pageSize: 1000,
  tuning: Object.freeze({
    connectionTimeoutMs: 15_000,
    connectionAcquisitionTimeoutMs: 30_000,
    maxTransactionRetryTimeMs: 30_000,
    transactionTimeoutMs: 300_000,
    closeTimeoutMs: 2_000,
  } satisfies Neo4jTuning),
  /** At most this many examples per skip reason. */
  skipExamples: 5,
});

const URI_SCHEMES = ['bolt', 'bolt+s', 'bolt+ssc', 'neo4j', 'neo4j+s', 'neo4j+ssc'];

/** Environment variables for {@link Neo4jTuning} fields (milliseconds, positive integers). */
export const NEO4J_TUNING_ENV: Readonly<Record<string, keyof Neo4jTuning>> = Object.freeze({
  FILMKW_NEO4J_CONNECT_TIMEOUT_MS: 'connectionTimeoutMs',
  FILMKW_NEO4J_ACQUISITION_TIMEOUT_MS: 'connectionAcquisitionTimeoutMs',
  FILMKW_NEO4J_RETRY_TIME_MS: 'maxTransactionRetryTimeMs',
  FILMKW_NEO4J_TX_TIMEOUT_MS: 'transactionTimeoutMs',
});

/**
 * Connection settings from NEO4J_URI, NEO4J_USER (@default "neo4j"), NEO4J_PASSWORD and the optional
 * NEO4J_DATABASE, plus optional timeouts from {@link NEO4J_TUNING_ENV} (`tuning`, only when set).
 * Throws FilmkwError('USAGE') when the URI or password is missing, the URI scheme is not a Bolt/Neo4j
 * scheme, or a timeout is not a positive integer.
 */
export function neo4jConfigFromEnv(env: NodeJS.ProcessEnv = process.env): Neo4jConfig {
  const uri = env.NEO4J_URI?.trim();
  if (!uri) throw new FilmkwError('USAGE', 'neo4j: NEO4J_URI is not set (also NEO4J_USER, NEO4J_PASSWORD)');
  const scheme = /^([a-z0-9+]+):\/\//i.exec(uri)?.[1]?.toLowerCase();
  if (!scheme || !URI_SCHEMES.includes(scheme)) {
    throw new FilmkwError(
      'USAGE',
      `neo4j: NEO4J_URI "${redactUri(uri)}" must start with one of ${URI_SCHEMES.map((s) => s + '://').join(', ')}`,
    );
  }
  const password = env.NEO4J_PASSWORD;
  if (password === undefined) throw new FilmkwError('USAGE', 'neo4j: NEO4J_PASSWORD is not set (NEO4J_URI and NEO4J_USER are read too)');
  const user = env.NEO4J_USER?.trim() || 'neo4j';
  const database = env.NEO4J_DATABASE?.trim() || undefined;
  const cfg: Neo4jConfig = database ? { uri, user, password, database } : { uri, user, password };
  for (const [name, field] of Object.entries(NEO4J_TUNING_ENV)) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const ms = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(ms) || ms < 1) throw new FilmkwError('USAGE', `neo4j: ${name} must be a positive integer (milliseconds), got ${JSON.stringify(raw)}`);
    (cfg.tuning ??= {})[field] = ms;
  }
  return cfg;
}

/** The URI without user info (never print a password that was put into the URI). */
export function redactUri(uri: string): string {
  return uri.replace(/^([a-z0-9+]+:\/\/)[^@/]*@/i, '$1');
}

// ---------------------------------------------------------------------------------------------
// Cypher builders (pure; exported for tests). Labels and types are checked against the enums.

function checkEntityKind(kind: string): EntityKind {
  if (!(ENTITY_KINDS as readonly string[]).includes(kind)) throw new Error(`neo4j: not an entity kind: ${JSON.stringify(kind)}`);
  return kind as EntityKind;
}

function checkRelationKind(kind: string): RelationKind {
  if (!(RELATION_KINDS as readonly string[]).includes(kind)) throw new Error(`neo4j: not a relation kind: ${JSON.stringify(kind)}`);
  return kind as RelationKind;
}

/**
 * Schema statements, run first, each in its own transaction: the two uniqueness constraints that every
 * MERGE and read is anchored on. The last one drops `filmkw_entity_name`, an index on :Entity(name) that
 * earlier versions created: no filmkw read uses it, and it only cost writes.
 */
export function schemaStatements(): string[] {
  return [
    'CREATE CONSTRAINT filmkw_entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE',
    'CREATE CONSTRAINT filmkw_alias_name IF NOT EXISTS FOR (n:Alias) REQUIRE n.name IS UNIQUE',
    'DROP INDEX filmkw_entity_name IF EXISTS',
  ];
}

/**
 * MERGE statement for entities of one kind; `$rows`: {@link EntityRow}[]. Writes a node's properties and
 * kind label only when they differ from the row (a re-import of an unchanged KG writes nothing).
 * Returns the rows as `n` and the nodes created or changed as `written`.
 */
export function entityMergeQuery(kind: EntityKind): string {
  const k = checkEntityKind(kind);
  const others = ENTITY_KINDS.filter((x) => x !== k);
  return [
    'UNWIND $rows AS row',
    'MERGE (n:Entity {id: row.id})',
    `WITH n, row, coalesce(n:${k} AND NOT (${others.map((o) => `n:${o}`).join(' OR ')}) AND n.name = row.name AND n.aliases = row.aliases AND n.surfaces = row.surfaces`,
    '  AND (n.movieId = row.movieId OR n.movieId IS NULL AND row.movieId IS NULL)',
    '  AND (n.sourceIds = row.sourceIds OR n.sourceIds IS NULL AND row.sourceIds IS NULL), false) AS same',
    'FOREACH (_ IN CASE WHEN same THEN [] ELSE [1] END |',
    `  SET n:${k}, n.name = row.name, n.aliases = row.aliases, n.surfaces = row.surfaces, n.movieId = row.movieId, n.sourceIds = row.sourceIds`,
    `  REMOVE n:${others.join(':')})`,
    'RETURN count(n) AS n, sum(CASE WHEN same THEN 0 ELSE 1 END) AS written',
  ].join('\n');
}

/** MERGE statement for relations of one kind; `$rows`: {@link RelationRow}[]. Returns the number of rows written as `n`. */
export function relationMergeQuery(kind: RelationKind): string {
  const k = checkRelationKind(kind);
  if (k === 'ALIAS') {
    return [
      'UNWIND $rows AS row',
      'MATCH (a:Entity {id: row.from})',
      'MERGE (x:Alias {name: row.to})',
      'MERGE (a)-[r:ALIAS]->(x)',
      'RETURN count(r) AS n',
    ].join('\n');
  }
  return [
    'UNWIND $rows AS row',
    'MATCH (a:Entity {id: row.from})',
    'MATCH (b:Entity {id: row.to})',
    k === 'PLAYED' ? 'MERGE (a)-[r:PLAYED {movieId: row.movieId}]->(b)' : `MERGE (a)-[r:${k}]->(b)`,
    'RETURN count(r) AS n',
  ].join('\n');
}

/**
 * One page of entities (keyset on id) with their outgoing relationships. Params: $after, $limit, $kinds.
 * The final `ORDER BY id` is required, not cosmetic: Cypher does not carry the order of `WITH ... ORDER BY`
 * over to the next clause (openCypher TCK, WithOrderBy1: "effects ... which are otherwise lost after the WITH
 * clause"; Cypher manual: "The only clause that guarantees a specific row order is ORDER BY"), and the
 * reader takes the last record's id as the next page's `$after`.
 */
export function readPageQuery(): string {
  const types = RELATION_KINDS.filter((k) => k !== 'ALIAS').map(checkRelationKind).join('|');
  return [
    'MATCH (n:Entity)',
    'WHERE n.id > $after',
    'WITH n ORDER BY n.id ASC LIMIT $limit',
    'RETURN n.id AS id, [l IN labels(n) WHERE l IN $kinds] AS kinds, n.name AS name,',
    '  n.aliases AS aliases, n.surfaces AS surfaces, n.movieId AS movieId, n.sourceIds AS sourceIds,',
    `  [(n)-[r:${types}]->(b:Entity) | [type(r), b.id, r.movieId]] AS rels,`,
    '  [(n)-[:ALIAS]->(x:Alias) | x.name] AS aliasNames',
    'ORDER BY id ASC',
  ].join('\n');
}

/**
 * The number of :Entity nodes the paged read must return: those with a non-empty string id (`n.id > ''` is
 * null for a non-string id and false for ""), the same condition as the first page's `n.id > $after`.
 */
export function readCountQuery(): string {
  return "MATCH (n:Entity) WHERE n.id > '' RETURN count(n) AS n";
}

/** Count statements of {@link neo4jStats}: same patterns as the read, so stats(read) = neo4jStats. */
export function statsQueries(): { entities: Record<EntityKind, string>; relations: Record<RelationKind, string> } {
  const entities = {} as Record<EntityKind, string>;
  for (const k of ENTITY_KINDS) entities[k] = `MATCH (n:Entity:${checkEntityKind(k)}) RETURN count(n) AS n`;
  const relations = {} as Record<RelationKind, string>;
  for (const k of RELATION_KINDS) {
    relations[k] =
      k === 'ALIAS'
        ? 'MATCH (:Entity)-[r:ALIAS]->(:Alias) RETURN count(r) AS n'
        : `MATCH (:Entity)-[r:${checkRelationKind(k)}]->(:Entity) RETURN count(r) AS n`;
  }
  return { entities, relations };
}

/**
 * Statements of the stale-data sweep (see module header), per relation kind where they name one:
 *   - `relations(kind)`: every relationship of the kind as `from`, `to`, `movieId` ('' when none);
 *   - `deleteRelations(kind)`: `$rows` {from, to, movieId} — deletes those relationships, returns `n`;
 *   - `ids`: every :Entity node's string id; `deleteNodes`: `$ids` — deletes those nodes unless they have
 *     a relationship of a type not in `$types` (returns `n` deleted);
 *   - `deleteOrphanAliases`: up to `$limit` :Alias nodes without any relationship (returns `n`).
 */
export function sweepQueries(): {
  relations: (kind: RelationKind) => string;
  deleteRelations: (kind: RelationKind) => string;
  ids: string;
  deleteNodes: string;
  deleteOrphanAliases: string;
} {
  // `movieId` is '' for every kind but PLAYED (no property → coalesce), so one statement shape serves all kinds
  const relations = (kind: RelationKind): string => {
    if (kind === 'ALIAS') return "MATCH (a:Entity)-[r:ALIAS]->(x:Alias) WHERE a.id > '' RETURN a.id AS from, x.name AS to, '' AS movieId";
    const k = checkRelationKind(kind);
    return `MATCH (a:Entity)-[r:${k}]->(x:Entity) WHERE a.id > '' RETURN a.id AS from, x.id AS to, coalesce(r.movieId, '') AS movieId`;
  };
  // both ends by their unique index, hinted: on a small graph the planner may prefer an index scan
  const deleteRelations = (kind: RelationKind): string => {
    if (kind === 'ALIAS') {
      return 'UNWIND $rows AS row\nMATCH (a:Entity {id: row.from})-[r:ALIAS]->(x:Alias {name: row.to})\nUSING INDEX SEEK a:Entity(id) USING INDEX SEEK x:Alias(name)\nDELETE r\nRETURN count(*) AS n';
    }
    const k = checkRelationKind(kind);
    return `UNWIND $rows AS row\nMATCH (a:Entity {id: row.from})-[r:${k}]->(x:Entity {id: row.to})\nUSING INDEX SEEK a:Entity(id) USING INDEX SEEK x:Entity(id)\nWHERE coalesce(r.movieId, '') = row.movieId\nDELETE r\nRETURN count(*) AS n`;
  };
  return {
    relations,
    deleteRelations,
    ids: "MATCH (n:Entity) WHERE n.id > '' RETURN n.id AS id",
    deleteNodes: [
      'UNWIND $ids AS id',
      'MATCH (n:Entity {id: id})',
      'USING INDEX SEEK n:Entity(id)',
      'WHERE NOT EXISTS { MATCH (n)-[r]-() WHERE NOT type(r) IN $types }',
      'DETACH DELETE n',
      'RETURN count(*) AS n',
    ].join('\n'),
    deleteOrphanAliases: 'MATCH (x:Alias) WHERE NOT EXISTS { MATCH (x)--() } WITH x LIMIT $limit DELETE x RETURN count(*) AS n',
  };
}

export interface EntityRow {
  id: string;
  name: string;
  aliases: string[];
  surfaces: string[];
  movieId: string | null;
  /** model.ts `Entity.sourceIds`, null when the entity is not a merge (no property). */
  sourceIds: string[] | null;
}

export interface RelationRow {
  from: string;
  to: string;
  /** PLAYED only ("" when the relation has no movie). */
  movieId?: string;
}

export function entityRow(e: Entity): EntityRow {
  return {
    id: e.id,
    name: e.name,
    aliases: [...(e.aliases ?? [])],
    surfaces: [...(e.surfaces ?? [])],
    movieId: e.movieId ?? null,
    sourceIds: e.sourceIds?.length ? [...e.sourceIds] : null,
  };
}

export function relationRow(r: Relation): RelationRow {
  return r.kind === 'PLAYED' ? { from: r.from, to: r.to, movieId: r.movieId ?? '' } : { from: r.from, to: r.to };
}

/** A statement with the rows of one batch. */
export interface ImportBatch {
  phase: 'entities' | 'relations';
  kind: EntityKind | RelationKind;
  query: string;
  rows: EntityRow[] | RelationRow[];
}

export interface ImportPlan {
  entities: number;
  relations: number;
  skipped: Neo4jSkip[];
  /** Batches in write order: all entities (by kind), then relations (by kind). Lazy: rows are built per batch. */
  batches(): Generator<ImportBatch>;
  /** What the graph keeps after the import: the entity ids, and per relation kind the keys {@link relationKey} of its rows. */
  keep(): { ids: ReadonlySet<string>; relations: ReadonlyMap<RelationKind, ReadonlySet<string>> };
}

/** A relation as the sweep compares it: from, to (an alias name for ALIAS) and PLAYED's movie ('' otherwise). */
export const relationKey = (from: string, to: string, movieId: string): string => `${from}\u0000${to}\u0000${movieId}`;

const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const sortedUnique = (xs: readonly string[] | undefined): string[] => [...new Set(xs ?? [])].sort(cmpStr);

/**
 * Checks the data and plans the batches, with the embedded store's rules (KgStore.fromData with
 * `dangling: 'drop'`), so that the graph holds the same content as a store built from the same data:
 *   - entity rows with the same id are merged (surfaces and aliases united) when kind, name and movieId
 *     agree; a later row that disagrees is skipped (the store refuses such data);
 *   - entities of an unknown kind, without id or without name are skipped;
 *   - relations of an unknown kind, whose source/target (or PLAYED movie) is not an entity, and ALIAS
 *     relations with an empty name are skipped; a character whose movie is not an entity loses its movieId;
 *   - surfaces and aliases are written sorted and unique; duplicate relation rows collapse in MERGE.
 * A movieId on a relation other than PLAYED is not stored (only PLAYED carries a movie in the graph
 * model) and is reported. Every skip is reported with a reason, a count and the first examples.
 */
export function planImport(data: KgData, batchSize: number = NEO4J_DEFAULTS.batchSize): ImportPlan {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new FilmkwError('USAGE', `neo4j: batch size must be a positive integer, got ${batchSize}`);
  const skips = new Map<string, Neo4jSkip>();
  const skip = (reason: string, example: string) => {
    let s = skips.get(reason);
    if (!s) skips.set(reason, (s = { reason, count: 0, examples: [] }));
    s.count++;
    if (s.examples.length < NEO4J_DEFAULTS.skipExamples) s.examples.push(example);
  };
  // entities: validate and merge duplicates (first row's position kept)
  const byId = new Map<string, Entity>();
  const order: Entity[] = [];
  for (const e of data.entities) {
    if (!(ENTITY_KINDS as readonly string[]).includes(e?.kind)) {
      skip('entity kind is not one of ' + ENTITY_KINDS.join('/'), `${e?.id} (${String(e?.kind)})`);
      continue;
    }
    if (typeof e.id !== 'string' || e.id === '') {
      skip('entity without id', `${e.kind} ${e.name}`);
      continue;
    }
    if (typeof e.name !== 'string') {
      skip('entity without name', e.id);
      continue;
    }
    const prev = byId.get(e.id);
    if (prev) {
      if (prev.kind !== e.kind || prev.name !== e.name || (prev.movieId ?? '') !== (e.movieId ?? '')) {
        skip('entity id repeated with a different kind, name or movieId (first kept)', e.id);
      } else {
        prev.surfaces.push(...(e.surfaces ?? []));
        prev.aliases.push(...(e.aliases ?? []));
        if (e.sourceIds?.length) prev.sourceIds = [...(prev.sourceIds ?? []), ...e.sourceIds];
      }
      continue;
    }
    const copy: Entity = { id: e.id, kind: e.kind, name: e.name, surfaces: [...(e.surfaces ?? [])], aliases: [...(e.aliases ?? [])] };
    if (e.movieId !== undefined) copy.movieId = e.movieId;
    if (e.sourceIds?.length) copy.sourceIds = [...e.sourceIds];
    byId.set(e.id, copy);
    order.push(copy);
  }
  for (const e of order) {
    e.surfaces = sortedUnique(e.surfaces);
    e.aliases = sortedUnique(e.aliases);
    // as the store: sorted, unique, with the entity's own id, and none when it names no other id
    if (e.sourceIds) {
      const ids = sortedUnique([...e.sourceIds, e.id]);
      if (ids.length > 1) e.sourceIds = ids;
      else delete e.sourceIds;
    }
    if (e.movieId !== undefined && !byId.has(e.movieId)) {
      skip("character's movie is not an entity of the data (movieId not written)", `${e.id} → ${e.movieId}`);
      delete e.movieId;
    }
  }
  // relations: validate
  const relOk = new Uint8Array(data.relations.length);
  const relCount = new Map<RelationKind, number>();
  data.relations.forEach((r, i) => {
    const desc = () => `${r.from} ${String(r.kind)} ${r.to}${r.movieId !== undefined ? ` (movie ${r.movieId})` : ''}`;
    if (!(RELATION_KINDS as readonly string[]).includes(r?.kind)) return skip('relation kind is not one of ' + RELATION_KINDS.join('/'), desc());
    if (!byId.has(r.from)) return skip('relation source is not an entity of the data', desc());
    if (r.kind === 'ALIAS') {
      if (typeof r.to !== 'string' || r.to === '') return skip('ALIAS with an empty name', desc());
    } else if (!byId.has(r.to)) return skip('relation target is not an entity of the data', desc());
    if (r.movieId !== undefined) {
      if (!byId.has(r.movieId)) return skip('relation movie is not an entity of the data', desc());
      if (r.kind !== 'PLAYED') skip('movieId on a relation other than PLAYED is not stored (relation written without it)', desc());
    }
    relOk[i] = 1;
    relCount.set(r.kind, (relCount.get(r.kind) ?? 0) + 1);
  });
  const relations = relOk.reduce((a, b) => a + b, 0);
  return {
    entities: order.length,
    relations,
    skipped: [...skips.values()],
    keep() {
      const rels = new Map<RelationKind, Set<string>>(RELATION_KINDS.map((k) => [k, new Set<string>()]));
      data.relations.forEach((r, i) => {
        if (!relOk[i]) return;
        const row = relationRow(r);
        rels.get(r.kind)!.add(relationKey(row.from, row.to, row.movieId ?? ''));
      });
      return { ids: new Set(byId.keys()), relations: rels };
    },
    *batches() {
      for (const kind of ENTITY_KINDS) {
        const query = entityMergeQuery(kind);
        let rows: EntityRow[] = [];
        for (const e of order) {
          if (e.kind !== kind) continue;
          rows.push(entityRow(e));
          if (rows.length === batchSize) {
            yield { phase: 'entities', kind, query, rows };
            rows = [];
          }
        }
        if (rows.length) yield { phase: 'entities', kind, query, rows };
      }
      for (const kind of RELATION_KINDS) {
        if (!relCount.get(kind)) continue;
        const query = relationMergeQuery(kind);
        let rows: RelationRow[] = [];
        for (let i = 0; i < data.relations.length; i++) {
          const r = data.relations[i];
          if (!relOk[i] || r.kind !== kind) continue;
          rows.push(relationRow(r));
          if (rows.length === batchSize) {
            yield { phase: 'relations', kind, query, rows };
            rows = [];
          }
        }
        if (rows.length) yield { phase: 'relations', kind, query, rows };
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Errors

type Phase = 'connect' | 'schema' | 'write' | 'read';

const AUTH_CODES = new Set([
  'Neo.ClientError.Security.Unauthorized',
  'Neo.ClientError.Security.AuthenticationRateLimit',
  'Neo.ClientError.Security.CredentialsExpired',
  'Neo.ClientError.Security.TokenExpired',
]);

const CONNECT_CAUSE = /no answer from the server|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|ECONNRESET|EPIPE|closed by server|Connection acquisition timed out|Failed to connect|Could not perform discovery|No routing servers|connection timeout/i;

/** One line: the "Caused by" part of the driver's message if any, else its first sentence; no newlines. */
function shortCause(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown; cause?: unknown };
  let msg = typeof e?.message === 'string' ? e.message : String(err);
  const caused = /Caused by:\s*(.+)$/s.exec(msg);
  if (caused) msg = caused[1];
  else if (/^Failed to connect to server/.test(msg) && e.cause) msg = shortCause(e.cause);
  else if (/^Could not perform discovery/.test(msg) && e.cause) msg = `${shortCause(e.cause)} (routing discovery)`;
  msg = msg.replace(/\s+/g, ' ').trim();
  if (msg.length > 240) msg = msg.slice(0, 237) + '...';
  return msg;
}

function codeOf(err: unknown): string {
  const c = (err as { code?: unknown })?.code;
  return typeof c === 'string' ? c : '';
}

/**
 * Maps any error from the driver to a FilmkwError with one clear line:
 *   - NEO4J_AUTH: the server rejected the credentials (Unauthorized, rate limit, expired credentials);
 *   - NEO4J_UNAVAILABLE: the server cannot be reached while connecting (refused, unknown host, closed
 *     during the handshake, acquisition timeout, ServiceUnavailable/SessionExpired at connect);
 *   - NEO4J_FAILED: everything else, in particular losing the server during a job after the driver's
 *     retries (the message then says "after retries"), a query error, an unknown database; the
 *     message says that the import can be re-run and converges.
 * `ctx.phase` @default 'connect'. A FilmkwError is returned unchanged.
 */
export function classifyNeo4jError(err: unknown, ctx: { uri?: string; user?: string; phase?: Phase; database?: string } = {}): FilmkwError {
  if (err instanceof FilmkwError) return err;
  const phase = ctx.phase ?? 'connect';
  const where = ctx.uri ? ` at ${redactUri(ctx.uri)}` : '';
  const code = codeOf(err);
  const cause = shortCause(err);
  if (AUTH_CODES.has(code)) {
    const who = ctx.user ? ` for user "${ctx.user}"` : '';
    return new FilmkwError('NEO4J_AUTH', `neo4j: authentication failed${who}${where}: ${cause} [${code}]; check NEO4J_USER and NEO4J_PASSWORD`, { cause: err });
  }
  if (code === 'Neo.ClientError.Database.DatabaseNotFound') {
    const db = ctx.database ? ` "${ctx.database}"` : '';
    return new FilmkwError('NEO4J_FAILED', `neo4j: database${db} does not exist${where} (check NEO4J_DATABASE): ${cause}`, { cause: err });
  }
  const message = String((err as Error)?.message ?? '');
  const connectish = code === neo4j.error.SERVICE_UNAVAILABLE || code === neo4j.error.SESSION_EXPIRED || CONNECT_CAUSE.test(message);
  const codeText = code && code !== 'N/A' ? ` [${code}]` : '';
  if (phase === 'connect') {
    const protocol = code === neo4j.error.PROTOCOL_ERROR || /Bolt protocol|handshake|protocol version|responded HTTP/i.test(message);
    if (connectish || protocol) {
      const hint = protocol && !connectish ? '; is it a Neo4j 5 server speaking Bolt?' : '';
      return new FilmkwError('NEO4J_UNAVAILABLE', `neo4j: cannot connect to ${ctx.uri ? redactUri(ctx.uri) : 'the server'}: is the server running? (${cause}${hint})`, { cause: err });
    }
    return new FilmkwError('NEO4J_FAILED', `neo4j: connecting${where} failed: ${cause}${codeText}`, { cause: err });
  }
  const job = phase === 'read' ? 'reading the KG' : phase === 'schema' ? 'creating the constraints' : 'the import';
  const rerun = phase === 'read' ? 'the read can be retried' : 'the import can be re-run and converges to the same graph (MERGE)';
  const lost = connectish ? 'lost the server' : 'failed';
  const retried = neo4j.isRetryableError(err) ? ' after retries' : '';
  return new FilmkwError('NEO4J_FAILED', `neo4j: ${job}${where} ${lost}${retried}: ${cause}${codeText}; ${rerun}`, { cause: err });
}

// ---------------------------------------------------------------------------------------------
// Driver plumbing

/** The client-side deadline passed: the server (or the network to it) went silent. */
class NoAnswerError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`no answer from the server in ${ms} ms (network partition or stuck server?)`);
    this.name = 'NoAnswerError';
  }
}

/** `p`, or a NoAnswerError after `ms` (p keeps running; its late rejection is swallowed). */
function deadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      p.catch(() => undefined);
      reject(new NoAnswerError(ms));
    }, ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/** Closes a session or driver, giving up after `ms` (a partitioned peer never answers). Never throws. */
async function closeWithin(x: { close(): Promise<void> }, ms: number): Promise<void> {
  await deadline(x.close(), ms).catch(() => undefined);
}

function openDriver(cfg: Neo4jConfig, t: Neo4jTuning): Driver {
  try {
    return neo4j.driver(cfg.uri, neo4j.auth.basic(cfg.user, cfg.password), {
      disableLosslessIntegers: true,
      connectionTimeout: t.connectionTimeoutMs,
      connectionAcquisitionTimeout: t.connectionAcquisitionTimeoutMs,
      maxTransactionRetryTime: t.maxTransactionRetryTimeMs,
      userAgent: 'filmkw',
    });
  } catch (err) {
    throw new FilmkwError('USAGE', `neo4j: bad NEO4J_URI "${redactUri(cfg.uri)}": ${shortCause(err)}`, { cause: err });
  }
}

/**
 * The TCP sockets each job's driver opened. The driver does not track a connection that is still in its
 * Bolt handshake: when acquiring it times out (a peer that accepts TCP but never answers), `driver.close()`
 * leaves that socket open, and an open socket keeps the process alive after the job has failed. Node
 * publishes every `net.connect` socket on the `net.client.socket` diagnostics channel; the job's
 * AsyncLocalStorage context (which the driver's connection set-up runs in) attributes it to the job, so
 * {@link withDriver} can destroy what is still open once the driver is closed, without touching sockets of
 * other jobs or other code of the process. TLS schemes (`+s`, `+ssc`) open theirs through `tls.connect`,
 * which is not published; the CLI's launcher ends the process after the command in any case.
 */
const jobSockets = new AsyncLocalStorage<Set<Socket>>();
subscribe('net.client.socket', (msg) => {
  jobSockets.getStore()?.add((msg as { socket: Socket }).socket);
});

/** Destroys the sockets a job's driver left open (see {@link jobSockets}); returns how many. */
function destroyLeftSockets(sockets: Set<Socket>): number {
  let n = 0;
  for (const s of sockets) {
    if (!s.destroyed) {
      s.destroy();
      n++;
    }
  }
  sockets.clear();
  return n;
}

/** What a job gets from {@link withDriver}. */
interface JobCtx {
  driver: Driver;
  setPhase: (p: Phase) => void;
  /** Bounds one managed transaction (retries included) by `transactionTimeoutMs`. */
  guard: <T>(p: Promise<T>) => Promise<T>;
  /** Closes a session within `closeTimeoutMs`. */
  closeSession: (s: { close(): Promise<void> }) => Promise<void>;
}

/**
 * Opens a driver, checks connectivity and credentials, runs `job`, always closes the driver (within
 * `closeTimeoutMs`). Tuning: defaults, then `cfg.tuning` (environment), then the job's `tuning`.
 */
async function withDriver<T>(cfg: Neo4jConfig, tuning: Partial<Neo4jTuning> | undefined, job: (ctx: JobCtx) => Promise<T>): Promise<T> {
  const sockets = new Set<Socket>();
  return jobSockets.run(sockets, () => withDriverIn(sockets, cfg, tuning, job));
}

async function withDriverIn<T>(sockets: Set<Socket>, cfg: Neo4jConfig, tuning: Partial<Neo4jTuning> | undefined, job: (ctx: JobCtx) => Promise<T>): Promise<T> {
  const t: Neo4jTuning = { ...NEO4J_DEFAULTS.tuning, ...cfg.tuning, ...tuning };
  const driver = openDriver(cfg, t);
  let phase: Phase = 'connect';
  let silent = false; // a deadline passed: the connection is dead, a graceful close would only wait
  const guard = <U>(p: Promise<U>) =>
    deadline(p, t.transactionTimeoutMs).catch((e: unknown) => {
      if (e instanceof NoAnswerError) silent = true;
      throw e;
    });
  const closeSession = async (s: { close(): Promise<void> }) => {
    if (!silent) await closeWithin(s, t.closeTimeoutMs);
  };
  try {
    await guard(driver.verifyConnectivity(cfg.database ? { database: cfg.database } : {}));
    return await job({ driver, setPhase: (p) => (phase = p), guard, closeSession });
  } catch (err) {
    // a plain exception without a driver/system error code is a bug of ours: keep it (internal error)
    if (!(err instanceof Neo4jError) && !(err instanceof FilmkwError) && !codeOf(err)) throw err;
    throw classifyNeo4jError(err, { uri: cfg.uri, user: cfg.user, phase, database: cfg.database });
  } finally {
    // the driver's close also closes connections in use (the hung one included)
    await closeWithin(driver, silent ? Math.min(t.closeTimeoutMs, 1000) : t.closeTimeoutMs);
    destroyLeftSockets(sockets);
  }
}

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (neo4j.isInt(v)) return (v as { toNumber(): number }).toNumber();
  if (typeof v === 'bigint') return Number(v);
  return v == null ? 0 : Number(v);
}

function sessionFor(driver: Driver, cfg: Neo4jConfig) {
  return driver.session(cfg.database ? { database: cfg.database } : {});
}

// ---------------------------------------------------------------------------------------------
// Public jobs

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

/** The property keys filmkw writes on :Entity nodes (src/kg/neo4j.ts import). */
const ENTITY_KEYS = ['id', 'name', 'aliases', 'surfaces', 'movieId', 'sourceIds'];

/**
 * Statements that find data filmkw did not write (params `$kinds`, `$keys`, `$types`), at most 5 examples
 * each: a node that is neither an `:Entity` with exactly one kind label, a non-empty string id and only
 * filmkw's property keys, nor an `:Alias` with only a `name`; a relationship of a type filmkw does not write.
 */
export function foreignDataQueries(): { nodes: string; relationships: string } {
  return {
    nodes: [
      'MATCH (n)',
      'WHERE NOT coalesce(',
      '  (n:Entity AND size(labels(n)) = 2 AND any(l IN labels(n) WHERE l IN $kinds) AND n.id > \'\' AND all(k IN keys(n) WHERE k IN $keys))',
      "  OR (n:Alias AND size(labels(n)) = 1 AND keys(n) = ['name']), false)",
      'WITH n LIMIT 5',
      'RETURN labels(n) AS labels, keys(n) AS keys',
    ].join('\n'),
    relationships: 'MATCH ()-[r]->() WHERE NOT type(r) IN $types WITH r LIMIT 5 RETURN type(r) AS type',
  };
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
