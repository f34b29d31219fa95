/**
 * The driver plumbing of the Neo4j jobs (neo4j.ts): a driver opened per job with the tuning's timeouts,
 * the connectivity check, a client-side deadline on every managed transaction (the driver has no read
 * timeout of its own), bounded closing, the sockets a driver leaves open destroyed, and the job's errors
 * classified (neo4j-errors.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import neo4j, { Neo4jError, type Driver } from 'neo4j-driver';
import { FilmkwError } from '../errors.js';
import { NEO4J_DEFAULTS, redactUri, type Neo4jConfig, type Neo4jTuning } from './neo4j-config.js';
import { classifyNeo4jError, codeOf, shortCause, type Phase } from './neo4j-errors.js';

/** The client-side deadline passed: the server (or the network to it) went silent. */
class NoAnswerError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`no answer from the server in ${ms} ms (network partition or stuck server?)`);
    this.name = 'NoAnswerError';
  }
}

/** `p`, or a NoAnswerError after `ms` (p keeps running; its late rejection is swallowed). */
function deadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      p.catch(() => undefined);
      reject(new NoAnswerError(ms));
    }, ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/** Closes a session or driver, giving up after `ms` (a partitioned peer never answers). Never throws. */
async function closeWithin(x: { close(): Promise<void> }, ms: number): Promise<void> {
  await deadline(x.close(), ms).catch(() => undefined);
}

function openDriver(cfg: Neo4jConfig, t: Neo4jTuning): Driver {
  try {
    return neo4j.driver(cfg.uri, neo4j.auth.basic(cfg.user, cfg.password), {
      disableLosslessIntegers: true,
      connectionTimeout: t.connectionTimeoutMs,
      connectionAcquisitionTimeout: t.connectionAcquisitionTimeoutMs,
      maxTransactionRetryTime: t.maxTransactionRetryTimeMs,
      userAgent: 'filmkw',
    });
  } catch (err) {
    throw new FilmkwError('USAGE', `neo4j: bad NEO4J_URI "${redactUri(cfg.uri)}": ${shortCause(err)}`, { cause: err });
  }
}

/**
 * The TCP sockets each job's driver opened. The driver does not track a connection that is still in its
 * Bolt handshake: when acquiring it times out (a peer that accepts TCP but never answers), `driver.close()`
 * leaves that socket open, and an open socket keeps the process alive after the job has failed. Node
 * publishes every `net.connect` socket on the `net.client.socket` diagnostics channel; the job's
 * AsyncLocalStorage context (which the driver's connection set-up runs in) attributes it to the job, so
 * {@link withDriver} can destroy what is still open once the driver is closed, without touching sockets of
 * other jobs or other code of the process. TLS schemes (`+s`, `+ssc`) open theirs through `tls.connect`,
 * which is not published; the CLI's launcher ends the process after the command in any case.
 */
const jobSockets = new AsyncLocalStorage<Set<Socket>>();
subscribe('net.client.socket', (msg) => {
  jobSockets.getStore()?.add((msg as { socket: Socket }).socket);
});

/** Destroys the sockets a job's driver left open (see {@link jobSockets}); returns how many. */
function destroyLeftSockets(sockets: Set<Socket>): number {
  let n = 0;
  for (const s of sockets) {
    if (!s.destroyed) {
      s.destroy();
      n++;
    }
  }
  sockets.clear();
  return n;
}

/** What a job gets from {@link withDriver}. */
export interface JobCtx {
  driver: Driver;
  setPhase: (p: Phase) => void;
  /** Bounds one managed transaction (retries included) by `transactionTimeoutMs`. */
  guard: <T>(p: Promise<T>) => Promise<T>;
  /** Closes a session within `closeTimeoutMs`. */
  closeSession: (s: { close(): Promise<void> }) => Promise<void>;
}

/**
 * Opens a driver, checks connectivity and credentials, runs `job`, always closes the driver (within
 * `closeTimeoutMs`). Tuning: defaults, then `cfg.tuning` (environment), then the job's `tuning`.
 */
export async function withDriver<T>(cfg: Neo4jConfig, tuning: Partial<Neo4jTuning> | undefined, job: (ctx: JobCtx) => Promise<T>): Promise<T> {
  const sockets = new Set<Socket>();
  return jobSockets.run(sockets, () => withDriverIn(sockets, cfg, tuning, job));
}

async function withDriverIn<T>(sockets: Set<Socket>, cfg: Neo4jConfig, tuning: Partial<Neo4jTuning> | undefined, job: (ctx: JobCtx) => Promise<T>): Promise<T> {
  const t: Neo4jTuning = { ...NEO4J_DEFAULTS.tuning, ...cfg.tuning, ...tuning };
  const driver = openDriver(cfg, t);
  let phase: Phase = 'connect';
  let silent = false; // a deadline passed: the connection is dead, a graceful close would only wait
  const guard = <U>(p: Promise<U>) =>
    deadline(p, t.transactionTimeoutMs).catch((e: unknown) => {
      if (e instanceof NoAnswerError) silent = true;
      throw e;
    });
  const closeSession = async (s: { close(): Promise<void> }) => {
    if (!silent) await closeWithin(s, t.closeTimeoutMs);
  };
  try {
    await guard(driver.verifyConnectivity(cfg.database ? { database: cfg.database } : {}));
    return await job({ driver, setPhase: (p) => (phase = p), guard, closeSession });
  } catch (err) {
    // a plain exception without a driver/system error code is a bug of ours: keep it (internal error)
    if (!(err instanceof Neo4jError) && !(err instanceof FilmkwError) && !codeOf(err)) throw err;
    throw classifyNeo4jError(err, { uri: cfg.uri, user: cfg.user, phase, database: cfg.database });
  } finally {
    // the driver's close also closes connections in use (the hung one included)
    await closeWithin(driver, silent ? Math.min(t.closeTimeoutMs, 1000) : t.closeTimeoutMs);
    destroyLeftSockets(sockets);
  }
}

/** A count from the server as a JS number (integers are disabled on the driver; converted defensively anyway). */
export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (neo4j.isInt(v)) return (v as { toNumber(): number }).toNumber();
  if (typeof v === 'bigint') return Number(v);
  return v == null ? 0 : Number(v);
}

/** A session on the configured database. */
export function sessionFor(driver: Driver, cfg: Neo4jConfig) {
  return driver.session(cfg.database ? { database: cfg.database } : {});
}
