/**
 * Test helper: the bundled demo KG (kg/demo csv) as a snapshot file, built with the io readers and
 * KgStore.fromData — so the tag tests run whether or not the KG loader (src/kg/load.ts) is built.
 */
import { createReadStream, mkdtempSync } from 'node:fs';
import { parseCsvRows } from '../../src/io/csv.js';
import { splitLines } from '../../src/io/lines.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KgStore } from '../../src/kg/store.js';
import { saveSnapshot } from '../../src/kg/snapshot.js';
import type { Entity, EntityKind, KgData, Relation, RelationKind } from '../../src/kg/model.js';

const demoDir = fileURLToPath(new URL('../../kg/demo/', import.meta.url));

async function rows(file: string): Promise<string[][]> {
  const out: string[][] = [];
  let header = true;
  for await (const r of parseCsvRows(splitLines(createReadStream(join(demoDir, file))), { maxRecordBytes: 1 << 20 })) {
    if ('error' in r) throw new Error(`${file}:${r.line}: ${r.error}`);
    if (header) header = false;
    else out.push(r.fields);
  }
  return out;
}

export async function demoKgData(): Promise<KgData> {
  const entities: Entity[] = (await rows('entities.csv')).map(([id, kind, name, aliases, movie]) => {
    const e: Entity = { id, kind: kind as EntityKind, name, surfaces: [name], aliases: aliases ? aliases.split('|') : [] };
    if (movie) e.movieId = movie;
    return e;
  });
  const relations: Relation[] = (await rows('relations.csv')).map(([from, kind, to, movie]) => {
    const r: Relation = { kind: kind as RelationKind, from, to };
    if (movie) r.movieId = movie;
    return r;
  });
  return { entities, relations };
}

let cached: Promise<string> | undefined;
/** Path of a snapshot of the demo KG (written once per process). */
export function demoSnapshot(): Promise<string> {
  cached ??= (async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'filmkw-demo-kg-')), 'demo.fkg');
    await saveSnapshot(KgStore.fromData(await demoKgData()), path);
    return path;
  })();
  return cached;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  demoSnapshot().then((p) => console.log(p));
}
