import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
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
  await rejects(join(dir, 'newer'), new RegExp(`newer filmkw \\(snapshot format ${SNAPSHOT_FORMAT + 1}; this version reads format ${SNAPSHOT_FORMAT} and older`));
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

test('a format-1 snapshot (JSON string table, no stored index) still loads, with the same content, lookups and names', async () => {
  const fixture = new URL('../fixtures/kg/small-format1.fkg', import.meta.url).pathname;
  const h = await readSnapshotHeader(fixture);
  assert.equal(h.format, 1);
  const warnings: string[] = [];
  const old = await loadSnapshot(fixture, { onWarning: (m) => warnings.push(m) });
  sameStore(KgStore.fromData(smallKg()), old);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^kg snapshot .*small-format1\.fkg: format 1, written by an older filmkw: .* re-run `filmkw kg import`/u);
  // re-saved, it is format 2 and reads back the same
  const p = join(dir, 'from-format1.fkg');
  await saveSnapshot(old, p);
  assert.equal((await readSnapshotHeader(p)).format, SNAPSHOT_FORMAT);
  sameStore(old, await loadSnapshot(p));
});

/** A copy of the snapshot bytes changed by `change` (given the copy and its header), checksum made to match again. */
function tampered(bytes: Buffer, change: (out: Buffer, header: Record<string, unknown>, headerBytes: number) => void): Buffer {
  const out = Buffer.from(bytes);
  const hlen = out.readUInt32LE(8);
  change(out, JSON.parse(out.toString('utf8', 12, 12 + hlen)) as Record<string, unknown>, hlen);
  createHash('sha256').update(out.subarray(0, out.length - 32)).digest().copy(out, out.length - 32);
  return out;
}

/** The snapshot bytes with one int32 of a section changed. */
function tamper(bytes: Buffer, section: string, index: number, value: number): Buffer {
  return tampered(bytes, (out, header) => {
    const s = (header.sections as { name: string; offset: number; count: number }[]).find((x) => x.name === section)!;
    assert.ok(s && index < s.count, `section ${section}[${index}]`);
    out.writeInt32LE(value, s.offset + index * 4);
  });
}

/** The snapshot bytes with its header JSON changed by `edit` (padded to the same length). */
function editHeader(bytes: Buffer, edit: (h: Record<string, unknown>) => void): Buffer {
  return tampered(bytes, (out, header, hlen) => {
    edit(header);
    const text = Buffer.from(JSON.stringify(header), 'utf8');
    assert.ok(text.length <= hlen, 'the edited header fits');
    Buffer.concat([text, Buffer.alloc(hlen - text.length, 0x20)]).copy(out, 12);
  });
}

test('snapshot load: stored tables and name index that do not fit are refused with the section named', async () => {
  const a = KgStore.fromData(smallKg());
  const p = join(dir, 'index.fkg');
  await saveSnapshot(a, p);
  const bytes = readFileSync(p);
  const cases: [string, number, number, RegExp][] = [
    ['index.nameIds', 0, a.entityCount + 3, /inconsistent name index section/],
    ['index.slots', 0, 1 << 20, /inconsistent name index section/],
    ['index.anyOff', 1, -1, /inconsistent name index section/],
    ['names.offsets', 1, 1 << 20, /inconsistent names section/],
    ['surfaces.offsets', 0, 1, /inconsistent surfaces section/],
    ['allAliases.items.offsets', 1, -5, /inconsistent all aliases section/],
  ];
  for (const [section, index, value, re] of cases) {
    const f = join(dir, `tampered-${section}`);
    writeFileSync(f, tamper(bytes, section, index, value));
    await rejects(f, re);
  }
});

