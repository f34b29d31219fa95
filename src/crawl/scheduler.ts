/**
 * The crawl scheduler (Scrapy's scheduler, Crawlee's request queue): the frontier of fetched pages waiting
 * to be expanded, the seen-set, and the expansions in progress. An expansion is one popped frontier entry
 * whose children are being fetched ahead (004's lookahead; the seeds are one expansion too). Its children
 * are requests in one priority order: earlier expansion first, then child order (best link prior first).
 *
 * Every change of state is one of five transitions, each journalled by the crawler so that a resume
 * replays them without the network: `pop` (take the frontier's best entry), `take` (a child becomes a
 * request: the journal's intent), `complete` (a request's page joins its expansion), `finish` (an
 * expansion is over: its children and, for the two-step frontier, the page itself go back to the
 * frontier with a continuation of its unfetched links) and the save decisions (in crawler.ts).
 *
 * Which child is taken next is decided by {@link Expansion.next}: children in order, seen ones skipped,
 * closed at `maxLookahead` children, at the budget, or (lookahead gate) at the first child whose link
 * prior is below the best entry waiting when the page was popped. With a `ready` test (concurrency > 1),
 * a child whose host may not be asked yet is passed over and taken later, so one slow host never blocks
 * the others (the Mercator per-host queue).
 */
import { Frontier, type FrontierEntry } from './frontier.js';
import type { CrawlOptions } from './options.js';
import { reserveKey, tunnelKey, twoStepScore } from './relevance.js';
import { createSeenSet, type SeenSet } from './seen.js';
import { hostKey, urlKey } from './url.js';
import { documentOrder } from './links.js';

const TAKEN = 1;
const SKIPPED = 2;

/** A child taken for fetching: the request the crawler makes. */
export interface CrawlRequest {
  url: string;
  host: string;
  depth: number;
  /** The page whose expansion took it (null: a seed). */
  parent: FrontierEntry | null;
  expansion: Expansion;
  /** Index of the child in its expansion. */
  index: number;
}

/** One expansion: the candidate children of a page (or the seeds) and which of them were taken. */
export class Expansion {
  readonly urls: string[];
  readonly priors: number[];
  private readonly keys: number[];
  private readonly hosts: (string | undefined)[];
  private readonly marks: Uint8Array;
  /** Children taken so far. */
  count = 0;
  /** Children taken and not completed yet. */
  inFlight = 0;
  /** Index where the expansion closed (−1 while open). */
  stop = -1;
  /** First index not examined yet; below it, every child is taken, skipped (seen) or waiting for its host. */
  private scanned = 0;
  /** First index below `scanned` that may still be untaken. */
  private cursor = 0;
  readonly kids: FrontierEntry[] = [];
  /** Children completed, and those that were pages with links. */
  tried = 0;
  fruitful = 0;

  /**
   * `gate`: the key of the best entry waiting when the page was popped (null: no lookahead gate).
   * `closed`: the page is at the depth limit; its links are dropped (no child, no continuation).
   * `byYield`: the gate compares each prior times the page's link yield so far (option linkYield).
   */
  constructor(
    readonly entry: FrontierEntry | null,
    all: readonly { url: string; prior: number }[],
    private readonly limit: number,
    private readonly gate: number | null,
    closed = false,
    private readonly byYield = false,
  ) {
    const links = closed ? [] : all;
    this.urls = links.map((l) => l.url);
    this.priors = links.map((l) => l.prior);
    this.keys = this.urls.map(urlKey);
    this.hosts = new Array<string | undefined>(links.length);
    this.marks = new Uint8Array(links.length);
  }

  /** The page this expansion belongs to ('' for the seeds). */
  get url(): string {
    return this.entry?.url ?? '';
  }

  /** The expansion's id in the journal: its frontier entry's discovery number (−1 for the seeds). */
  get id(): number {
    return this.entry?.seq ?? -1;
  }

