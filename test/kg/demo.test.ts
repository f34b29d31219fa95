/**
 * The bundled demo KG (kg/demo) is valid project-format csv: headers, encoding, ids, kinds, relation
 * ends (per RELATION_ENDS), aliases mirrored by ALIAS relations, PLAYED scoped to its movie, and the
 * content the quick start and the issue example rely on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, readFileSync } from 'node:fs';
import { parse } from 'csv-parse';
import {
  ENTITY_KINDS,
  RELATION_ENDS,
  RELATION_KINDS,
  entityId,
  normalizeName,
  type EntityKind,
  type RelationKind,
} from '../../src/kg/model.js';

const DIR = new URL('../../kg/demo/', import.meta.url);
const ENTITIES = new URL('entities.csv', DIR);
const RELATIONS = new URL('relations.csv', DIR);

/** A csv record plus `line`: the source line number (as a string, like every field). */
type Row = Record<string, string>;

async function readCsv(file: URL, header: string[]): Promise<Row[]> {
  const rows: Row[] = [];
  const parser = createReadStream(file).pipe(parse({ columns: true, info: true, relax_column_count: false }));
  let first = true;
  for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
    if (first) {
      assert.deepEqual(Object.keys(record), header, `${file.pathname}: header`);
      first = false;
    }
    rows.push({ ...record, line: String(info.lines) });
  }
  return rows;
}

const entities = await readCsv(ENTITIES, ['id', 'kind', 'name', 'aliases', 'movie']);
const relations = await readCsv(RELATIONS, ['from', 'relation', 'to', 'movie']);
const byId = new Map(entities.map((e) => [e.id, e]));
const idOf = (kind: EntityKind, name: string, movie?: string): string => entityId(kind, name, movie);
const movieId = (name: string): string => idOf('Movie', name);

test('demo KG files are UTF-8 without BOM, LF line ends, newline-terminated', () => {
  for (const f of [ENTITIES, RELATIONS]) {
    const buf = readFileSync(f);
    assert.ok(!(buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf), `${f.pathname}: BOM`);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    assert.ok(!text.includes('\r'), `${f.pathname}: CR`);
    assert.ok(text.endsWith('\n') && !text.endsWith('\n\n'), `${f.pathname}: must end with exactly one newline`);
  }
});

test('entities: known kinds, unique ids, ids follow the name-based rule, movie only on characters', () => {
  const seen = new Set<string>();
  for (const e of entities) {
    const where = `entities.csv:${e.line}`;
    assert.ok((ENTITY_KINDS as readonly string[]).includes(e.kind), `${where}: kind ${e.kind}`);
    assert.ok(!seen.has(e.id), `${where}: duplicate id ${e.id}`);
    seen.add(e.id);
    assert.ok(e.name.length > 0 && e.name === e.name.trim(), `${where}: name`);
    const kind = e.kind as EntityKind;
    if (kind === 'Character') {
      assert.equal(byId.get(e.movie)?.kind, 'Movie', `${where}: movie ${e.movie} is not a Movie`);
    } else {
      assert.equal(e.movie, '', `${where}: movie set on a ${kind}`);
    }
    assert.equal(e.id, idOf(kind, e.name, e.movie || undefined), `${where}: id`);
    if (e.aliases !== '') {
      assert.equal(kind, 'Movie', `${where}: aliases on a ${kind}`);
      const list = e.aliases.split('|');
      assert.equal(new Set(list).size, list.length, `${where}: duplicate alias`);
      for (const a of list) {
        assert.ok(a.length > 0 && a === normalizeName(a), `${where}: alias "${a}" not normalised`);
        assert.notEqual(a, normalizeName(e.name), `${where}: alias equals the name`);
      }
    }
  }
});

test('relations: known kinds, endpoints exist with the kinds of RELATION_ENDS, no duplicates', () => {
  const seen = new Set<string>();
  for (const r of relations) {
    const where = `relations.csv:${r.line}`;
    assert.ok((RELATION_KINDS as readonly string[]).includes(r.relation), `${where}: relation ${r.relation}`);
    const kind = r.relation as RelationKind;
    const ends = RELATION_ENDS[kind];
    const key = [r.from, r.relation, r.to, r.movie].join('\u0000');
    assert.ok(!seen.has(key), `${where}: duplicate relation`);
    seen.add(key);
    assert.equal(byId.get(r.from)?.kind, ends.from, `${where}: from ${r.from} must be a ${ends.from}`);
    if (ends.to === 'Name') {
      assert.ok(!byId.has(r.to) && r.to === normalizeName(r.to) && r.to !== '', `${where}: ALIAS target must be a normalised name`);
    } else {
      assert.equal(byId.get(r.to)?.kind, ends.to, `${where}: to ${r.to} must be a ${ends.to}`);
    }
    if (kind === 'PLAYED') {
      assert.equal(r.movie, byId.get(r.to)!.movie, `${where}: PLAYED movie must be the character's movie`);
      assert.ok(seen.has([r.from, 'ACTED_IN', r.movie, ''].join('\u0000')), `${where}: the player must act in the movie (ACTED_IN listed before)`);
    } else {
      assert.equal(r.movie, '', `${where}: movie set on ${kind}`);
    }
  }
});

