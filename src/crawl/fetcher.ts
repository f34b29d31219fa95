/**
 * The crawler's fetch layer: one GET with a timeout, a body-size cap, manual redirects with a limit,
 * Content-Encoding gzip / deflate / br decoded as it streams in (node:zlib; the size cap counts the
 * decoded bytes, so a small compressed body cannot expand past it: no decompression bomb),
 * and (with `via`) every request sent to a replay server with the original Host header instead of the
 * network (crawl-test-web.md §4.3: no DNS, no /etc/hosts). node:http/https with keep-alive agents of one
 * socket per host (politeness: one connection per host; through a replay server one pool, the crawler
 * keeping one request per host). robots.txt through robots-parser, cached per
 * host; a 5xx or unreachable robots.txt disallows the host (RFC 9309 §2.3.1.4), a 4xx allows all.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { Transform } from 'node:stream';
import { hostAllowed, userAgentHeader, type CrawlOptions } from './options.js';
import { normalizeUrl } from './url.js';

export interface FetchResult {
  /** The URL asked for. */
  url: string;
  /** Where the redirects ended (absent without redirect). */
  finalUrl?: string;
  status: number;
  contentType?: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
  /** A clear reason when nothing usable came back (timeout, refused, too big, redirect loop…). */
  error?: string;
  ms: number;
}

interface Robots {
  isDisallowed(url: string, ua?: string): boolean | undefined;
  getMatchingLineNumber(url: string, ua?: string): number;
  getCrawlDelay(ua?: string): number | undefined;
}
/** robots-parser is CommonJS whose typings do not describe its default export under NodeNext. */
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => Robots;

/** At most this many attempts of one request while kept-alive sockets turn out closed (see `once`). */
const STALE_SOCKET_RETRIES = 32;

type FetchOpts = Pick<CrawlOptions, 'timeoutMs' | 'maxBytes' | 'maxRedirects' | 'userAgent' | 'contact' | 'allowHosts' | 'denyHosts'>;

/** Content codings the fetcher decodes (RFC 9110 §8.4.1), by their header value. */
const DECODERS: Record<string, (first: number) => Transform> = {
  gzip: () => createGunzip(),
  'x-gzip': () => createGunzip(),
  // "deflate" is the zlib format, but some servers send raw deflate: told apart by the first byte
  deflate: (first) => ((first & 0x0f) === 8 ? createInflate() : createInflateRaw()),
  br: () => createBrotliDecompress(),
};

/** The recorded response headers of a decoded body: no content coding, no length of the coded body. */
function decodedHeaders(h: Record<string, string>): Record<string, string> {
  const { 'content-encoding': _ce, 'content-length': _cl, ...rest } = h;
  return rest;
}

const ERRNO_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EAI_AGAIN: 'host name lookup failed',
};

