/**
 * Replay server: serves saved pages at their original URLs on a local port (crawl-test-web.md §4.3).
 * Dispatch is on the Host header + path + query (normalised like the crawler's URLs, scheme ignored),
 * so a crawler that sends every request here with the original Host sees the original web: per-host
 * robots.txt (from the manifest, else an allow-all file), redirects, error statuses and slow pages as
 * the manifest says (src/crawl/manifest.ts); any other URL is 404. Built on node:http.
 *
 * Real-world timing (option `latency`): every response waits a latency drawn from [minMs, maxMs], per
 * request or (`perHost`) once per host, from a hash of the URL or host (deterministic: the same web
 * answers with the same latencies); `slowHosts` adds a fixed delay to named hosts. The statistics count
 * requests in flight, overall and per host, and (`log`) record each request's arrival and answer times,
 * so tests can check the crawler's concurrency and per-host rules from the server's side.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { inputError } from '../errors.js';
import { readManifest, type ManifestEntry } from './manifest.js';
import { normalizeUrl, replayKey, urlHash } from './url.js';

export const ALLOW_ALL_ROBOTS = 'User-agent: *\nAllow: /\n';

export interface ReplayStats {
  requests: number;
  /** Requests per replay key (host + path + query), for tests that check nothing is fetched twice. */
  hits: Map<string, number>;
  /** Requests being answered now, and the most at any moment. */
  inFlight: number;
  maxInFlight: number;
  /** The most requests answered at once for one host. */
  maxHostInFlight: number;
  /** With `log`: every request, in arrival order (times from performance.now(); `end` when the answer was handed over). */
  log?: { host: string; key: string; start: number; end?: number }[];
}

/** Response latency of the replayed web: uniform in [minMs, maxMs], drawn per request or once per host. */
export interface ReplayLatency {
  minMs: number;
  maxMs: number;
  perHost: boolean;
}

export interface ReplayOptions {
  port?: number;
  host?: string;
  latency?: ReplayLatency;
  /** Extra delay (ms) of every response of these hosts. */
  slowHosts?: ReadonlyMap<string, number>;
  /** Record every request in `stats.log`. */
  log?: boolean;
  /** Called before a request is answered (tests hold answers with it). */
  beforeAnswer?: (req: { host: string; key: string }) => Promise<void> | void;
}

/** Parses `ms` or `min-max` (milliseconds) as a latency range; null when malformed. */
export function parseLatency(s: string): { minMs: number; maxMs: number } | null {
  const m = /^(\d{1,6})(?:-(\d{1,6}))?$/u.exec(s.trim());
  if (!m) return null;
  const minMs = Number(m[1]);
  const maxMs = m[2] === undefined ? minMs : Number(m[2]);
  return maxMs >= minMs ? { minMs, maxMs } : null;
}

/** The latency of one answer (see the module header): a fixed point of [min, max] from a hash. */
export function latencyOf(l: ReplayLatency, host: string, key: string, nth: number): number {
  const u = parseInt(urlHash(l.perHost ? `host:${host}` : `req:${key}#${nth}`, 8), 16) / 0x100000000;
  return Math.round(l.minMs + u * (l.maxMs - l.minMs));
}

export interface ReplayServer {
  readonly port: number;
  readonly url: string;
  readonly entries: number;
  readonly hosts: number;
  readonly stats: ReplayStats;
  close(): Promise<void>;
}

function contentTypeOf(e: ManifestEntry, path: string): string {
  if (e.contentType) return e.contentType;
  if (/\.txt$/iu.test(path) || /\/robots\.txt$/u.test(e.key)) return 'text/plain';
  if (/\.(json|jsonl)$/iu.test(path)) return 'application/json';
  if (/\.(png|jpe?g|gif|bin|gz|zip|pdf)$/iu.test(path)) return 'application/octet-stream';
  return 'text/html';
}

