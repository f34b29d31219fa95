/**
 * Neo4j connection settings and the options of the Neo4j jobs (neo4j.ts): the configuration from the
 * environment (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE and the FILMKW_NEO4J_*_MS timeouts),
 * the driver timeouts, the frozen defaults, and the URI without user info for messages.
 */
import { FilmkwError } from '../errors.js';

export interface Neo4jConfig {
  /** bolt://, bolt+s://, bolt+ssc://, neo4j://, neo4j+s:// or neo4j+ssc:// */
  uri: string;
  user: string;
  password: string;
  /** Database name; the server's default database when absent. */
  database?: string;
  /** Timeouts from the environment (FILMKW_NEO4J_*_MS, see {@link neo4jConfigFromEnv}); a job's own `tuning` wins. */
  tuning?: Partial<Neo4jTuning>;
}

/** Driver timeouts; tests make them small. */
export interface Neo4jTuning {
  /** TCP connect timeout (driver `connectionTimeout`). @default 15000 */
  connectionTimeoutMs: number;
  /** Time to wait for a pooled connection, incl. the Bolt handshake (driver `connectionAcquisitionTimeout`). @default 30000 */
  connectionAcquisitionTimeoutMs: number;
  /** How long a managed transaction is retried on transient errors (driver `maxTransactionRetryTime`). @default 30000 */
  maxTransactionRetryTimeMs: number;
  /**
   * Client-side deadline of one managed transaction, its retries included (and of the connectivity check).
   * The driver has no read timeout unless the server sends one (`connection.recv_timeout_seconds`), so a
   * silent network partition (no RST, no FIN) would otherwise leave a job waiting forever. When the
   * deadline passes the job fails with NEO4J_FAILED (NEO4J_UNAVAILABLE while connecting) and the driver
   * is closed. Keep it well above the time of one batch plus `maxTransactionRetryTimeMs`. @default 300000
   */
  transactionTimeoutMs: number;
  /** How long closing the session and driver may take at the end of a job (a dead peer never answers GOODBYE). @default 2000 */
  closeTimeoutMs: number;
}

export interface Neo4jWriteOptions {
  /** Rows per UNWIND statement (one managed transaction each). @default 5000 */
  batchSize?: number;
  onProgress?: (done: number, total: number, phase: string) => void;
  tuning?: Partial<Neo4jTuning>;
}

export interface Neo4jReadOptions {
  /** Entities per page (with their outgoing relationships). @default 1000 */
  pageSize?: number;
  onProgress?: (done: number, total: number, phase: string) => void;
  /** Called for each node that cannot be read back as an entity (no or several kind labels), which is skipped. */
  onWarning?: (message: string) => void;
  tuning?: Partial<Neo4jTuning>;
}

/** One reason why rows were not written, with the first few examples. */
export interface Neo4jSkip {
  reason: string;
  count: number;
  examples: string[];
}

export interface Neo4jWriteResult {
  /** Entity nodes of the data (MERGEd). */
  nodes: number;
  /**
   * Stale data removed after the MERGEs (see module header): relationships, :Entity nodes and :Alias nodes
   * the KG no longer holds; `keptForeign`: stale :Entity nodes kept because they have a relationship of
   * a type filmkw does not write. All 0 on a re-run of the same import.
   */
  removed: { relationships: number; nodes: number; aliases: number; keptForeign: number };
  /** Relationships written (MERGEd), ALIAS included. */
  relationships: number;
  ms: number;
  /** What the server reported as newly created (0 on a re-run of the same import). */
  created: { nodes: number; relationships: number };
  /**
   * What was written: entity nodes created or changed (properties or kind label), and the properties the
   * server reports as set. Both 0 on a re-run of the same import: an unchanged KG costs no writes.
   */
  written: { nodes: number; properties: number };
  skipped: Neo4jSkip[];
}

export const NEO4J_DEFAULTS = Object.freeze({
  batchSize: 5000,
  pageSize: 1000,
  tuning: Object.freeze({
    connectionTimeoutMs: 15_000,
    connectionAcquisitionTimeoutMs: 30_000,
    maxTransactionRetryTimeMs: 30_000,
    transactionTimeoutMs: 300_000,
    closeTimeoutMs: 2_000,
  } satisfies Neo4jTuning),
  /** At most this many examples per skip reason. */
  skipExamples: 5,
});

const URI_SCHEMES = ['bolt', 'bolt+s', 'bolt+ssc', 'neo4j', 'neo4j+s', 'neo4j+ssc'];

/** Environment variables for {@link Neo4jTuning} fields (milliseconds, positive integers). */
export const NEO4J_TUNING_ENV: Readonly<Record<string, keyof Neo4jTuning>> = Object.freeze({
  FILMKW_NEO4J_CONNECT_TIMEOUT_MS: 'connectionTimeoutMs',
  FILMKW_NEO4J_ACQUISITION_TIMEOUT_MS: 'connectionAcquisitionTimeoutMs',
  FILMKW_NEO4J_RETRY_TIME_MS: 'maxTransactionRetryTimeMs',
  FILMKW_NEO4J_TX_TIMEOUT_MS: 'transactionTimeoutMs',
});

/**
 * Connection settings from NEO4J_URI, NEO4J_USER (@default "neo4j"), NEO4J_PASSWORD and the optional
 * NEO4J_DATABASE, plus optional timeouts from {@link NEO4J_TUNING_ENV} (`tuning`, only when set).
 * Throws FilmkwError('USAGE') when the URI or password is missing, the URI scheme is not a Bolt/Neo4j
 * scheme, or a timeout is not a positive integer.
 */
export function neo4jConfigFromEnv(env: NodeJS.ProcessEnv = process.env): Neo4jConfig {
  const uri = env.NEO4J_URI?.trim();
  if (!uri) throw new FilmkwError('USAGE', 'neo4j: NEO4J_URI is not set (also NEO4J_USER, NEO4J_PASSWORD)');
  const scheme = /^([a-z0-9+]+):\/\//i.exec(uri)?.[1]?.toLowerCase();
  if (!scheme || !URI_SCHEMES.includes(scheme)) {
    throw new FilmkwError(
      'USAGE',
      `neo4j: NEO4J_URI "${redactUri(uri)}" must start with one of ${URI_SCHEMES.map((s) => s + '://').join(', ')}`,
    );
  }
  const password = env.NEO4J_PASSWORD;
  if (password === undefined) throw new FilmkwError('USAGE', 'neo4j: NEO4J_PASSWORD is not set (NEO4J_URI and NEO4J_USER are read too)');
  const user = env.NEO4J_USER?.trim() || 'neo4j';
  const database = env.NEO4J_DATABASE?.trim() || undefined;
  const cfg: Neo4jConfig = database ? { uri, user, password, database } : { uri, user, password };
  for (const [name, field] of Object.entries(NEO4J_TUNING_ENV)) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const ms = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(ms) || ms < 1) throw new FilmkwError('USAGE', `neo4j: ${name} must be a positive integer (milliseconds), got ${JSON.stringify(raw)}`);
    (cfg.tuning ??= {})[field] = ms;
  }
  return cfg;
}

/** The URI without user info (never print a password that was put into the URI). */
export function redactUri(uri: string): string {
  return uri.replace(/^([a-z0-9+]+:\/\/)[^@/]*@/i, '$1');
}
