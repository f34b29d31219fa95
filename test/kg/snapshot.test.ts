import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KgStore } from '../../src/kg/store.js';
import { loadSnapshot, readSnapshotHeader, saveSnapshot, SNAPSHOT_FORMAT } from '../../src/kg/snapshot.js';
import { syntheticKgStore } from '../../src/kg/synthetic.js';
import { FilmkwError } from '../../src/errors.js';
import { smallKg } from '../fixtures/kg/small.js';

const dir = mkdtempSync(join(tmpdir(), 'filmkw-snap-'));

function sameStore(a: KgStore, b: KgStore) {
  assert.equal(b.contentHash, a.contentHash);
  assert.equal(b.entityCount, a.entityCount);
  assert.deepEqual(b.stats(), a.stats());
  for (let i = 0; i < a.entityCount; i++) {
    assert.deepEqual(b.neighbours(i), a.neighbours(i));
    assert.equal(b.idOf(i), a.idOf(i));
    assert.deepEqual(b.aliasesOf(i), a.aliasesOf(i));
    assert.deepEqual(b.lookup(a.nameOf(i)), a.lookup(a.nameOf(i)));
    assert.deepEqual(b.lookupName(a.nameOf(i)), a.lookupName(a.nameOf(i)));
    for (const j of a.neighbours(i)) assert.equal(b.relationCount(i, j), a.relationCount(i, j));
  }
  assert.deepEqual([...b.names()], [...a.names()]);
  assert.deepEqual(b.toData(), a.toData());
}

test('snapshot round trip: small KG keeps content hash, neighbours, lookups, toData', async () => {
  const a = KgStore.fromData(smallKg());
  const p = join(dir, 'small.fkg');
  const { bytes } = await saveSnapshot(a, p);
  assert.equal(bytes, readFileSync(p).length);
  const b = await loadSnapshot(p);
  sameStore(a, b);
  const h = await readSnapshotHeader(p);
  assert.equal(h.contentHash, a.contentHash);
  assert.deepEqual(h.stats, a.stats());
  assert.equal(h.format, SNAPSHOT_FORMAT);
  assert.match(h.createdBy, /^filmkw \d+\.\d+\.\d+/);
  // the same content writes the same bytes (no timestamps)
  await saveSnapshot(KgStore.fromData({ entities: [...smallKg().entities].reverse(), relations: smallKg().relations }), join(dir, 'small2.fkg'));
  assert.deepEqual(readFileSync(join(dir, 'small2.fkg')), readFileSync(p));
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.tmp-')), [], 'no temp file left');
});

test('snapshot round trip: synthetic KG (2k entities, 50k relations) and the empty KG', async () => {
  const a = syntheticKgStore({ entities: 2000, relations: 50_000, seed: 7 });
  const p = join(dir, 'syn.fkg');
  await saveSnapshot(a, p);
  sameStore(a, await loadSnapshot(p));
  const e = KgStore.fromData({ entities: [], relations: [] });
  await saveSnapshot(e, join(dir, 'empty.fkg'));
  sameStore(e, await loadSnapshot(join(dir, 'empty.fkg')));
});

async function rejects(p: string, re: RegExp) {
  await assert.rejects(loadSnapshot(p), (err: unknown) => {
    assert.ok(err instanceof FilmkwError, String(err));
    assert.equal(err.code, 'INPUT');
    assert.ok(err.message.startsWith(`kg snapshot ${p}: `), err.message);
    assert.match(err.message, re);
    return true;
  });
}

test('snapshot load errors: missing, directory, empty, foreign, truncated, newer, corrupt', async () => {
  const a = KgStore.fromData(smallKg());
  const good = join(dir, 'good.fkg');
  await saveSnapshot(a, good);
  const bytes = readFileSync(good);
  await rejects(join(dir, 'missing.fkg'), /no such file/);
  mkdirSync(join(dir, 'adir'));
  await rejects(join(dir, 'adir'), /is a directory/);
  writeFileSync(join(dir, 'empty'), '');
  await rejects(join(dir, 'empty'), /empty file/);
  writeFileSync(join(dir, 'foreign.csv'), 'id,kind,name\n1,Movie,x\n');
  await rejects(join(dir, 'foreign.csv'), /not a filmkw KG snapshot \(bad magic/);
  for (const n of [3, 10, 40, bytes.length >> 1, bytes.length - 1]) {
    writeFileSync(join(dir, `trunc${n}`), bytes.subarray(0, n));
    await rejects(join(dir, `trunc${n}`), n < 5 ? /bad magic/ : /truncated/);
  }
  const newer = Buffer.from(bytes);
  newer.writeUInt16LE(SNAPSHOT_FORMAT + 1, 6);
  writeFileSync(join(dir, 'newer'), newer);
  await rejects(join(dir, 'newer'), /newer filmkw \(snapshot format 2/);
  const flipped = Buffer.from(bytes);
  flipped[bytes.length - 40] ^= 0xff;
  writeFileSync(join(dir, 'flipped'), flipped);
  await rejects(join(dir, 'flipped'), /checksum mismatch/);
  writeFileSync(join(dir, 'extended'), Buffer.concat([bytes, Buffer.from('x')]));
  await rejects(join(dir, 'extended'), /trailing data/);
});

test('saveSnapshot: unwritable target is an OUTPUT error and leaves the old file intact', async () => {
  const a = KgStore.fromData(smallKg());
  await assert.rejects(saveSnapshot(a, join(dir, 'no', 'such', 'dir.fkg')), (e: unknown) => e instanceof FilmkwError && e.code === 'OUTPUT' && /cannot write/.test(e.message));
  const p = join(dir, 'replace.fkg');
  await saveSnapshot(a, p);
  const s2 = syntheticKgStore({ entities: 100, relations: 500, seed: 3 });
  await saveSnapshot(s2, p);
  assert.equal((await loadSnapshot(p)).contentHash, s2.contentHash, 'rename replaces the old file');
});
