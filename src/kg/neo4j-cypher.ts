/**
 * The Cypher of filmkw's Neo4j storage (neo4j.ts, graph model in its header and kg/NEO4J.md), pure and
 * exported for tests: the schema statements, the MERGE statements of the import, the paged read, the
 * counts, the stale-data sweep and the foreign-data check, and the import plan (the data checked with the
 * embedded store's rules, cut into batches of rows). Data travels only in parameters; the only text
 * interpolated into a statement is a label or relationship type from the fixed ENTITY_KINDS /
 * RELATION_KINDS enums, checked before use (test/reliability/neo4j-guards.test.ts checks this statically).
 */
import { FilmkwError } from '../errors.js';
import { sortedUnique } from '../util/sorted.js';
import { ENTITY_KINDS, RELATION_KINDS, type Entity, type EntityKind, type KgData, type Relation, type RelationKind } from './model.js';
import { NEO4J_DEFAULTS, type Neo4jSkip } from './neo4j-config.js';

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

/** The property keys filmkw writes on :Entity nodes (neo4j.ts `writeKgToNeo4j`). */
export const ENTITY_KEYS = ['id', 'name', 'aliases', 'surfaces', 'movieId', 'sourceIds'];

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