  host(i: number): string {
    return (this.hosts[i] ??= hostKey(this.urls[i]!));
  }

  /**
   * Index of the next child to take, or −1 (closed, or every open child waits for its host). Closing
   * conditions are tested on a child when it is examined for the first time, in the order of the
   * sequential crawler: limit, budget, gate, seen.
   */
  next(seen: SeenSet, budgetOk: () => boolean, ready?: (host: string) => boolean): number {
    if (this.stop >= 0) return -1;
    // children passed over before (seen since, or waiting for their host)
    for (let i = this.cursor; i < this.scanned; i++) {
      if (this.marks[i]) {
        if (i === this.cursor) this.cursor++;
        continue;
      }
      if (seen.has(this.keys[i]!)) {
        this.marks[i] = SKIPPED;
        if (i === this.cursor) this.cursor++;
        continue;
      }
      if (this.count >= this.limit || !budgetOk()) return this.close(this.scanned);
      if (!ready || ready(this.host(i))) return i;
    }
    let waiting = this.cursor < this.scanned;
    for (; this.scanned < this.urls.length; this.scanned++) {
      const i = this.scanned;
      if (this.count >= this.limit || !budgetOk() || (this.gate !== null && this.count > 0 && this.priors[i]! * this.linkYield() < this.gate)) return this.close(i);
      if (seen.has(this.keys[i]!)) {
        this.marks[i] = SKIPPED;
        continue;
      }
      if (!ready || ready(this.host(i))) return i;
      waiting = true;
    }
    return waiting ? -1 : this.close(this.urls.length);
  }

  /** (pages with links + 1) / (links fetched + 1) over the page's links fetched so far; 1 without `byYield`. */
  linkYield(): number {
    if (!this.byYield) return 1;
    return ((this.entry?.fruitful ?? 0) + this.fruitful + 1) / ((this.entry?.tried ?? 0) + this.tried + 1);
  }

  private close(at: number): number {
    this.stop = at;
    return -1;
  }

  /** Marks child `i` as taken (a request): counted, its URL seen. */
  take(i: number, seen: SeenSet): void {
    this.marks[i] = TAKEN;
    this.count++;
    this.inFlight++;
    if (i >= this.scanned) this.scanned = i + 1;
    seen.add(this.keys[i]!);
  }

  /** Closes the expansion at `stop` (a replayed `done`): as {@link next} closes it, at the first child not examined. */
  closeAt(stop: number): void {
    this.stop = stop;
    this.scanned = Math.max(this.scanned, stop);
  }

  /** Unfetched links left when the expansion closed: never taken, and either past the close or not seen. */
  rest(seen: SeenSet): { url: string; prior: number }[] {
    const out: { url: string; prior: number }[] = [];
    for (let i = 0; i < this.urls.length; i++) {
      if (this.marks[i] === TAKEN || (i < this.stop && seen.has(this.keys[i]!))) continue;
      out.push({ url: this.urls[i]!, prior: this.priors[i]! });
    }
    return out;
  }
}

/** Prior of the first of `url<TAB>prior` lines (0 when there is none). */
function firstPrior(links: string): number {
  const tab = links.indexOf('\t');
  return tab < 0 ? 0 : Number(links.slice(tab + 1, links.indexOf('\n') >>> 0)) || 0;
}

/** Frontier entry links are stored as `url<TAB>prior` lines (compact: one string per page). */
export function entryLinks(e: FrontierEntry): { url: string; prior: number }[] {
  if (!e.links) return [];
  return e.links.split('\n').map((l) => {
    const [url, prior] = l.split('\t') as [string, string | undefined];
    return { url, prior: Number(prior ?? 0) };
  });
}

