/**
 * KG snapshot file: one binary file holding a {@link KgStore} so that loading builds nothing: every
 * section, strings and name index included, is used as it is, as a typed-array view on the file's bytes
 * (format 2; issue 6, cold start: format 1 stored the strings as JSON and rebuilt the name index at every
 * load; its cost: bench/README.md "Figures behind code comments").
 *
 * Layout (all integers little-endian; every section starts at a multiple of 8 bytes):
 *   0   5 bytes  magic "FKWKG"
 *   5   1 byte   0x00
 *   6   2 bytes  format version (uint16), currently {@link SNAPSHOT_FORMAT}
 *   8   4 bytes  header length H (uint32)
 *   12  H bytes  header JSON (utf-8): counts, contentHash, stats, createdBy, fileBytes, and the section
 *                table [{name, type, offset, count}] (offsets from the start of the file)
 *   …   sections (zero padding between them), all typed arrays (u8, u16 or i32):
 *                string tables (src/kg/packed.ts StringTable: `<t>.units` u16, `<t>.offsets` i32) for
 *                ids, names, aliasNames; per-entity lists (ListColumn: `<l>.offsets` i32 and the string
 *                table `<l>.items`) for surfaces, aliases, sourceIds and allAliases (aliases ∪ ALIAS
 *                targets); `sourceIds` (model.ts `Entity.sourceIds`) may be absent: files written before
 *                entity resolution (2026-12) have none and load with empty lists;
 *                kinds u8, movieOf i32, relKind u8, relFrom i32, relTo i32, relMovie i32, nbOffsets i32,
 *                nbTargets i32, nbCounts i32; the name index (NameIndex): string table `index.keys`,
 *                `index.slots`, `index.nameOff`, `index.nameIds`, `index.anyOff`, `index.anyIds` (i32)
 *   end 32 bytes sha256 of every byte before it
 *
 * Format 1 (filmkw before 2026-11-24: a "strings" section of UTF-8 JSON {ids, names, surfaces, aliases,
 * aliasNames} and the same typed columns, no index) is still read; the index is then built at load.
 *
 * Writes are atomic: a temp file in the target directory, fsync, rename over the target, fsync of the
 * directory. A kill at any point leaves the old file (or none) and at most a stray `.<name>.tmp-<pid>-*`
 * file, which the next save to the same path removes once process <pid> is gone.
 * Every way a file can be unreadable (missing, empty, truncated, foreign, newer format, corrupt) is a
 * FilmkwError('INPUT', 'kg snapshot <path>: <reason>').
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, readFileSync } from 'node:fs';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FilmkwError, inputError, writeFailureReason } from '../errors.js';
import { KgStore, LITTLE_ENDIAN, leBytes, packColumns, type KgColumns, type KgIndexes } from './store.js';
import { ListColumn, NameIndex, StringTable } from './packed.js';
import type { KgStats } from './model.js';

export const SNAPSHOT_MAGIC = 'FKWKG';
export const SNAPSHOT_FORMAT = 2;
const PREAMBLE = 12;

/**
 * Largest snapshot file read, bytes (2 GiB: the merged real KG is a few tens of MB, the paper-scale
 * synthetic KG a few hundred). A bigger file, or one that is not a regular file (a FIFO, a device), is
 * refused before any read, so a KG path given by an untrusted queue job can neither block a worker nor
 * fill its memory (issue 26).
 */
export const MAX_SNAPSHOT_BYTES = 2 ** 31;

/**
 * Open a snapshot file for reading: without blocking (O_NONBLOCK: opening a FIFO with no writer would
 * wait for ever), then refused unless it is a regular file of at most {@link MAX_SNAPSHOT_BYTES}.
 */
