/**
 * The KG of a tag run: `--kg FILE|DIR`, `--neo4j`, or (neither) the bundled demo KG, through the KG
 * loader (src/kg/load.ts `loadKg`). The loader is imported late so a missing module is one clear error;
 * if it is absent from the build, a snapshot file given with --kg is still loaded directly.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolve } from 'node:path';
import { inputError, usageError } from '../errors.js';
import type { KgStore } from '../kg/store.js';
import { loadSnapshot, readSnapshotHeader, saveSnapshot } from '../kg/snapshot.js';

export interface TagKgOptions {
  kg?: string;
  neo4j?: boolean;
  onProgress?: (msg: string) => void;
  /** Progress goes to a terminal (src/kg/load.ts LoadKgOptions.liveProgress); absent: it does not. */
  liveProgress?: boolean;
}

/** A loaded KG and what it came from. */
export interface LoadedKg {
  store: KgStore;
  /** Human description: a path, "neo4j" or "demo (bundled)". */
  source: string;
  /** Absolute path when the KG is a snapshot file (workers load it directly). */
  snapshotPath: string | null;
}

type LoadKg = (opts: TagKgOptions) => Promise<KgStore>;

async function loader(): Promise<LoadKg | null> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(new URL('../kg/load.js', import.meta.url).href)) as Record<string, unknown>;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND') return null;
    throw err;
  }
  return typeof mod.loadKg === 'function' ? (mod.loadKg as LoadKg) : null;
}

export async function loadTagKg(opts: TagKgOptions): Promise<LoadedKg> {
  if (opts.kg !== undefined && opts.neo4j) throw usageError('tag: give --kg or --neo4j, not both');
  let snapshotPath: string | null = null;
  if (opts.kg !== undefined) {
    if (!existsSync(opts.kg)) throw inputError(`tag: KG not found: ${opts.kg}`);
    if (statSync(opts.kg).isFile()) snapshotPath = resolve(opts.kg);
  }
  const loadKg = await loader();
  const source = opts.kg ?? (opts.neo4j ? 'neo4j' : 'demo (bundled)');
  if (loadKg) return { store: await loadKg({ kg: opts.kg, neo4j: opts.neo4j === true, onProgress: opts.onProgress, liveProgress: opts.liveProgress }), source, snapshotPath };
  if (snapshotPath) return { store: await loadSnapshot(snapshotPath), source, snapshotPath };
  throw inputError('tag: the KG loader (src/kg/load.ts) is not in this build, so only --kg <snapshot file> works');
}

/** The KG of a worker pool: a snapshot file every worker loads, and its content hash. */
export interface WorkerKg {
  snapshot: string;
  contentHash: string;
  source: string;
  /** Remove the temporary snapshot, if one was written (call once the workers have loaded it). */
  cleanup(): void;
}

/**
 * Prepare the KG for worker threads without keeping a copy in the main thread: a snapshot file given
 * with --kg is only checked (header, size, content hash) and handed to the workers; any other source
 * (demo, csv directory, Neo4j) is loaded once here and written to a temporary snapshot.
 */
export async function prepareWorkerKg(opts: TagKgOptions): Promise<WorkerKg> {
  if (opts.kg !== undefined && opts.neo4j) throw usageError('tag: give --kg or --neo4j, not both');
  if (opts.kg !== undefined) {
    if (!existsSync(opts.kg)) throw inputError(`tag: KG not found: ${opts.kg}`);
    if (statSync(opts.kg).isFile()) {
      const path = resolve(opts.kg);
      opts.onProgress?.(`kg: workers load the snapshot ${opts.kg}`);
      const header = await readSnapshotHeader(path);
      return { snapshot: path, contentHash: header.contentHash, source: opts.kg, cleanup() {} };
    }
  }
  const kg = await loadTagKg(opts);
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-tag-'));
  const snapshot = join(dir, 'kg.fkg');
  try {
    await saveSnapshot(kg.store, snapshot);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return { snapshot, contentHash: kg.store.contentHash, source: kg.source, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