type SchedulerOptions = Pick<CrawlOptions, 'depthBudget' | 'tunnel' | 'linkYield' | 'tunnelLookahead' | 'delta' | 'frontier' | 'linkPrior' | 'lookaheadGate' | 'maxLookahead' | 'maxDepth' | 'maxFrontier' | 'alpha' | 'tauLow' | 'threshold' | 'seenSet' | 'bloomCapacity' | 'bloomFpRate'>;

export class CrawlScheduler {
  readonly frontier: Frontier;
  readonly seen: SeenSet;
  /** Expansions in progress, in the order they were started (the priority order of their children). */
  readonly active: Expansion[] = [];
  private seq = 0;

  /** `onEvict` decides the pending saves of a dropped frontier entry. */
  constructor(
    private readonly o: Readonly<SchedulerOptions>,
    onEvict: (e: FrontierEntry) => void,
  ) {
    this.frontier = new Frontier(o.maxFrontier, onEvict);
    this.seen = createSeenSet(o);
  }

  /** Discovery order of the next frontier entry. */
  nextSeq(): number {
    return this.seq++;
  }

  /** The seeds as the first expansion: taken in order, no limit, no gate. */
  startSeeds(seeds: readonly string[]): void {
    this.active.push(new Expansion(null, seeds.map((url) => ({ url, prior: 0 })), Infinity, null));
  }

  /**
   * Pops the best frontier entry: an entry not expanded yet becomes an expansion (its children fetched
   * ahead); an entry whose two-step score is known releases its children into the frontier.
   */
  pop(): FrontierEntry | undefined {
    const e = this.frontier.pop();
    if (!e) return undefined;
    if (e.score === undefined) {
      const byDocument = documentOrder(this.o);
      const best = this.frontier.peekKey() ?? -Infinity;
      const gate = !byDocument && this.o.lookaheadGate ? best : null;
      const limit = byDocument ? Infinity : e.sim < this.o.threshold ? Math.min(this.o.maxLookahead, this.o.tunnelLookahead) : this.o.maxLookahead;
      this.active.push(new Expansion(e, entryLinks(e), limit, gate, e.depth >= this.o.maxDepth, this.o.linkYield));
    } else {
      for (const k of e.kids ?? []) this.pushNew(k);
      e.kids = undefined;
    }
    return e;
  }

  /**
   * A page enters the frontier for the first time; its navigation links wait in a tunnel entry. A page
   * whose depth budget is spent (option depthBudget) keeps no content link of its own (Fish-Search: no
   * child is added at depth 0): they wait in a reserve entry, a tier below the tunnel, taken only when
   * nothing else waits (dropped with `tunnel: false`).
   */
  private pushNew(k: FrontierEntry): void {
    if (k.budget === 0 && this.o.frontier !== 'fifo' && k.links) {
      if (this.o.tunnel) this.frontier.push(this.sideEntry(k, k.links, true));
      k.links = '';
    }
    this.frontier.push(k);
    if (k.navLinks) {
      this.frontier.push(this.sideEntry(k, k.navLinks, false));
      k.navLinks = undefined;
    }
  }

  /** A tunnel entry (or, `reserve`, a reserve entry) holding `links` of page `k`. */
  private sideEntry(k: FrontierEntry, links: string, reserve: boolean): FrontierEntry {
    const hops = k.hops ?? 0;
    const key = (reserve ? reserveKey : tunnelKey)(hops, firstPrior(links), this.o.delta);
    return { seq: this.seq++, url: k.url, depth: k.depth, sim: k.sim, key, links, inherited: k.inherited, hops, ...(k.budget !== undefined ? { budget: k.budget } : {}), tunnel: true, ...(reserve ? { reserve } : {}) };
  }