/** Builds the key → entry table of several manifests; a URL listed twice is an error naming both lines. */
export function replayTable(manifests: readonly string[]): Map<string, ManifestEntry> {
  const table = new Map<string, ManifestEntry>();
  for (const m of manifests) {
    for (const e of readManifest(m)) {
      const prev = table.get(e.key);
      if (prev) throw inputError(`replay: ${e.where}: URL ${e.url} is already listed at ${prev.where}`);
      table.set(e.key, e);
    }
  }
  return table;
}

/** Starts the server on 127.0.0.1 (or `host`); port 0 picks a free one; see the module header for the options. */
type Answer = { status: number; headers: Record<string, string | number>; body?: string | Buffer };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The answer of the replayed web to a request for `n` (a normalised URL). */
async function answerOf(table: ReadonlyMap<string, ManifestEntry>, url: string): Promise<Answer> {
  const e = table.get(replayKey(url));
  if (!e) {
    if (new URL(url).pathname === '/robots.txt') return { status: 200, headers: { 'content-type': 'text/plain' }, body: ALLOW_ALL_ROBOTS };
    return { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><body><h1>404 Not Found</h1></body></html>' };
  }
  const b = e.body;
  if (b.kind === 'redirect') return { status: 301, headers: { location: b.location, 'content-type': 'text/html' }, body: '<html><body>moved</body></html>' };
  if (b.kind === 'status') return { status: b.status, headers: { 'content-type': 'text/html' }, body: `<html><body><h1>${b.status}</h1></body></html>` };
  if (b.delayMs > 0) await sleep(b.delayMs);
  try {
    const bytes = await readFile(b.path);
    return { status: 200, headers: { 'content-type': contentTypeOf(e, b.path), 'content-length': bytes.length }, body: bytes };
  } catch {
    return { status: 500, headers: { 'content-type': 'text/plain' }, body: 'saved file unreadable\n' };
  }
}

export async function startReplay(manifests: readonly string[], opts: ReplayOptions = {}): Promise<ReplayServer> {
  const table = replayTable(manifests);
  const hostSet = new Set<string>();
  for (const e of table.values()) hostSet.add(new URL(e.url).host);
  const stats: ReplayStats = { requests: 0, hits: new Map(), inFlight: 0, maxInFlight: 0, maxHostInFlight: 0, ...(opts.log ? { log: [] } : {}) };
  const hostInFlight = new Map<string, number>();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    stats.requests++;
    const host = req.headers.host ?? '';
    const target = req.url ?? '/';
    const n = /^https?:\/\//iu.test(target) ? normalizeUrl(target) : normalizeUrl(`http://${host}${target.startsWith('/') ? '' : '/'}${target}`);
    if ('error' in n) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`bad request: ${n.error}\n`);
      return;
    }
    const key = replayKey(n.url);
    const nth = (stats.hits.get(key) ?? 0) + 1;
    stats.hits.set(key, nth);
    const entry = { host, key, start: performance.now() } as NonNullable<ReplayStats['log']>[number];
    stats.log?.push(entry);
    stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
    const h = (hostInFlight.get(host) ?? 0) + 1;
    hostInFlight.set(host, h);
    stats.maxHostInFlight = Math.max(stats.maxHostInFlight, h);
    let answer: Answer = { status: 500, headers: {} };
    try {
      const wait = (opts.latency ? latencyOf(opts.latency, host, key, nth) : 0) + (opts.slowHosts?.get(host) ?? 0);
      if (wait > 0) await sleep(wait);
      await opts.beforeAnswer?.({ host, key });
      answer = await answerOf(table, n.url);
    } finally {
      // counted out before the answer is handed over: a client can never see it while it is still counted
      stats.inFlight--;
      hostInFlight.set(host, hostInFlight.get(host)! - 1);
      entry.end = performance.now();
    }
    if (res.destroyed) return;
    res.writeHead(answer.status, answer.headers);
    res.end(req.method === 'HEAD' ? undefined : answer.body);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(inputError(`replay: cannot listen on ${opts.host ?? '127.0.0.1'}:${opts.port ?? 0}: ${err.code === 'EADDRINUSE' ? 'the port is in use' : err.message}`, err)),
    );
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    entries: table.size,
    hosts: hostSet.size,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