export class Fetcher {
  private readonly via?: URL;
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 1 });
  /** Every request goes to the replay server: one pool for all hosts (the crawler keeps one request per host). */
  private readonly viaAgent = new HttpAgent({ keepAlive: true });
  private readonly userAgent: string;

  constructor(
    private readonly o: FetchOpts,
    via?: string,
  ) {
    if (via) this.via = new URL(via);
    this.userAgent = userAgentHeader(o);
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
    this.viaAgent.destroy();
  }

  /**
   * One request, no redirect handling. A kept-alive socket the server closed while it was idle fails
   * with ECONNRESET as the request goes out: the request is made again (the retry node's http documentation
   * gives for `request.reusedSocket`). Several idle sockets may have been closed at once (a crawler busy for
   * longer than the server's keep-alive timeout), so it goes on while the failed socket was a reused one:
   * each failure destroys that socket, and a fresh socket's failure is the answer. Bounded all the same.
   */
  private async once(url: string, limit: number): Promise<Omit<FetchResult, 'url' | 'ms'>> {
    let r = await this.attempt(url, limit);
    for (let tries = 1; r.staleSocket && tries < STALE_SOCKET_RETRIES; tries++) r = await this.attempt(url, limit);
    const { staleSocket: _s, ...rest } = r;
    return rest;
  }

  private attempt(url: string, limit: number): Promise<Omit<FetchResult, 'url' | 'ms'> & { staleSocket?: boolean }> {
    const u = new URL(url);
    const headers = { host: u.host, 'user-agent': this.userAgent, accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5', 'accept-encoding': 'gzip, deflate, br' };
    const path = `${u.pathname}${u.search}`;
    return new Promise((resolve) => {
      let done = false;
      const finish = (r: Omit<FetchResult, 'url' | 'ms'> & { staleSocket?: boolean }) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(r);
      };
      const onResponse = (res: IncomingMessage) => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h[k] = Array.isArray(v) ? v.join(', ') : v;
        const status = res.statusCode ?? 0;
        const declared = Number(h['content-length']);
        if (Number.isFinite(declared) && declared > limit) {
          res.destroy();
          finish({ status, headers: h, contentType: h['content-type'], error: `body of ${declared} bytes is larger than the cap of ${limit} bytes` });
          return;
        }
        const coding = (h['content-encoding'] ?? 'identity').trim().toLowerCase();
        if (coding !== 'identity' && !DECODERS[coding]) {
          res.destroy();
          finish({ status, headers: h, contentType: h['content-type'], error: `content-encoding ${coding} is not supported` });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        const take = (c: Buffer) => {
          if (done) return;
          size += c.length;
          if (size > limit) {
            res.destroy();
            decoder?.destroy();
            finish({ status, headers: h, contentType: h['content-type'], error: `body larger than the cap of ${limit} bytes${decoder ? ` once decoded (content-encoding ${coding})` : ''}` });
            return;
          }
          chunks.push(c);
        };
        const end = () => {
          const b = Buffer.concat(chunks);
          finish({ status, headers: decoder ? decodedHeaders(h) : h, contentType: h['content-type'], body: new Uint8Array(b.buffer, b.byteOffset, b.byteLength) });
        };
        let decoder: Transform | undefined;
        if (coding === 'identity') {
          res.on('data', take);
          res.on('end', end);
        } else {
          res.once('data', (first: Buffer) => {
            decoder = DECODERS[coding]!(first[0] ?? 0);
            decoder.on('data', take);
            decoder.on('end', end);
            decoder.on('error', (e: Error) => {
              res.destroy();
              finish({ status, headers: h, contentType: h['content-type'], error: `body not decodable as ${coding}: ${e.message}` });
            });
            decoder.write(first);
            res.pipe(decoder);
          });
          // an empty coded body: nothing to decode
          res.on('end', () => {
            if (!decoder) end();
          });
        }
        res.on('error', (e: NodeJS.ErrnoException) => finish({ status, error: `response broken off: ${ERRNO_WORDS[e.code ?? ''] ?? e.message}` }));
      };
      const req = this.via
        ? httpRequest({ host: this.via.hostname, port: this.via.port || 80, path, method: 'GET', headers, agent: this.viaAgent }, onResponse)
        : (u.protocol === 'https:' ? httpsRequest : httpRequest)({ host: u.hostname, port: u.port || undefined, path, method: 'GET', headers, agent: u.protocol === 'https:' ? this.httpsAgent : this.httpAgent }, onResponse);
      const timer = setTimeout(() => {
        req.destroy();
        finish({ status: 0, error: `timeout after ${this.o.timeoutMs} ms` });
      }, this.o.timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => finish({ status: 0, error: ERRNO_WORDS[e.code ?? ''] ?? `request failed: ${e.message}`, ...(req.reusedSocket && e.code === 'ECONNRESET' ? { staleSocket: true } : {}) }));
      req.end();
    });
  }

  /**
   * GET `url`, following at most maxRedirects redirects; a redirect to a host the options exclude, to a
   * non-http(s) URL or back to a URL already visited in the chain ends it with an error. `allowed(url)`
   * is asked for every redirect target (robots.txt).
   */
  async fetch(url: string, allowed: (url: string) => Promise<string | null> = async () => null, limit = this.o.maxBytes): Promise<FetchResult> {
    const t0 = performance.now();
    const chain = new Set<string>([url]);
    let current = url;
    for (let hop = 0; ; hop++) {
      const r = await this.once(current, limit);
      const ms = Math.round(performance.now() - t0);
      const loc = r.headers?.location;
      if (r.status >= 300 && r.status < 400 && loc !== undefined && !r.error) {
        const n = normalizeUrl(loc, current);
        const base = { url, finalUrl: current, status: r.status, ms };
        if ('error' in n) return { ...base, error: `redirect to a bad location: ${n.error}` };
        if (hop >= this.o.maxRedirects) return { ...base, error: `more than ${this.o.maxRedirects} redirects` };
        if (chain.has(n.url)) return { ...base, error: `redirect loop back to ${n.url}` };
        if (!hostAllowed(new URL(n.url).host, this.o)) return { ...base, error: `redirect to ${new URL(n.url).host}, a host the options exclude` };
        const why = await allowed(n.url);
        if (why) return { ...base, error: `redirect to ${n.url}: ${why}` };
        chain.add(n.url);
        current = n.url;
        continue;
      }
      return { url, ...(current !== url ? { finalUrl: current } : {}), ...r, ms };
    }
  }
}

export interface HostRules {
  /** Undefined when allowed; else why not. */
  disallowed(url: string): string | undefined;
  crawlDelayMs: number;
  note?: string;
}

/** robots.txt rules of one host, fetched through `fetcher` (not counted as a page). */
export async function fetchRobots(fetcher: Fetcher, origin: string, userAgent: string): Promise<HostRules> {
  const robotsUrl = `${origin}/robots.txt`;
  const r = await fetcher.fetch(robotsUrl, async () => null, 512 * 1024);
  if (r.error || r.status >= 500 || r.status === 0) {
    const why = `robots.txt unavailable (${r.error ?? `status ${r.status}`}): host not crawled`;
    return { disallowed: () => why, crawlDelayMs: 0, note: why };
  }
  if (r.status >= 400 || !r.body) return { disallowed: () => undefined, crawlDelayMs: 0, note: `robots.txt status ${r.status}: all allowed` };
  const text = new TextDecoder('utf-8').decode(r.body);
  // robots-parser skips lines it does not understand; a file of garbage is therefore "allow all"
  const robots = robotsParser(robotsUrl, text);
  const delay = robots.getCrawlDelay(userAgent);
  return {
    disallowed: (url) => (robots.isDisallowed(url, userAgent) ? `disallowed by robots.txt (line ${robots.getMatchingLineNumber(url, userAgent)})` : undefined),
    crawlDelayMs: typeof delay === 'number' && Number.isFinite(delay) && delay > 0 ? Math.round(delay * 1000) : 0,
  };
}