test('snapshot load: a name index with a key twice, a bad section count or another preamble format is refused; another normalisation rebuilds the index', async () => {
  const a = KgStore.fromData(smallKg());
  const p = join(dir, 'index2.fkg');
  await saveSnapshot(a, p);
  const bytes = readFileSync(p);
  const slots = a.indexes.nameIndex.slots;
  const at = slots.indexOf(1);
  assert.ok(at >= 0);
  writeFileSync(join(dir, 'twice.fkg'), tamper(bytes, 'index.slots', at, 0));
  await rejects(join(dir, 'twice.fkg'), /inconsistent name index section/);
  writeFileSync(
    join(dir, 'count.fkg'),
    editHeader(bytes, (h) => ((h.sections as { name: string; count: number }[]).find((x) => x.name === 'names.units')!.count = -1)),
  );
  await rejects(join(dir, 'count.fkg'), /corrupt section table \(names\.units\)/);
  writeFileSync(join(dir, 'format.fkg'), editHeader(bytes, (h) => (h.format = 1)));
  await rejects(join(dir, 'format.fkg'), /corrupt header \(format 1 in the header, 2 in the preamble\)/);
  const stored = await loadSnapshot(p);
  assert.equal(stored.indexes.nameIndex.slots.buffer.byteLength, bytes.length, 'the stored index is a view on the file');
  writeFileSync(join(dir, 'norm.fkg'), editHeader(bytes, (h) => (h.nameIndex = 'normalizeName/0')));
  const warnings: string[] = [];
  const rebuilt = await loadSnapshot(join(dir, 'norm.fkg'), { onWarning: (m) => warnings.push(m) });
  assert.match(warnings.join('\n'), /name index was written by another filmkw or Unicode version \(normalizeName\/0;/u);
  assert.notEqual(rebuilt.indexes.nameIndex.slots.buffer.byteLength, bytes.length, 'an index written with another normalisation is rebuilt');
  sameStore(a, rebuilt);
});

test('sourceIds (entity resolution): kept through a snapshot, covered by the content hash only when an entity names another id; a file without the section loads with none', async () => {
  const base = smallKg();
  const plain = KgStore.fromData(base);
  // sourceIds that name only the entity itself are no merge: the same content and hash
  const self = KgStore.fromData({ ...base, entities: base.entities.map((e) => ({ ...e, sourceIds: [e.id] })) });
  assert.equal(self.contentHash, plain.contentHash);
  assert.ok(self.toData().entities.every((e) => e.sourceIds === undefined));
  const person = base.entities.find((e) => e.kind === 'Person')!;
  const merged = KgStore.fromData({ ...base, entities: base.entities.map((e) => (e === person ? { ...e, sourceIds: [`person/name/${e.name}`, e.id, `person/name/${e.name}`] } : e)) });
  assert.notEqual(merged.contentHash, plain.contentHash);
  const i = merged.entityIndex(person.id);
  assert.deepEqual(merged.sourceIdsOf(i), [person.id, `person/name/${person.name}`].sort());
  assert.equal(merged.resolveEntityId(`person/name/${person.name}`), i);
  assert.equal(merged.resolveEntityId(person.id), i);
  assert.equal(merged.resolveEntityId('person/name/nobody'), -1);
  const p = join(dir, 'merged.fkg');
  await saveSnapshot(merged, p);
  const back = await loadSnapshot(p);
  sameStore(merged, back);
  assert.deepEqual(back.sourceIdsOf(i), merged.sourceIdsOf(i));

  // a format-2 file written before the sourceIds section existed: the section table without it (same
  // header length, new checksum) loads with no source ids and the stored content hash
  const q = join(dir, 'plain.fkg');
  await saveSnapshot(plain, q);
  const buf = readFileSync(q);
  const hlen = buf.readUInt32LE(8);
  const header = JSON.parse(buf.toString('utf8', 12, 12 + hlen));
  header.sections = header.sections.filter((s: { name: string }) => !s.name.startsWith('sourceIds.'));
  const text = Buffer.from(JSON.stringify(header), 'utf8');
  const patched = Buffer.from(buf);
  patched.fill(0x20, 12, 12 + hlen);
  text.copy(patched, 12);
  const body = patched.subarray(0, patched.length - 32);
  createHash('sha256').update(body).digest().copy(patched, patched.length - 32);
  const old = join(dir, 'old-format2.fkg');
  writeFileSync(old, patched);
  const loaded = await loadSnapshot(old);
  assert.equal(loaded.contentHash, plain.contentHash);
  assert.ok(loaded.toData().entities.every((e) => e.sourceIds === undefined));
  assert.deepEqual(loaded.toData(), plain.toData());
});