test('aliases in entities.csv and ALIAS relations mirror each other', () => {
  const fromEntities = entities.flatMap((e) => (e.aliases ? e.aliases.split('|').map((a) => `${e.id} ${a}`) : [])).sort();
  const fromRelations = relations.filter((r) => r.relation === 'ALIAS').map((r) => `${r.from} ${r.to}`).sort();
  assert.deepEqual(fromRelations, fromEntities);
});

test('every entity is used; every movie has a director, a writer, 3–6 actors and a genre', () => {
  const used = new Set(relations.flatMap((r) => [r.from, r.to]));
  for (const e of entities) assert.ok(used.has(e.id), `entities.csv:${e.line}: ${e.id} has no relation`);
  for (const m of entities.filter((e) => e.kind === 'Movie')) {
    const count = (k: RelationKind) => relations.filter((r) => r.relation === k && (r.to === m.id || r.from === m.id)).length;
    assert.ok(count('DIRECTED') >= 1, `${m.name}: director`);
    assert.ok(count('WROTE') >= 1, `${m.name}: writer`);
    const actors = count('ACTED_IN');
    assert.ok(actors >= 3 && actors <= 6, `${m.name}: ${actors} actors`);
    assert.ok(count('HAS_GENRE') >= 1, `${m.name}: genre`);
  }
});

test('demo KG content: 30–60 movies, all six relation kinds, the issue example', () => {
  const movies = entities.filter((e) => e.kind === 'Movie');
  assert.ok(movies.length >= 30 && movies.length <= 60, `${movies.length} movies`);
  for (const k of RELATION_KINDS) assert.ok(relations.some((r) => r.relation === k), `no ${k} relation`);
  const cjh = movieId('长津湖');
  const yi = idOf('Person', '易烊千玺');
  const wu = idOf('Character', '伍万里', cjh);
  for (const [id, kind] of [[cjh, 'Movie'], [yi, 'Person'], [wu, 'Character'], [idOf('Person', '吴京'), 'Person']] as const) {
    assert.equal(byId.get(id)?.kind, kind, `${id} present as ${kind}`);
  }
  assert.ok(relations.some((r) => r.relation === 'PLAYED' && r.from === yi && r.to === wu && r.movie === cjh), 'PLAYED 易烊千玺 → 伍万里 in 长津湖');
  assert.ok(relations.some((r) => r.relation === 'ACTED_IN' && r.from === yi && r.to === cjh), 'ACTED_IN 易烊千玺 → 长津湖');
  // Titles that are also common words are present (the title policy is tested against them).
  for (const t of ['英雄', '活着', '家', '无双']) assert.ok(byId.has(movieId(t)), `movie ${t}`);
  assert.ok(byId.get(movieId('肖申克的救赎'))!.aliases.split('|').includes('The Shawshank Redemption'));
});

test('bundled samples (datasets/samples): same 12 texts in jsonl, csv and txt; gold tags in the text; demo KG names', async () => {
  const dir = new URL('../../datasets/samples/', import.meta.url);
  const jsonl = readFileSync(new URL('reviews.jsonl', dir), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { id: string; title: string; text: string; tag: string[] });
  const txt = readFileSync(new URL('reviews.txt', dir), 'utf8').split('\n').filter((l) => l !== '');
  const csv = await readCsv(new URL('reviews.csv', dir), ['id', 'text']);
  assert.ok(jsonl.length >= 8 && jsonl.length <= 12, `${jsonl.length} samples`);
  assert.deepEqual(txt, jsonl.map((o) => o.text));
  assert.deepEqual(csv.map((r) => [r.id, r.text]), jsonl.map((o) => [o.id, o.text]));
  const names = new Set(entities.map((e) => normalizeName(e.name)));
  for (const [i, o] of jsonl.entries()) {
    assert.equal(o.id, `sample-${String(i + 1).padStart(2, '0')}`);
    const len = [...o.text].length;
    assert.ok(len >= 60 && len <= 400, `${o.id}: ${len} characters`);
    assert.equal(o.tag.length, 5, `${o.id}: 5 gold keywords`);
    assert.equal(new Set(o.tag).size, 5, `${o.id}: duplicate gold keyword`);
    for (const t of o.tag) assert.ok(o.text.includes(t), `${o.id}: gold keyword ${t} not in the text`);
    assert.ok(o.tag.some((t) => names.has(t)), `${o.id}: no gold keyword is a demo KG name`);
  }
  assert.ok(jsonl[0].text.includes('以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。'));
});
