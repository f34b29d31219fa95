/**
 * Politeness (Scrapy's downloader slots, Heritrix's per-host queue delay): robots.txt rules per host
 * (fetched once, through the fetcher, cached), at most one request in flight per host, and a least delay
 * between the starts of two requests to one host: max(delayMs, the host's robots Crawl-delay), raised by
 * the adaptive delay when `autoThrottle` is on ({@link autoThrottleDelay}).
 */
import { fetchRobots, type Fetcher, type HostRules } from './fetcher.js';
import type { CrawlOptions } from './options.js';

const ALLOW_ALL: HostRules = Object.freeze({ disallowed: () => undefined, crawlDelayMs: 0 });

/**
 * Scrapy's AutoThrottle rule (docs: "AutoThrottle extension", throttling algorithm): after a response
 * with latency L, the target delay is L / targetConcurrency; the new delay is the mean of the old delay
 * and the target, never below the target, clamped to [minDelay, maxDelay]. An error or non-2xx response
 * never lowers the delay (a failing host is not hammered faster).
 */
export function autoThrottleDelay(old: number, latencyMs: number, ok: boolean, o: { target: number; minDelayMs: number; maxDelayMs: number }): number {
  const target = latencyMs / o.target;
  let next = Math.max(target, (old + target) / 2);
  if (!ok && next < old) next = old;
  return Math.min(Math.max(next, o.minDelayMs), o.maxDelayMs);
}

type PolitenessOptions = Pick<CrawlOptions, 'respectRobots' | 'userAgent' | 'autoThrottle' | 'autoThrottleTarget' | 'autoThrottleMaxDelayMs'>;

export class Politeness {
  private readonly robots = new Map<string, Promise<HostRules>>();
  /** Rules of the hosts whose robots.txt has been read (its Crawl-delay is known). */
  private readonly known = new Map<string, HostRules>();
  /** Start of the last request per host (performance.now()). */
  private readonly last = new Map<string, number>();
  private readonly busy = new Set<string>();
  /** AutoThrottle's current delay per host. */
  private readonly throttled = new Map<string, number>();

  /** `delayMs`: the least delay between two requests to one host (the option, resolved for --via). */
  constructor(
    private readonly o: Readonly<PolitenessOptions>,
    private readonly fetcher: Fetcher,
    private readonly delayMs: number,
  ) {}

  /** robots.txt rules of the host of `url` (fetched on first use; all allowed when robots are not respected). */
  rulesOf(url: string): Promise<HostRules> {
    const u = new URL(url);
    const key = u.host;
    let r = this.robots.get(key);
    if (!r) {
      r = this.o.respectRobots ? fetchRobots(this.fetcher, u.origin, this.o.userAgent) : Promise.resolve(ALLOW_ALL);
      r.then((rules) => this.known.set(key, rules)).catch(() => undefined);
      this.robots.set(key, r);
    }
    return r;
  }

  /** Why robots.txt forbids `url`, or null. */
  readonly robotsCheck = async (url: string): Promise<string | null> => (await this.rulesOf(url)).disallowed(url) ?? null;

  /** The least delay between two requests to `host` now. */
  delayOf(host: string): number {
    const base = Math.max(this.delayMs, this.known.get(host)?.crawlDelayMs ?? 0);
    return this.o.autoThrottle ? Math.max(base, this.throttled.get(host) ?? base) : base;
  }

  /** When `host` may be asked next (performance.now() time). */
  readyAt(host: string): number {
    return (this.last.get(host) ?? -Infinity) + this.delayOf(host);
  }

  isBusy(host: string): boolean {
    return this.busy.has(host);
  }

  /** A request to `host` is under way (at most one per host). */
  claim(host: string): void {
    this.busy.add(host);
  }

  /** The request to `host` is over; `latencyMs` and `ok` feed the adaptive delay. */
  release(host: string, latencyMs?: number, ok = true): void {
    this.busy.delete(host);
    if (this.o.autoThrottle && latencyMs !== undefined) {
      const base = Math.max(this.delayMs, this.known.get(host)?.crawlDelayMs ?? 0);
      const old = this.throttled.get(host) ?? base;
      this.throttled.set(host, autoThrottleDelay(old, latencyMs, ok, { target: this.o.autoThrottleTarget, minDelayMs: base, maxDelayMs: Math.max(base, this.o.autoThrottleMaxDelayMs) }));
    }
  }

  /** Waits until `host` may be asked, then records the request's start; returns that time (ms since the epoch). */
  async waitTurn(host: string): Promise<number> {
    for (let wait = this.readyAt(host) - performance.now(); wait > 0; wait = this.readyAt(host) - performance.now()) {
      await new Promise((r) => setTimeout(r, wait));
    }
    const now = performance.now();
    this.last.set(host, now);
    return Math.round((performance.timeOrigin + now) * 10) / 10;
  }
}
