/**
 * loadKg (src/kg/load.ts): the demo KG by default, csv directories, snapshot files, clear errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadKg, defaultKgDir, progressLines } from '../../src/kg/load.js';
import { saveSnapshot } from '../../src/kg/snapshot.js';
import { FilmkwError } from '../../src/errors.js';

const FIX = fileURLToPath(new URL('../fixtures/kg-sources/', import.meta.url));

test('no options: the bundled demo KG (kg/demo), counts as in kg/demo/README.md', async () => {
  assert.match(defaultKgDir().replace(/\\/g, '/'), /\/kg\/demo\/$/);
  const kg = await loadKg();
  const st = kg.stats();
  assert.deepEqual(st.entities.byKind, { Movie: 56, Person: 287, Character: 180, Genre: 21 });
  assert.deepEqual(st.relations.byKind, { DIRECTED: 63, WROTE: 96, ACTED_IN: 242, HAS_GENRE: 160, ALIAS: 79, PLAYED: 183 });
  // names normalised once (full-width comma folded), surface kept
  const i = kg.lookupName('你好,李焕英');
  assert.equal(i.length, 1);
  assert.deepEqual(kg.surfacesOf(i[0]), ['你好，李焕英']);
  assert.ok(kg.lookup('The Battle at Lake Changjin').length === 1);
});

test('a csv directory and a snapshot of it load to the same content', async () => {
  const warnings: string[] = [];
  const fromCsv = await loadKg({ kg: `${FIX}csv-messy`, onProgress: (m) => warnings.push(m) });
  assert.ok(warnings.some((w) => /row\(s\) skipped: entities\.csv: unknown kind \(e\.g\. csv-messy\/entities\.csv:8: Planet\)/.test(w)), warnings.join('\n'));
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-load-'));
  await saveSnapshot(fromCsv, join(dir, 'k.fkg'));
  const fromSnap = await loadKg({ kg: join(dir, 'k.fkg') });
  assert.equal(fromSnap.contentHash, fromCsv.contentHash);
});

test('errors: missing path, foreign file, --kg with --neo4j', async () => {
  await assert.rejects(loadKg({ kg: '/nonexistent/k.fkg' }), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /k\.fkg: no such file or directory/.test(e.message));
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-load-'));
  writeFileSync(join(dir, 'x.fkg'), 'id,kind,name\n');
  await assert.rejects(loadKg({ kg: join(dir, 'x.fkg') }), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT');
  await assert.rejects(loadKg({ kg: 'a', neo4j: true }), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE');
});

test('progressLines: not a terminal, the last line of each phase (tag --neo4j printed one per page), or one per step (kg import: quarters); a terminal, one a second and the last', () => {
  const pages = (cb: (done: number, total: number, phase: string) => void) => {
    for (let done = 1000; done < 45_976; done += 1000) cb(done, 45_976, 'entities');
    cb(45_976, 45_976, 'entities');
  };
  const log: string[] = [];
  pages(progressLines((l) => log.push(l), { live: false }));
  assert.deepEqual(log, ['neo4j entities 45976/45976']);
  log.length = 0;
  const quarters = progressLines((l) => log.push(l), { live: false, steps: 4 });
  pages(quarters);
  assert.deepEqual(log, ['neo4j entities 12000/45976', 'neo4j entities 23000/45976', 'neo4j entities 35000/45976', 'neo4j entities 45976/45976']);
  pages(quarters); // the next phase through the same callback: the same lines again
  assert.equal(log.length, 8);
  let clock = 0;
  const tty: string[] = [];
  const cb = progressLines((l) => tty.push(l), { live: true, now: () => clock });
  pages((d, t, p) => {
    clock += 250; // four pages a second
    cb(d, t, p);
  });
  assert.equal(tty.length, 12 + 1, 'the first page, one a second after it, and the last');
  assert.equal(tty.at(-1), 'neo4j entities 45976/45976');
});
