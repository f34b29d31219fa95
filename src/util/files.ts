/**
 * File-safety helpers shared by every command that writes a file (issue 17):
 *
 * - {@link assertNotAnInput}: an output must never be one of the command's inputs. Files are compared by
 *   device and inode (after following symlinks), so a hard link, a symlink, or a path through a symlinked
 *   directory is recognised, not only the same path string. A directory input covers every file under it.
 * - {@link lockOutput}: an exclusive lock on an output that is written in place (`tag --out` and its
 *   `--resume` checkpoint, `html text|records --out`). The lock is a file `<out>.lock` created with
 *   O_EXCL holding the owner's pid, host, command and start time; a second run fails naming the first.
 *   A lock whose owner is gone (same host, pid no longer alive: SIGKILL, power loss) is stale and taken
 *   over. A library such as proper-lockfile was considered: its lock is a directory refreshed by mtime
 *   and records no owner, so the second run could not say which run holds the file.
 * - {@link readCapped}: reads a whole input file (a saved page) with a size cap, also from a pipe or a
 *   device that never ends (`/dev/zero`): at most cap + 1 bytes are read.
 * - {@link walkFiles}: a directory walk that never throws on a bad entry (symlink loop, dangling link,
 *   unreadable directory): each such entry is listed with its reason, so that readers turn it into an
 *   error record or a skip with that reason.
 */
import { open } from 'node:fs/promises';
import { closeSync, linkSync, lstatSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync, writeSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { FilmkwError, inputError, usageError, writeFailureReason } from '../errors.js';

const key = (st: Stats) => `${st.dev}:${st.ino}`;

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** Files of a directory input whose identity is collected (a cap keeps a huge tree from costing minutes). */
const MAX_WALK = 200_000;

/**
 * Throws a usage error when `out` is the same file (device + inode) as one of `inputs` or as a file under
 * an input directory. `out` that does not exist yet cannot be an input. `cmd` prefixes the message.
 */
export function assertNotAnInput(cmd: string, outFlag: string, out: string, inputs: readonly string[]): void {
  const o = statOrNull(out);
  if (!o || o.isDirectory()) return;
  for (const input of inputs) {
    const st = statOrNull(input);
    if (!st) continue;
    if (st.isDirectory()) {
      const hit = walkFiles(input, { limit: MAX_WALK }).find((f) => {
        const s = f.problem ? null : statOrNull(f.path);
        return s !== null && key(s) === key(o);
      });
      if (hit) throw sameFile(cmd, outFlag, out, hit.path);
    } else if (key(st) === key(o)) throw sameFile(cmd, outFlag, out, input);
  }
}

function sameFile(cmd: string, outFlag: string, out: string, input: string): FilmkwError {
  const how = out === input ? '' : ' (the same file through a hard link, a symlink or a symlinked directory)';
  return usageError(`${cmd}: ${outFlag} ${out} is the input ${input}${how}; writing it would destroy the input; choose another output path`);
}

/** The names of saved web pages, which a folder input is read for (`tag`, `html text`, `kg import html-list:`). */
export const HTML_PAGE = /\.html?$/iu;

/** An entry of {@link walkFiles}: a regular file, or an entry that cannot be read with the reason. */
export interface WalkedFile {
  path: string;
  /** Path relative to the walked directory, with `/`. */
  rel: string;
  /** Set when the entry cannot be read (symlink loop, dangling link, permission): the reason. */
  problem?: string;
}

/**
 * Regular files under `dir` (recursive, following symlinks to files and directories, each real directory
 * visited once), depth first with the names of each directory sorted. An entry that cannot be read
 * (symlink loop, dangling link, unreadable directory) is listed with its `problem` instead of throwing;
 * only `dir` itself being unreadable throws. `filter` selects files by name (bad entries are kept when
 * they match it or are symlinks, whose target kind is unknown).
 */
export function walkFiles(dir: string, opts: { filter?: (name: string) => boolean; limit?: number } = {}): WalkedFile[] {
  const out: WalkedFile[] = [];
  const seen = new Set<string>();
  const limit = opts.limit ?? Infinity;
  const rel = (p: string) => relative(dir, p).split('\\').join('/');
  const visit = (d: string) => {
    const real = statOrNull(d);
    if (real) {
      if (seen.has(key(real))) {
        out.push({ path: d, rel: rel(d), problem: 'symlink loop (a directory already listed through another path)' });
        return;
      }
      seen.add(key(real));
    }
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch (err) {
      if (d === dir) throw err;
      out.push({ path: d, rel: rel(d), problem: `unreadable directory: ${describeFsError(err)}` });
      return;
    }
    for (const name of names) {
      if (out.length >= limit) return;
      const p = join(d, name);
      let st: Stats;
      try {
        st = statSync(p);
      } catch (err) {
        let isLink = false;
        try {
          isLink = lstatSync(p).isSymbolicLink();
        } catch {
          // vanished meanwhile
        }
        const code = (err as NodeJS.ErrnoException).code;
        if (!opts.filter || opts.filter(name) || isLink) {
          out.push({ path: p, rel: rel(p), problem: code === 'ENOENT' && isLink ? 'dangling symlink (its target does not exist)' : describeFsError(err) });
        }
        continue;
      }
      if (st.isDirectory()) visit(p);
      else if (st.isFile() && (!opts.filter || opts.filter(name))) out.push({ path: p, rel: rel(p) });
    }
  };
  visit(dir);
  return out;
}

/** What kind of file system entry `st` is, in words, for messages ("a character device"). */
export function fileKind(st: Stats): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a pipe';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'a special file';
}

