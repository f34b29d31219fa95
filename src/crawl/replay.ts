/**
 * Replay server: serves saved pages at their original URLs on a local port (crawl-test-web.md §4.3).
 * Dispatch is on the Host header + path + query (normalised like the crawler's URLs, scheme ignored),
 * so a crawler that sends every request here with the original Host sees the original web: per-host
 * robots.txt (from the manifest, else an allow-all file), redirects, error statuses and slow pages as
 * the manifest says (src/crawl/manifest.ts); any other URL is 404. Built on node:http.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { inputError } from '../errors.js';
import { readManifest, type ManifestEntry } from './manifest.js';
import { normalizeUrl, replayKey } from './url.js';

export const ALLOW_ALL_ROBOTS = 'User-agent: *\nAllow: /\n';

export interface ReplayStats {
  requests: number;
  /** Requests per replay key (host + path + query), for tests that check nothing is fetched twice. */
  hits: Map<string, number>;
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

/** Starts the server on 127.0.0.1 (or `host`); port 0 picks a free one. */
export async function startReplay(manifests: readonly string[], opts: { port?: number; host?: string } = {}): Promise<ReplayServer> {
  const table = replayTable(manifests);
  const hostSet = new Set<string>();
  for (const e of table.values()) hostSet.add(new URL(e.url).host);
  const stats: ReplayStats = { requests: 0, hits: new Map() };
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
    stats.hits.set(key, (stats.hits.get(key) ?? 0) + 1);
    const e = table.get(key);
    if (!e) {
      if (new URL(n.url).pathname === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end(ALLOW_ALL_ROBOTS);
      else res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>404 Not Found</h1></body></html>');
      return;
    }
    const b = e.body;
    if (b.kind === 'redirect') {
      res.writeHead(301, { location: b.location, 'content-type': 'text/html' }).end('<html><body>moved</body></html>');
      return;
    }
    if (b.kind === 'status') {
      res.writeHead(b.status, { 'content-type': 'text/html' }).end(`<html><body><h1>${b.status}</h1></body></html>`);
      return;
    }
    if (b.delayMs > 0) await new Promise((r) => setTimeout(r, b.delayMs));
    let bytes: Buffer;
    try {
      bytes = await readFile(b.path);
    } catch {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('saved file unreadable\n');
      return;
    }
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': contentTypeOf(e, b.path), 'content-length': bytes.length });
    res.end(req.method === 'HEAD' ? undefined : bytes);
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