async function openSnapshot(path: string): Promise<{ fh: import('node:fs/promises').FileHandle; size: number }> {
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw openError(err, path);
  }
  const st = await fh.stat();
  if (!st.isFile()) {
    await fh.close();
    throw inputError(`kg snapshot ${path}: ${st.isDirectory() ? 'is a directory, not a snapshot file' : 'not a regular file (a FIFO, socket or device); a KG snapshot must be a file'}`);
  }
  if (st.size > MAX_SNAPSHOT_BYTES) {
    await fh.close();
    throw inputError(`kg snapshot ${path}: ${st.size} bytes, over the ${MAX_SNAPSHOT_BYTES}-byte bound of a snapshot`);
  }
  return { fh, size: st.size };
}
const CHECKSUM = 32;
let createdByCache: string | undefined;
/** "filmkw <version>" from the package.json two levels up (the same from src/kg and dist/kg). */
function createdBy(): string {
  if (createdByCache === undefined) {
    try {
      createdByCache = `filmkw ${(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version}`;
    } catch {
      createdByCache = 'filmkw';
    }
  }
  return createdByCache;
}

type SectionType = 'json' | 'u8' | 'u16' | 'i32';
interface Section {
  name: string;
  type: SectionType;
  offset: number;
  /** elements (bytes for json/u8, uint16 values for u16, int32 values for i32). */
  count: number;
}
type Typed = Uint8Array | Uint16Array | Int32Array;

/** The header of a snapshot file. */
export interface SnapshotHeader {
  format: number;
  createdBy: string;
  fileBytes: number;
  entityCount: number;
  relationCount: number;
  aliasNameCount: number;
  neighbourSlots: number;
  contentHash: string;
  stats: KgStats;
  sections: Section[];
  /**
   * Format 2: how the stored name index normalised names ({@link NAME_INDEX_VERSION} and the Unicode
   * version of the writer's ICU); a loader whose normalisation differs rebuilds the index instead.
   */
  nameIndex?: string;
}

/** The name normalisation behind a stored index (model.ts `normalizeName`: NFKC, whitespace collapsed, trimmed). */
export const NAME_INDEX_VERSION = 'normalizeName/1';
const nameIndexStamp = (): string => `${NAME_INDEX_VERSION} unicode ${process.versions.unicode}`;

/** The typed columns that both formats hold under these names. */
const TYPED: [keyof KgColumns, 'u8' | 'i32'][] = [
  ['kinds', 'u8'],
  ['movieOf', 'i32'],
  ['relKind', 'u8'],
  ['relFrom', 'i32'],
  ['relTo', 'i32'],
  ['relMovie', 'i32'],
  ['nbOffsets', 'i32'],
  ['nbTargets', 'i32'],
  ['nbCounts', 'i32'],
];

const pad8 = (n: number) => (n + 7) & ~7;
const bytesOf = (type: SectionType, count: number) => (type === 'i32' ? count * 4 : type === 'u16' ? count * 2 : count);

const tableSections = (name: string, t: StringTable): [string, SectionType, Typed][] => [
  [`${name}.units`, 'u16', t.units],
  [`${name}.offsets`, 'i32', t.offsets],
];
const listSections = (name: string, l: ListColumn): [string, SectionType, Typed][] => [
  [`${name}.offsets`, 'i32', l.offsets],
  ...tableSections(`${name}.items`, l.items),
];

/** Every section of a format-2 snapshot of the store, in file order. */
function sectionsOf(store: KgStore): [string, SectionType, Typed][] {
  const c = store.cols;
  const x = store.indexes;
  const n = x.nameIndex;
  return [
    ...tableSections('ids', c.ids),
    ...tableSections('names', c.names),
    ...listSections('surfaces', c.surfaces),
    ...listSections('aliases', c.aliases),
    ...listSections('sourceIds', c.sourceIds),
    ...tableSections('aliasNames', c.aliasNames),
    ...TYPED.map(([name, type]): [string, SectionType, Typed] => [name, type, c[name] as Typed]),
    ...listSections('allAliases', x.allAliases),
    ...tableSections('index.keys', n.keys),
    ['index.slots', 'i32', n.slots],
    ['index.nameOff', 'i32', n.nameOff],
    ['index.nameIds', 'i32', n.nameIds],
    ['index.anyOff', 'i32', n.anyOff],
    ['index.anyIds', 'i32', n.anyIds],
  ];
}