/**
 * The whole content of a regular file or a pipe, at most `maxBytes`. A regular file larger than that is
 * refused from its size, before a byte is read; a pipe is read until it ends or `maxBytes + 1` bytes came.
 * FilmkwError INPUT (message without the path, which the caller adds): `larger than the cap of N bytes
 * (M bytes)`, `… (more than N bytes from a pipe)`, `not a regular file or a pipe (a character device)`.
 * Other failures (ENOENT, EACCES) are thrown as they come.
 */
export async function readCapped(path: string, maxBytes: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const st = await fh.stat();
    if (!st.isFile() && !st.isFIFO()) throw inputError(`not a regular file or a pipe (${fileKind(st)})`);
    if (st.isFile() && st.size > maxBytes) throw inputError(`larger than the cap of ${maxBytes} bytes (${st.size} bytes)`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(1 << 16, maxBytes + 1 - total));
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) throw inputError(`larger than the cap of ${maxBytes} bytes (more than ${maxBytes} bytes read${st.isFIFO() ? ' from a pipe' : ''})`);
    }
    return Buffer.concat(chunks, total);
  } finally {
    await fh.close();
  }
}

function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ELOOP') return 'symlink loop (ELOOP)';
  if (e.code === 'EACCES' || e.code === 'EPERM') return `permission denied (${e.code})`;
  return e.code ? `${e.code}` : String(e.message ?? err);
}

// ---------------------------------------------------------------------------------------------------
// Output locks

/** Contents of a `<out>.lock` file. */
interface LockInfo {
  pid: number;
  host: string;
  command: string;
  started: string;
}

/** Where the lock of `out` lives: next to the real file (so two names of one file share a lock). */
export function lockPath(out: string): string {
  let target = out;
  try {
    target = realpathSync(out);
  } catch {
    try {
      target = join(realpathSync(dirname(out)), basename(out));
    } catch {
      // the directory does not exist: the write fails later with its own message
    }
  }
  return `${target}.lock`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(path: string): LockInfo | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
    return Number.isInteger(v?.pid) && typeof v.host === 'string' ? v : null;
  } catch {
    return null;
  }
}

const held = new Set<string>();
let exitHook = false;

/** Remove every lock this process holds (the exit hook; also called before a process ends by a re-raised signal, which runs no exit hook). */
export function releaseLocks(): void {
  for (const p of held) rmSync(p, { force: true });
  held.clear();
}

/** The private file a lock is written to before it is linked into place (host and pid: a dead one's is removed). */
const lockTemp = (path: string, host: string, pid: number) => `${path}.${host}.${pid}.tmp`;

/**
 * Create `path` holding `content`, failing with EEXIST when it exists. The content goes to a private temp
 * file first, which is then hard-linked into place (link fails when the target exists), so a process killed
 * at any moment never leaves an empty lock behind (one that would block the next run for a minute).
 * Filesystems without hard links fall back to create-then-write.
 */
function createWithContent(path: string, content: string): void {
  const tmp = lockTemp(path, hostname(), process.pid);
  try {
    writeFileSync(tmp, content);
    linkSync(tmp, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
    const fd = openSync(path, 'wx');
    try {
      writeSync(fd, content);
    } catch (e) {
      closeSync(fd);
      rmSync(path, { force: true });
      throw e;
    }
    closeSync(fd);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Remove the lock temp files of `path` left by dead processes of this host (a kill between their write and link). */
function removeStaleLockTemps(path: string): void {
  const prefix = `${basename(path)}.${hostname()}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = name.startsWith(prefix) && name.endsWith('.tmp') ? Number(name.slice(prefix.length, -'.tmp'.length)) : NaN;
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(join(dirname(path), name), { force: true });
  }
}

/**
 * Take the exclusive lock of an output file; returns the release function (idempotent). Throws
 * FilmkwError('OUTPUT') naming the run that holds it. A lock left by a dead process on this host is
 * taken over; an unreadable lock file older than a minute too (a write interrupted between create and
 * write).
 */
export function lockOutput(cmd: string, out: string): () => void {
  const path = lockPath(out);
  const me: LockInfo = { pid: process.pid, host: hostname(), command: ['filmkw', ...process.argv.slice(2)].join(' '), started: new Date().toISOString() };
  removeStaleLockTemps(path);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      createWithContent(path, `${JSON.stringify(me)}\n`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') {
        if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EROFS' || code === 'EPERM') return () => undefined; // the write itself reports it
        const why = writeFailureReason(code, out);
        throw new FilmkwError('OUTPUT', `${cmd}: cannot write ${out}: ${code ?? (err as Error).message}${why ? ` (${why})` : ''}`, { cause: err });
      }
      const other = readLock(path);
      const stale = other ? other.host === me.host && !alive(other.pid) : Date.now() - (statOrNull(path)?.mtimeMs ?? 0) > 60_000;
      if (stale) {
        rmSync(path, { force: true });
        continue;
      }
      const who = other ? `pid ${other.pid} on ${other.host}, \`${other.command}\`, since ${other.started}` : 'a run that is starting';
      throw new FilmkwError('OUTPUT', `${cmd}: ${out} is being written by another filmkw run (${who}); wait for it to finish or stop it (if no such run exists, delete ${path})`);
    }
    held.add(path);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', releaseLocks);
    }
    return () => {
      if (held.delete(path)) rmSync(path, { force: true });
    };
  }
  throw new FilmkwError('OUTPUT', `${cmd}: cannot lock ${out}: ${path} keeps reappearing`);
}
