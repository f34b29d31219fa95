/**
 * Where commands get their KG from: `loadKg({})` → the bundled demo KG (kg/demo, project csv format);
 * `loadKg({ kg })` → a snapshot file (src/kg/snapshot.ts) or a csv directory (kg/FORMAT.md);
 * `loadKg({ neo4j: true })` → read from Neo4j (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD).
 */
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { inputError, usageError } from '../errors.js';
import { KgMergeBuilder } from './builder.js';
import { readProjectCsv } from './sources/csv.js';
import { loadSnapshot } from './snapshot.js';
import { KgStore } from './store.js';

/** The bundled demo KG directory (kg/demo of the package), the same from src/kg and dist/kg. */
export function defaultKgDir(): string {
  return fileURLToPath(new URL('../../kg/demo/', import.meta.url));
}

export interface LoadKgOptions {
  /** A snapshot file or a csv directory; absent = the demo KG (unless `neo4j`). */
  kg?: string;
  /** Read the KG from Neo4j instead. */
  neo4j?: boolean;
  /** Progress, one line each; also the warnings when `onWarning` is absent. */
  onProgress?: (msg: string) => void;
  /**
   * Progress goes to a terminal: the Neo4j read reports as it goes (one line a second); otherwise only the
   * last line of each phase (a log gets one line, not one per page), as when absent.
   */
  liveProgress?: boolean;
  /**
   * Warnings, one line each: skipped csv rows, Neo4j nodes that cannot be read back. A caller that keeps
   * progress quiet (`--json`) still passes this, so that nothing is skipped silently.
   */
  onWarning?: (msg: string) => void;
}

/** Reads a csv KG directory into a store; skipped rows are reported through `onWarning`, one line per reason. */
export async function loadCsvKg(dir: string, onWarning?: (msg: string) => void): Promise<KgStore> {
  const b = new KgMergeBuilder({ minePlayed: false });
  await readProjectCsv(dir, b, { kind: 'csv', spec: `csv:${dir}` });
  const { data, report } = b.build();
  for (const g of report.skipped) onWarning?.(`kg: ${g.count} row(s) skipped: ${g.reason}${g.examples.length ? ` (e.g. ${g.examples.join('; ')})` : ''}`);
  return KgStore.fromData(data);
}

/**
 * The progress callback of a Neo4j read or write as lines `neo4j <phase> <done>/<total>`: with `live` (a
 * terminal) at most one a second plus the last of each phase; without (a log), one at each 1/`steps` of a
 * phase and the last (`steps` 1: the last only): the same lines for the same work whatever the machine's speed.
 */
export function progressLines(
  say: (line: string) => void,
  opts: { live: boolean; steps?: number; now?: () => number },
): (done: number, total: number, phase: string) => void {
  const { live, steps = 1, now = Date.now } = opts;
  let last = -Infinity;
  let step = 0;
  return (done, total, phase) => {
    const t = now();
    const k = total > 0 ? Math.floor((steps * done) / total) : steps;
    if (done === total || (live ? t - last >= 1000 : k > step)) {
      last = t;
      step = done === total ? 0 : k;
      say(`neo4j ${phase} ${done}/${total}`);
    }
  };
}

export async function loadKg(opts: LoadKgOptions = {}): Promise<KgStore> {
  const say = opts.onProgress;
  const warn = opts.onWarning ?? opts.onProgress;
  if (opts.neo4j && opts.kg !== undefined) throw usageError('kg: give either --kg or --neo4j, not both');
  if (opts.neo4j) {
    const neo = await import('./neo4j.js');
    const cfg = neo.neo4jConfigFromEnv();
    say?.(`kg: reading the KG from Neo4j at ${neo.redactUri(cfg.uri)}`);
    const data = await neo.readKgFromNeo4j(cfg, {
      onProgress: say && progressLines((m) => say(`kg: ${m}`), { live: opts.liveProgress === true }),
      onWarning: (m) => warn?.(`kg: ${m}`),
    });
    return KgStore.fromData(data, { dangling: 'drop' });
  }
  if (opts.kg === undefined || opts.kg === '') return loadCsvKg(defaultKgDir(), warn);
  let st;
  try {
    st = await stat(opts.kg);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw inputError(`kg: ${opts.kg}: ${code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`, err);
  }
  if (st.isDirectory()) {
    say?.(`kg: reading the csv KG in ${opts.kg}`);
    return loadCsvKg(opts.kg, warn);
  }
  say?.(`kg: loading the snapshot ${opts.kg}`);
  return loadSnapshot(opts.kg, { onWarning: warn });
}