/** Writes the store to `path` atomically; returns the file size. */
export async function saveSnapshot(store: KgStore, path: string): Promise<{ bytes: number }> {
  const c = store.cols;
  const payload = sectionsOf(store).map(([name, type, a]) => ({ name, type, data: leBytes(a), count: a.length }));
  // the header's size depends on the offsets it lists: iterate until stable (offsets only grow)
  let headerBuf = Buffer.alloc(0);
  let header!: SnapshotHeader;
  for (let guess = 512; ; ) {
    let off = pad8(PREAMBLE + guess);
    const sections: Section[] = payload.map((p) => {
      const s = { name: p.name, type: p.type, offset: off, count: p.count };
      off = pad8(off + bytesOf(p.type, p.count));
      return s;
    });
    header = {
      format: SNAPSHOT_FORMAT,
      createdBy: createdBy(),
      fileBytes: off + CHECKSUM,
      entityCount: store.entityCount,
      relationCount: c.relKind.length,
      aliasNameCount: c.aliasNames.length,
      neighbourSlots: c.nbTargets.length,
      contentHash: store.contentHash,
      stats: store.stats(),
      sections,
      nameIndex: nameIndexStamp(),
    };
    headerBuf = Buffer.from(JSON.stringify(header), 'utf8');
    if (headerBuf.length <= guess) {
      headerBuf = Buffer.concat([headerBuf, Buffer.alloc(guess - headerBuf.length, 0x20)]);
      break;
    }
    guess = pad8(headerBuf.length + 64);
  }
  const pre = Buffer.alloc(PREAMBLE);
  pre.write(SNAPSHOT_MAGIC, 0, 'latin1');
  pre.writeUInt16LE(SNAPSHOT_FORMAT, 6);
  pre.writeUInt32LE(headerBuf.length, 8);

  const dir = dirname(path);
  await sweepStaleTemps(dir, basename(path));
  const tmp = join(dir, `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const hash = createHash('sha256');
  let fh;
  try {
    fh = await open(tmp, 'wx', 0o644);
  } catch (err) {
    throw writeError(err, path);
  }
  let pos = 0;
  const write = async (b: Uint8Array) => {
    hash.update(b);
    // large arrays in 16 MB slices (fs write limits, steady memory)
    for (let o = 0; o < b.length; o += 1 << 24) {
      const part = b.subarray(o, Math.min(b.length, o + (1 << 24)));
      let done = 0;
      while (done < part.length) done += (await fh!.write(part, done, part.length - done)).bytesWritten;
    }
    pos += b.length;
  };
  try {
    await write(pre);
    await write(headerBuf);
    for (let i = 0; i < payload.length; i++) {
      const target = header.sections[i].offset;
      if (target > pos) await write(Buffer.alloc(target - pos));
      await write(payload[i].data);
    }
    const end = header.fileBytes - CHECKSUM;
    if (end > pos) await write(Buffer.alloc(end - pos));
    const sum = hash.digest();
    let done = 0;
    while (done < sum.length) done += (await fh.write(sum, done, sum.length - done)).bytesWritten;
    await fh.sync();
    await fh.close();
    fh = undefined;
    await rename(tmp, path);
  } catch (err) {
    if (fh) await fh.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw writeError(err, path);
  }
  try {
    const d = await open(dir, 'r');
    await d.sync().catch(() => {});
    await d.close();
  } catch {
    /* directory fsync is best effort (not supported everywhere) */
  }
  return { bytes: header.fileBytes };
}

/** OUTPUT error naming the target and the reason in words (the old file, if any, is left as it was). */
function writeError(err: unknown, path: string): FilmkwError {
  const code = (err as NodeJS.ErrnoException).code;
  const why = writeFailureReason(code, path) ?? code ?? (err as Error).message;
  return new FilmkwError('OUTPUT', `kg snapshot ${path}: cannot write (${why}${code && why !== code ? `, ${code}` : ''}); nothing was changed at that path`, { cause: err });
}

/** Removes temp files of earlier saves to the same target whose writer process no longer exists. */
async function sweepStaleTemps(dir: string, base: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return; // the open below reports the real problem
  }
  const prefix = `.${base}.tmp-`;
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const pid = Number(n.slice(prefix.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch (err) {
      alive = (err as NodeJS.ErrnoException).code === 'EPERM';
    }
    if (!alive) await unlink(join(dir, n)).catch(() => {});
  }
}

function parseHeader(buf: Buffer, path: string): SnapshotHeader {
  const fail = (why: string) => inputError(`kg snapshot ${path}: ${why}`);
  if (buf.length === 0) throw fail('empty file (0 bytes), not a filmkw KG snapshot');
  if (buf.length < SNAPSHOT_MAGIC.length || buf.toString('latin1', 0, 5) !== SNAPSHOT_MAGIC || (buf.length >= 6 && buf[5] !== 0))
    throw fail(`not a filmkw KG snapshot (bad magic: expected "${SNAPSHOT_MAGIC}" at the start of the file)`);
  if (buf.length < PREAMBLE) throw fail(`truncated file (${buf.length} bytes; the header is incomplete)`);
  const version = buf.readUInt16LE(6);
  if (version > SNAPSHOT_FORMAT) throw fail(`written by a newer filmkw (snapshot format ${version}; this version reads format ${SNAPSHOT_FORMAT} and older) — re-run kg import with this version or upgrade`);
  if (version < 1) throw fail(`unknown snapshot format ${version}`);
  const hlen = buf.readUInt32LE(8);
  if (PREAMBLE + hlen > buf.length) throw fail(`truncated file (${buf.length} bytes; the header alone needs ${PREAMBLE + hlen})`);
  let h: SnapshotHeader;
  try {
    h = JSON.parse(buf.toString('utf8', PREAMBLE, PREAMBLE + hlen)) as SnapshotHeader;
  } catch {
    throw fail('corrupt header (not JSON)');
  }
  if (!h || typeof h.fileBytes !== 'number' || !Array.isArray(h.sections)) throw fail('corrupt header (missing fields)');
  if (h.format !== version) throw fail(`corrupt header (format ${JSON.stringify(h.format)} in the header, ${version} in the preamble)`);
  return h;
}

/** The file size must be the one the header announces (the same messages from every reader). */
function checkSize(size: number, h: SnapshotHeader, path: string): void {
  if (size < h.fileBytes) throw inputError(`kg snapshot ${path}: truncated file (${size} bytes, the header says ${h.fileBytes}) — the write was interrupted or the copy is incomplete`);
  if (size > h.fileBytes) throw inputError(`kg snapshot ${path}: unexpected trailing data (${size} bytes, the header says ${h.fileBytes})`);
}

/** Reads only the header (counts, stats, content hash) of a snapshot. */
export async function readSnapshotHeader(path: string): Promise<SnapshotHeader> {
  const { fh, size } = await openSnapshot(path);
  try {
    const st = { size };
    const first = Buffer.alloc(Math.min(st.size, PREAMBLE));
    await fh.read(first, 0, first.length, 0);
    let buf = first;
    if (first.length === PREAMBLE && first.toString('latin1', 0, 5) === SNAPSHOT_MAGIC) {
      const need = Math.min(st.size, PREAMBLE + first.readUInt32LE(8));
      buf = Buffer.alloc(need);
      await fh.read(buf, 0, need, 0);
    }
    const h = parseHeader(buf, path);
    checkSize(st.size, h, path);
    return h;
  } finally {
    await fh.close();
  }
}

function openError(err: unknown, path: string): FilmkwError {
  const code = (err as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory, not a snapshot file' : code === 'EACCES' ? 'permission denied' : `cannot read (${code ?? (err as Error).message})`;
  return inputError(`kg snapshot ${path}: ${why}`, err);
}

/** Options of {@link loadSnapshot}. */
export interface LoadSnapshotOptions {
  /** Told when the file loads but slowly: an older format, or a name index that has to be rebuilt. */
  onWarning?: (message: string) => void;
}

/** Loads a snapshot written by {@link saveSnapshot}; verifies magic, version, size and checksum. */
export async function loadSnapshot(path: string, opts: LoadSnapshotOptions = {}): Promise<KgStore> {
  let buf: Buffer;
  const { fh } = await openSnapshot(path);
  try {
    buf = await fh.readFile();
  } catch (err) {
    throw openError(err, path);
  } finally {
    await fh.close();
  }
  const fail = (why: string) => inputError(`kg snapshot ${path}: ${why}`);
  const h = parseHeader(buf, path);
  checkSize(buf.length, h, path);
  const body = buf.subarray(0, buf.length - CHECKSUM);
  const sum = createHash('sha256').update(body).digest();
  if (!sum.equals(buf.subarray(buf.length - CHECKSUM))) throw fail('checksum mismatch (the file is corrupt)');

  const sec = new Map(h.sections.map((s) => [s.name, s]));
  const get = (name: string, type: SectionType): Section => {
    const s = sec.get(name);
    if (!s || s.type !== type || !Number.isSafeInteger(s.offset) || !Number.isSafeInteger(s.count) || s.offset < 0 || s.count < 0 || s.offset % 8 !== 0 || s.offset + bytesOf(type, s.count) > body.length) {
      throw fail(`corrupt section table (${name})`);
    }
    return s;
  };
  // typed sections are views on the file's bytes (copied on a big-endian host, or where a view would be misaligned)
  function typed(name: string, type: 'u8'): Uint8Array;
  function typed(name: string, type: 'u16'): Uint16Array;
  function typed(name: string, type: 'i32'): Int32Array;
  function typed(name: string, type: 'u8' | 'u16' | 'i32'): Typed {
    const t = get(name, type);
    const at = buf.byteOffset + t.offset;
    if (type === 'u8') return new Uint8Array(buf.buffer, at, t.count);
    if (type === 'u16') {
      if (LITTLE_ENDIAN && at % 2 === 0) return new Uint16Array(buf.buffer, at, t.count);
      const out = new Uint16Array(t.count);
      for (let i = 0; i < t.count; i++) out[i] = buf.readUInt16LE(t.offset + i * 2);
      return out;
    }
    if (LITTLE_ENDIAN && at % 4 === 0) return new Int32Array(buf.buffer, at, t.count);
    const out = new Int32Array(t.count);
    for (let i = 0; i < t.count; i++) out[i] = buf.readInt32LE(t.offset + i * 4);
    return out;
  }
  const table = (name: string) => new StringTable(typed(`${name}.units`, 'u16'), typed(`${name}.offsets`, 'i32'));
  const list = (name: string) => new ListColumn(typed(`${name}.offsets`, 'i32'), table(`${name}.items`));
  const rest = {
    kinds: typed('kinds', 'u8'),
    movieOf: typed('movieOf', 'i32'),
    relKind: typed('relKind', 'u8'),
    relFrom: typed('relFrom', 'i32'),
    relTo: typed('relTo', 'i32'),
    relMovie: typed('relMovie', 'i32'),
    nbOffsets: typed('nbOffsets', 'i32'),
    nbTargets: typed('nbTargets', 'i32'),
    nbCounts: typed('nbCounts', 'i32'),
    contentHash: h.contentHash,
  };
  const E = h.entityCount;
  let cols: KgColumns;
  let indexes: KgIndexes | undefined;
  if (h.format === 1) {
    const s = get('strings', 'json');
    let str: { ids: string[]; names: string[]; surfaces: string[][]; aliases: string[][]; aliasNames: string[] };
    try {
      str = JSON.parse(buf.toString('utf8', s.offset, s.offset + s.count));
    } catch {
      throw fail('corrupt string table');
    }
    const lists = [str.ids, str.names, str.surfaces, str.aliases, str.aliasNames];
    if (!lists.every(Array.isArray) || ![str.ids, str.names, str.surfaces, str.aliases].every((a) => a.length === E)) throw fail('inconsistent section lengths');
    cols = packColumns({ ...str, sourceIds: str.ids.map(() => []) }, rest);
    opts.onWarning?.(`kg snapshot ${path}: format 1, written by an older filmkw: its strings are parsed and its name index rebuilt at every load (~0.3 s with the merged KG); re-run \`filmkw kg import\` to rewrite it in format ${SNAPSHOT_FORMAT}`);
  } else {
    // sourceIds: optional (older format-2 files have none; model.ts `Entity.sourceIds`)
    const sourceIds = sec.has('sourceIds.offsets') ? list('sourceIds') : ListColumn.from(new Array<string[]>(E).fill([]));
    cols = { ...rest, ids: table('ids'), names: table('names'), surfaces: list('surfaces'), aliases: list('aliases'), sourceIds, aliasNames: table('aliasNames') };
    indexes = {
      allAliases: list('allAliases'),
      nameIndex: new NameIndex(
        table('index.keys'),
        typed('index.slots', 'i32'),
        typed('index.nameOff', 'i32'),
        typed('index.nameIds', 'i32'),
        typed('index.anyOff', 'i32'),
        typed('index.anyIds', 'i32'),
      ),
    };
    if (h.nameIndex !== nameIndexStamp()) {
      indexes = undefined; // written with another normalisation: rebuilt by KgStore
      opts.onWarning?.(`kg snapshot ${path}: its name index was written by another filmkw or Unicode version (${h.nameIndex ?? 'none'}; this one: ${nameIndexStamp()}) and is rebuilt at every load; re-run \`filmkw kg import\` to rewrite it`);
    }
    const bad =
      (cols.ids.check() && 'ids') ||
      (cols.names.check() && 'names') ||
      (cols.aliasNames.check() && 'alias names') ||
      (cols.surfaces.check(E) && 'surfaces') ||
      (cols.aliases.check(E) && 'aliases') ||
      (cols.sourceIds.check(E) && 'source ids') ||
      (indexes?.allAliases.check(E) && 'all aliases') ||
      (indexes?.nameIndex.check(E) && 'name index');
    if (bad) throw fail(`inconsistent ${bad} section`);
  }
  // structural checks (cheap next to the checksum): lengths, offsets monotonic, indices in range
  const R = h.relationCount;
  const okLen =
    [cols.ids, cols.names, cols.surfaces, cols.aliases, cols.kinds, cols.movieOf].every((a) => a.length === E) &&
    [cols.relKind, cols.relFrom, cols.relTo, cols.relMovie].every((a) => a.length === R) &&
    cols.nbOffsets.length === E + 1 &&
    cols.nbTargets.length === cols.nbCounts.length &&
    cols.aliasNames.length === h.aliasNameCount;
  if (!okLen) throw fail('inconsistent section lengths');
  const o = cols.nbOffsets;
  if (o[0] !== 0 || o[E] !== cols.nbTargets.length) throw fail('inconsistent neighbour offsets');
  for (let i = 0; i < E; i++) if (o[i + 1] < o[i]) throw fail('inconsistent neighbour offsets');
  const nt = cols.nbTargets;
  for (let i = 0; i < nt.length; i++) if (nt[i] < 0 || nt[i] >= E) throw fail('neighbour index out of range');
  return new KgStore(cols, indexes);
}