  /**
   * The next request (crawler.ts `fill`): the first child the expansions in progress may take, in their
   * order (a closed expansion with nothing in flight is ended through `done`); when none may, the best
   * frontier entry is popped (`popped`) and becomes an expansion. Expansions in progress are capped at
   * `maxActive` plus one per host passed over in this call (busy, or within its delay): the Mercator
   * frontier keeps a queue per host, so a host that waits holds work without taking the place of the
   * hosts that may be asked now (with the cap alone, every place can be held by children of waiting
   * hosts while other hosts have work in the frontier and none in progress).
   */
  nextRequest(a: { budgetOk: () => boolean; ready?: (host: string) => boolean; maxActive: number; popped: (e: FrontierEntry) => void; done: (x: Expansion) => void }): CrawlRequest | null {
    const waiting = new Set<string>();
    const ready = a.ready && ((host: string) => a.ready!(host) || (waiting.add(host), false));
    for (;;) {
      for (const x of [...this.active]) {
        const i = x.next(this.seen, a.budgetOk, ready);
        if (i >= 0) return this.take(x, i);
        if (x.stop >= 0 && x.inFlight === 0) a.done(x);
      }
      if (this.active.length >= a.maxActive + waiting.size || !a.budgetOk()) return null;
      const e = this.pop();
      if (!e) return null;
      a.popped(e);
    }
  }

  /** Takes child `i` of `x`: the request to make. */
  take(x: Expansion, i: number): CrawlRequest {
    x.take(i, this.seen);
    const parent = x.entry;
    return { url: x.urls[i]!, host: x.host(i), depth: parent ? parent.depth + 1 : 0, parent, expansion: x, index: i };
  }

  /** The active expansion with id `id` (see {@link Expansion.id}). */
  expansionOf(id: number): Expansion | undefined {
    return this.active.find((x) => x.id === id);
  }

  /** A request completed: its page (an entry when it has links) joins its expansion; seeds go to the frontier at once. */
  complete(r: CrawlRequest, entry: FrontierEntry | null): void {
    r.expansion.inFlight--;
    r.expansion.tried++;
    if (entry) r.expansion.fruitful++;
    if (!entry) return;
    if (r.expansion.entry === null) this.pushNew(entry);
    else r.expansion.kids.push(entry);
  }

  /**
   * Ends a closed expansion with nothing in flight (see the module header): bfs and shark push its
   * children; the two-step frontier scores the page (004), has its save decided and pushes it back
   * holding its children. Then the continuation of its unfetched links, while the budget lasts.
   */
  finish(x: Expansion, budgetLeft: () => boolean, decide: (url: string, twoStep: number) => void): void {
    this.active.splice(this.active.indexOf(x), 1);
    const e = x.entry;
    if (!e) return;
    const rest = x.rest(this.seen);
    e.links = '';
    if (this.o.frontier !== 'two-step' || e.tunnel) {
      for (const k of x.kids) this.pushNew(k);
      if (this.o.frontier === 'fifo') return;
    } else {
      e.kids = x.kids;
      e.score = twoStepScore(e.sim, x.kids.map((k) => k.sim), this.o.alpha, this.o.tauLow, this.o.threshold);
      e.key = e.score;
      decide(e.url, e.score);
      this.frontier.push(e);
    }
    if (rest.length > 0 && budgetLeft()) {
      const tried = (e.tried ?? 0) + x.tried;
      const fruitful = (e.fruitful ?? 0) + x.fruitful;
      // link yield (option linkYield): the rest of a page whose links led nowhere waits longer
      const key = e.tunnel ? (e.reserve ? reserveKey : tunnelKey)(e.hops ?? 0, rest[0]!.prior, this.o.delta) : rest[0]!.prior * x.linkYield();
      this.frontier.push({ seq: this.seq++, url: e.url, depth: e.depth, sim: e.sim, key, links: rest.map((l) => `${l.url}\t${l.prior}`).join('\n'), inherited: e.inherited, tried, fruitful, ...(e.budget !== undefined ? { budget: e.budget } : {}), ...(e.tunnel ? { tunnel: true, hops: e.hops ?? 0 } : {}), ...(e.reserve ? { reserve: true } : {}) });
    }
  }
}
