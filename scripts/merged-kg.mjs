// The merged KG that npm run train:rerank, experiments, corpus:stats, scripts/rerank-heldout.mjs and the
// benches read when no KG is named: `filmkw kg import` of the three public Douban sources in
// ../shared/data/kg and the bundled demo KG (README "Build the knowledge graph"), cached in the temporary
// directory under a name that holds a fingerprint of everything that makes it:
//   $TMPDIR/filmkw-merged-<fingerprint>.fkg
// The fingerprint (sha256, 16 hex digits) covers the bytes of the KG source files, of the built code that
// the import runs (the static-import closure in dist/ of the import, the snapshot writer and the title
// policy, and the `kg` command), of the data that code reads (dictionaries/, kg/demo/) and of package.json
// and package-lock.json (the version and the libraries). A snapshot left by other code or other sources
// has another name, so it is never read by mistake; it is rebuilt instead (about 10 s). The build writes
// a temporary file and renames it, so a reader never sees half a snapshot, and two builds of the same
// fingerprint give the same bytes. A snapshot's modification time is refreshed whenever it is used; each
// build removes the snapshots nobody used for a week (`STALE_DAYS`; another checkout may still use a
// younger one), so they do not pile up in the temporary directory.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = () => resolve(process.env.FILMKW_DATA ?? join(ROOT, '..', 'shared', 'data'));

/** Where the import starts, in dist/: its static imports are followed from these. */
const ENTRIES = ['kg/import.js', 'kg/snapshot.js', 'lexicon/title-policy.js'];
/** Files taken as they are (the command module itself, not what it imports for its other subcommands). */
const ALSO = ['cli/commands/kg.js'];
/** Data the code reads, and the libraries it runs on. */
const DATA_OF_CODE = ['dictionaries', join('kg', 'demo'), 'package.json', 'package-lock.json'];

/** The `kg import` sources of the merged KG, as the README's command names them. */
export function mergedKgSources(data = DATA()) {
  const kg = join(data, 'kg');
  return [
    `openkg:${join(kg, 'openkg-douban-movie')}`,
    `kgqa:${join(kg, 'douban-kgqa-small')}`,
    `douban-csv:${join(kg, 'douban-movies-2065', 'douban_all_movies.csv')}`,
    'demo',
  ];
}

/** Every file under `p` (or `p` itself), sorted. */
function filesUnder(p) {
  if (!existsSync(p)) return [];
  if (!statSync(p).isDirectory()) return [p];
  return readdirSync(p, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => filesUnder(join(p, e.name)));
}

/** Relative module specifiers of a compiled ES module: `from './x.js'`, `import './x.js'`, `import('./x.js')`. */
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/gu;

/** The static-import closure of `entries` inside `dist` (absolute paths, sorted). */
export function importClosure(dist, entries) {
  const seen = new Set();
  const todo = entries.map((e) => join(dist, e));
  while (todo.length > 0) {
    const f = todo.pop();
    if (seen.has(f)) continue;
    if (!existsSync(f)) throw new Error(`${relative(dirname(dist), f).split(sep).join('/')} is missing: run npm run build first`);
    seen.add(f);
    for (const m of readFileSync(f, 'utf8').matchAll(SPECIFIERS)) {
      const dep = resolve(dirname(f), m[1]);
      if (dep.endsWith('.js') && dep.startsWith(dist + sep)) todo.push(dep);
    }
  }
  return [...seen].sort();
}

/** The fingerprint of the merged KG that `root`'s built code makes from the sources under `data`. */
export function mergedKgFingerprint({ root = ROOT, data = DATA() } = {}) {
  const dist = join(root, 'dist');
  const code = [...importClosure(dist, ENTRIES), ...ALSO.map((f) => join(dist, f))];
  const sources = mergedKgSources(data).filter((s) => s.includes(':')).map((s) => s.slice(s.indexOf(':') + 1));
  const missing = sources.filter((p) => !existsSync(p));
  if (missing.length > 0) throw new Error(`the KG sources are missing (${missing.join(', ')}): set FILMKW_DATA, or name a KG`);
  const h = createHash('sha256');
  const add = (label, f) => h.update(`${label}\0${f.length}\0`).update(readFileSync(f)).update('\0');
  for (const f of code) add(relative(root, f).split(sep).join('/'), f);
  for (const p of DATA_OF_CODE) for (const f of filesUnder(join(root, p))) add(relative(root, f).split(sep).join('/'), f);
  for (const s of sources) for (const f of filesUnder(s)) add(`source/${relative(s, f).split(sep).join('/') || '.'}`, f);
  return h.digest('hex').slice(0, 16);
}

/** A cached snapshot not used for this many days is removed by the next build. */
export const STALE_DAYS = 7;
const SNAPSHOT_NAME = /^filmkw-merged-[0-9a-f]{16}\.fkg$/u;

/** Removes the snapshots in `tmp` last used more than STALE_DAYS ago (`now` in ms); returns their names. */
export function pruneStaleMergedKgs(tmp, now = Date.now()) {
  const limit = now - STALE_DAYS * 24 * 3600 * 1000;
  const removed = [];
  for (const name of readdirSync(tmp)) {
    if (!SNAPSHOT_NAME.test(name)) continue;
    const f = join(tmp, name);
    try {
      if (statSync(f).mtimeMs >= limit) continue;
      rmSync(f, { force: true });
      removed.push(name);
    } catch {
      // removed meanwhile by another build: nothing to do
    }
  }
  return removed.sort();
}

/** The cached snapshot's path for this code and these sources: `<tmp>/filmkw-merged-<fingerprint>.fkg`. */
export function mergedKgPath({ root = ROOT, data = DATA(), tmp = tmpdir() } = {}) {
  return join(tmp, `filmkw-merged-${mergedKgFingerprint({ root, data })}.fkg`);
}

/**
 * The cached snapshot, built first (by `root`'s bin/filmkw) when this fingerprint has none. Returns
 * `{ path, built }`; throws an Error with `exitCode` (the import's, or 3 when inputs are missing) when it
 * cannot be made. `log` receives one line before a build; `stdio` is the import's (its progress on stderr).
 */
export function ensureMergedKg({ root = ROOT, data = DATA(), tmp = tmpdir(), log = (s) => process.stderr.write(`${s}\n`), stdio = ['ignore', 'ignore', 'inherit'] } = {}) {
  let path;
  try {
    path = mergedKgPath({ root, data, tmp });
  } catch (err) {
    throw Object.assign(new Error(err.message), { exitCode: 3 });
  }
  if (existsSync(path)) {
    const now = new Date();
    utimesSync(path, now, now);
    return { path, built: false };
  }
  log(`building the merged KG ${path} (filmkw kg import; it is kept for this code and these sources)`);
  const part = `${path.slice(0, -'.fkg'.length)}.${process.pid}.part.fkg`;
  const r = spawnSync(process.execPath, [join(root, 'bin', 'filmkw'), 'kg', 'import', '--out', part, ...mergedKgSources(data)], { cwd: root, stdio });
  if (r.status !== 0) {
    rmSync(part, { force: true });
    throw Object.assign(new Error(`building the merged KG failed (kg import exit ${r.status ?? r.signal})`), { exitCode: r.status || 70 });
  }
  renameSync(part, path);
  const removed = pruneStaleMergedKgs(tmp);
  if (removed.length > 0) log(`removed ${removed.length} merged KG snapshot(s) unused for ${STALE_DAYS} days: ${removed.join(', ')}`);
  return { path, built: true };
}
