/**
 * `csv:<dir>` — the project's own KG format (kg/FORMAT.md): `entities.csv` (id,kind,name,aliases,movie)
 * and `relations.csv` (from,relation,to,movie), streamed with csv-parse. Bad rows are reported with
 * file:line and skipped; a missing file or a wrong header is an input error.
 */
import { join } from 'node:path';
import { inputError } from '../../errors.js';
import { ENTITY_KINDS, type EntityKind } from '../model.js';
import { relationKindOf, type KgMergeBuilder, type SourceCtx } from '../builder.js';
import { displayName, readCsv, requirePath, splitList } from './common.js';

export const ENTITIES_HEADER = ['id', 'kind', 'name', 'aliases', 'movie'] as const;
export const RELATIONS_HEADER = ['from', 'relation', 'to', 'movie'] as const;

function checkHeader(fields: string[], expected: readonly string[], display: string, line: number): void {
  const got = fields.map((f) => f.trim());
  if (got.length !== expected.length || got.some((f, i) => f !== expected[i])) {
    throw inputError(`kg import: ${display}:${line}: header must be "${expected.join(',')}", got "${got.join(',')}"`);
  }
}

export async function readProjectCsv(dir: string, b: KgMergeBuilder, src: SourceCtx): Promise<void> {
  await requirePath(dir, 'kg import: csv source', 'dir');
  for (const f of ['entities.csv', 'relations.csv']) await requirePath(join(dir, f), `kg import: csv source ${dir}`, 'file');
  // entities
  {
    const display = displayName(dir, 'entities.csv');
    let header = true;
    const onBad = (line: number, reason: string) => {
      b.count(src); // an unreadable record is a record read (and skipped)
      b.skip(`entities.csv: ${reason}`, { file: display, line });
    };
    for await (const rec of readCsv(join(dir, 'entities.csv'), display, onBad, { header: true })) {
      const loc = { file: display, line: rec.line };
      if (header) {
        checkHeader(rec.fields, ENTITIES_HEADER, display, rec.line);
        header = false;
        continue;
      }
      b.count(src);
      if (rec.fields.length !== ENTITIES_HEADER.length) {
        b.skip(`entities.csv: wrong number of fields (expected ${ENTITIES_HEADER.length})`, loc, `${rec.fields.length} fields`);
        continue;
      }
      const [id, kindRaw, name, aliases, movie] = rec.fields.map((x) => x.trim());
      if (!(ENTITY_KINDS as readonly string[]).includes(kindRaw)) {
        b.skip(kindRaw === '' ? 'entities.csv: missing field kind' : 'entities.csv: unknown kind', loc, kindRaw);
        continue;
      }
      const kind = kindRaw as EntityKind;
      if (name === '') {
        b.skip('entities.csv: missing field name', loc, id);
        continue;
      }
      if (kind === 'Character' && movie === '') {
        b.skip('entities.csv: missing field movie (Character)', loc, name);
        continue;
      }
      if (kind !== 'Character' && movie !== '') b.drop(`entities.csv: movie column ignored on a ${kind}`, loc, id || name);
      b.entity(
        { id: id === '' ? undefined : id, kind, name: rec.fields[2], aliases: splitList(aliases, /\|/), movieId: kind === 'Character' ? movie : undefined },
        src,
        loc,
      );
    }
    if (header) throw inputError(`kg import: ${display}: empty file (no header)`);
  }
  // relations
  {
    const display = displayName(dir, 'relations.csv');
    let header = true;
    const onBad = (line: number, reason: string) => {
      b.count(src);
      b.skip(`relations.csv: ${reason}`, { file: display, line });
    };
    for await (const rec of readCsv(join(dir, 'relations.csv'), display, onBad, { header: true })) {
      const loc = { file: display, line: rec.line };
      if (header) {
        checkHeader(rec.fields, RELATIONS_HEADER, display, rec.line);
        header = false;
        continue;
      }
      b.count(src);
      if (rec.fields.length !== RELATIONS_HEADER.length) {
        b.skip(`relations.csv: wrong number of fields (expected ${RELATIONS_HEADER.length})`, loc, `${rec.fields.length} fields`);
        continue;
      }
      const [from, label, to, movie] = rec.fields.map((x) => x.trim());
      const missing = from === '' ? 'from' : label === '' ? 'relation' : to === '' ? 'to' : null;
      if (missing) {
        b.skip(`relations.csv: missing field ${missing}`, loc);
        continue;
      }
      const kind = relationKindOf(label);
      if (!kind) {
        b.skip('relations.csv: unknown relation', loc, label);
        continue;
      }
      if (kind === 'PLAYED' && movie === '') {
        b.skip('relations.csv: missing field movie (PLAYED)', loc, `${from} → ${to}`);
        continue;
      }
      if (kind !== 'PLAYED' && movie !== '') b.drop(`relations.csv: movie column ignored on ${kind}`, loc, `${from} → ${to}`);
      b.relation({ kind, from, to, movieId: kind === 'PLAYED' ? movie : undefined }, src, loc);
    }
    if (header) throw inputError(`kg import: ${display}: empty file (no header)`);
  }
}
