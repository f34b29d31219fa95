/**
 * `csv:<dir>` — the project's own KG format (kg/FORMAT.md): `entities.csv` (id,kind,name,aliases,movie)
 * and `relations.csv` (from,relation,to,movie), streamed with csv-parse. Bad rows are reported with
 * file:line and skipped; a missing file or a wrong header is an input error.
 */
import { join } from 'node:path';
import { inputError } from '../../errors.js';
import { ENTITY_KINDS, type EntityKind } from '../model.js';
import { relationKindOf, type KgMergeBuilder, type SourceCtx } from '../builder.js';
import { displayName, readCsv, requirePath, splitList, type Loc } from './common.js';

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
  await readTable(dir, 'entities.csv', ENTITIES_HEADER, b, src, entityRow);
  await readTable(dir, 'relations.csv', RELATIONS_HEADER, b, src, relationRow);
}

/** One row of a table (its field count already checked) into the builder, or skipped with its reason. */
type RowReader = (fields: string[], loc: Loc, b: KgMergeBuilder, src: SourceCtx) => void;

/**
 * The loop both tables share: the header checked, every record counted (an unreadable one too, then
 * skipped), a record with the wrong number of fields skipped, the others to `row`; a file without even a
 * header is an input error.
 */
async function readTable(dir: string, file: string, expected: readonly string[], b: KgMergeBuilder, src: SourceCtx, row: RowReader): Promise<void> {
  const display = displayName(dir, file);
  let header = true;
  const onBad = (line: number, reason: string) => {
    b.count(src); // an unreadable record is a record read (and skipped)
    b.skip(`${file}: ${reason}`, { file: display, line });
  };
  for await (const rec of readCsv(join(dir, file), display, onBad, { header: true })) {
    const loc = { file: display, line: rec.line };
    if (header) {
      checkHeader(rec.fields, expected, display, rec.line);
      header = false;
      continue;
    }
    b.count(src);
    if (rec.fields.length !== expected.length) b.skip(`${file}: wrong number of fields (expected ${expected.length})`, loc, `${rec.fields.length} fields`);
    else row(rec.fields, loc, b, src);
  }
  if (header) throw inputError(`kg import: ${display}: empty file (no header)`);
}

function entityRow(fields: string[], loc: Loc, b: KgMergeBuilder, src: SourceCtx): void {
  const [id, kindRaw, name, aliases, movie] = fields.map((x) => x.trim());
  if (!(ENTITY_KINDS as readonly string[]).includes(kindRaw)) return b.skip(kindRaw === '' ? 'entities.csv: missing field kind' : 'entities.csv: unknown kind', loc, kindRaw);
  const kind = kindRaw as EntityKind;
  if (name === '') return b.skip('entities.csv: missing field name', loc, id);
  if (kind === 'Character' && movie === '') return b.skip('entities.csv: missing field movie (Character)', loc, name);
  if (kind !== 'Character' && movie !== '') b.drop(`entities.csv: movie column ignored on a ${kind}`, loc, id || name);
  b.entity({ id: id === '' ? undefined : id, kind, name: fields[2], aliases: splitList(aliases, /\|/), movieId: kind === 'Character' ? movie : undefined }, src, loc);
}

function relationRow(fields: string[], loc: Loc, b: KgMergeBuilder, src: SourceCtx): void {
  const [from, label, to, movie] = fields.map((x) => x.trim());
  const missing = from === '' ? 'from' : label === '' ? 'relation' : to === '' ? 'to' : null;
  if (missing) return b.skip(`relations.csv: missing field ${missing}`, loc);
  const kind = relationKindOf(label);
  if (!kind) return b.skip('relations.csv: unknown relation', loc, label);
  if (kind === 'PLAYED' && movie === '') return b.skip('relations.csv: missing field movie (PLAYED)', loc, `${from} → ${to}`);
  if (kind !== 'PLAYED' && movie !== '') b.drop(`relations.csv: movie column ignored on ${kind}`, loc, `${from} → ${to}`);
  b.relation({ kind, from, to, movieId: kind === 'PLAYED' ? movie : undefined }, src, loc);
}
