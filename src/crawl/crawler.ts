/**
 * The focused crawler (seeds 003 and 004; ../shared/docs/crawler-spec.md §3.5, Reading A).
 *
 * The frontier holds fetched pages that are not yet expanded. A page popped for the first time has its
 * children fetched ahead (at most maxLookahead, best link prior first) and gets 004's two-step score
 * from their relevances; it goes back with that score, and when popped again its already fetched
 * children join the frontier (keyed by their own relevance until their own lookahead). α = 1 gives the
 * one-step VSM order; mode bfs expands in FIFO order, mode shark by link prior, mode best-first as
 * one-step but with a page's children in document order (no link prior). A page is saved (relevant)
 * when its two-step score ≥ η (saveRule `score`, the spec's default: decided after its lookahead,
 * meanwhile its body waits in .state/pending/; a page never expanded is decided on its own sim when the
 * crawl ends) or when sim ≥ η (saveRule `sim`, decided at fetch).
 *
 * Output in `out/`: crawl.warc.gz (WARC 1.1 response records, warcio), index.jsonl (one line per
 * fetched URL: url, status, relevant, score, depth, parent, time, and error / finalUrl / links when
 * there are), texts.jsonl (main text of the relevant pages: `filmkw tag` input), pages/ (the relevant
 * pages' HTML: `filmkw html text|records`, `filmkw tag <dir>`, `kg import html-list:`), crawl.json
 * (options, seeds, summary) and .state/journal.jsonl (the resume log).
 *
 * Structure (Scrapy's and Crawlee's split): scheduler.ts (frontier, seen-set, expansions: which URL
 * next), politeness.ts (robots.txt, one request per host, per-host delay), fetcher.ts (HTTP), links.ts
 * (link extraction, a pure function), outputs.ts (WARC, index, texts, pages), journal.ts (the resume log)
 * and feedback.ts (003's DTFL); the engine below wires them: it takes requests from the scheduler, makes
 * them, judges each page (relevance, children) and records the result.
 *
 * Resume: every change of the scheduler's state is journalled (journal.ts), so `--resume` replays the
 * journal (no network: recorded relevance and links) up to where it stopped, truncates the WARC and
 * texts to the journalled sizes, and continues. An intent line is journalled when a request is taken;
 * a page is fetched twice only when the kill hits between its intent and its record (the request in
 * flight), and the resumed run names it (summary `inFlight`). index.jsonl is final when the crawl ends
 * (rewritten from the journal with the save decisions); while it runs, lines marked `pending` carry
 * the provisional sim decision.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FilmkwError, usageError, inputError } from '../errors.js';
import { decodeHtml } from '../html/decode.js';
import { htmlBytesToRecord } from '../html/index.js';
import { LibraryFeedback } from './feedback.js';
import type { CrawlResources } from './resources.js';
import { Fetcher, type FetchResult } from './fetcher.js';
import type { FrontierEntry } from './frontier.js';
import { crawlPaths, makeCrawlDirs, readJournalForResume, writeFinalIndex, type CrawlPaths, type FetchEvent, type JournalEvent } from './journal.js';
import { childLinks, round6 } from './links.js';
import { hostAllowed, resolvedDelayMs, type CrawlOptions } from './options.js';
import { CrawlOutputs, createOutputs } from './outputs.js';
import { parsePage } from './page.js';
import { Politeness } from './politeness.js';
import { depthBudgetOf, inheritedScore, pageRelevance, type Idf } from './relevance.js';
import { CrawlScheduler, type CrawlRequest, type Expansion } from './scheduler.js';
import { TopicLibrary } from './topic.js';
import { normalizeUrl, urlKey as urlKeyOf } from './url.js';
import { lockOutput } from '../util/files.js';

export type { CrawlResources } from './resources.js';

export interface CrawlRun {
  seeds: readonly string[];
  out: string;
  via?: string;
  resume?: boolean;
  onProgress?: (p: CrawlProgress) => void;
  /** Milliseconds between progress calls. @default 500 */
  progressEveryMs?: number;
}

/** Defaults of {@link CrawlRun} (frozen). */
export const CRAWL_RUN_DEFAULTS: Readonly<Required<Pick<CrawlRun, 'progressEveryMs'>>> = Object.freeze({ progressEveryMs: 500 });

export interface CrawlProgress {
  fetched: number;
  relevant: number;
  frontier: number;
  pagesPerSec: number;
  errors: number;
}

export interface CrawlSummary extends CrawlProgress {
  seconds: number;
  /** CPU time of this process during the crawl (user + system), seconds: pages/s on a loaded machine mislead. */
  cpuSeconds: number;
  evicted: number;
  /** Pages saved (index `relevant`: by the saveRule); `relevant` counts sim ≥ η. */
  saved: number;
  /** URLs whose request was in flight at a kill (intent journalled, no record): fetched again on resume. */
  inFlight: string[];
  dtfl: string[];
  replayed: number;
  library: number;
  stoppedBy: 'budget' | 'frontier empty';
}

/** Reads a seed file: one URL per line, `#` comments and blank lines skipped; a bad line is an error naming file:line. */
export function readSeedFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw inputError(`crawl: seed file ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`, err);
  }
  const out: string[] = [];
  text.split(/\r?\n/u).forEach((line, i) => {
    const s = line.trim();
    if (s === '' || s.startsWith('#')) return;
    const n = normalizeUrl(s.split(/\s+/u)[0]!);
    if ('error' in n) throw inputError(`crawl: ${path}:${i + 1}: bad seed URL: ${n.error}`);
    out.push(n.url);
  });
  if (out.length === 0) throw inputError(`crawl: seed file ${path} has no URL`);
  return out;
}

/** Normalises seeds given on the command line (URLs or seed files). */
export function resolveSeeds(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    if (/^[a-z][a-z0-9+.-]*:\/\//iu.test(a)) {
      const n = normalizeUrl(a);
      if ('error' in n) throw usageError(`crawl: bad seed URL ${JSON.stringify(a)}: ${n.error}`);
      out.push(n.url);
    } else out.push(...readSeedFile(a));
  }
  if (out.length === 0) throw usageError('crawl: no seed given (--seeds <url…|file>)');
  return [...new Set(out)];
}


/** What a request brought back: a reason it was not made, or the fetch result and when it was sent. */
interface Outcome {
  why?: string;
  fetch?: FetchResult;
  sent?: number;
}

/** The crawl engine (Scrapy's engine): wires the scheduler, politeness, the fetcher, relevance and the outputs; see the module header. */
class CrawlEngine {
  private readonly paths: CrawlPaths;
  private readonly lib: TopicLibrary;
  private readonly feedback: LibraryFeedback;
  private readonly fetcher: Fetcher;
  private readonly politeness: Politeness;
  private readonly sched: CrawlScheduler;
  private outputs!: CrawlOutputs;
  /** Journal events to replay (resume), and the next one. */
  private events: JournalEvent[] = [];
  private rp = 0;
  /** Requests taken and not completed, by URL. */
  private readonly taken = new Map<string, CrawlRequest>();
  private readonly inFlightAtKill: string[] = [];
  private readonly concurrency: number;
  /** Requests being made (their completion not processed yet). */
  private running = 0;
  private serial: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private wake: (() => void) | null = null;
  private wakeAt = Infinity;
  private fetched = 0;
  private relevant = 0;
  private saved = 0;
  private errors = 0;
  private replayed = 0;
  private readonly perHost = new Map<string, number>();
  /** Pages whose two-step score is not known yet → their sim, in fetch order. */
  private readonly pendingSims = new Map<string, number>();
  /** 004's score is computed (two-step frontier, α < 1); with saveRule `score` it decides saving. */
  private readonly scored: boolean;
  private readonly defer: boolean;
  private readonly t0 = performance.now();
  private readonly cpu0 = process.cpuUsage();
  private lastProgress = 0;

  constructor(
    private readonly run: CrawlRun,
    private readonly o: Readonly<CrawlOptions>,
    private readonly res: CrawlResources,
  ) {
    this.paths = crawlPaths(run.out);
    this.lib = TopicLibrary.fromKg(res.kg, o, res.commonWord);
    this.feedback = new LibraryFeedback(this.lib, o, res);
    this.fetcher = new Fetcher(o, run.via);
    this.politeness = new Politeness(o, this.fetcher, resolvedDelayMs(o, run.via));
    this.concurrency = o.concurrency;
    // a dropped entry is never expanded: its pending save is decided on its own sim (bounded memory)
    this.sched = new CrawlScheduler(o, (e) => {
      if (e.tunnel) return;
      this.decide(e.url, e.sim);
      for (const k of e.kids ?? []) this.decide(k.url, k.sim);
    });
    this.scored = o.frontier === 'two-step' && o.alpha < 1;
    this.defer = this.scored && o.saveRule === 'score';
  }

  /** What a resume must share with the crawl it continues: the options but the concurrency (the journal replays exactly at any), the seeds, the KG. */
  private get fingerprint(): string {
    return JSON.stringify({ options: { ...this.o, concurrency: undefined }, seeds: this.run.seeds, kg: this.res.kg?.contentHash ?? null });
  }

  /** Opens the output folder: a new crawl, or the journal of the one to resume. */
  private async open(): Promise<void> {
    const p = this.paths;
    makeCrawlDirs(p);
    if (existsSync(p.meta)) {
      if (!this.run.resume) throw usageError(`crawl: ${p.out} already holds a crawl; pass --resume to continue it, or choose another --out`);
      this.events = readJournalForResume(p, this.fingerprint);
    } else {
      if (this.run.resume) throw usageError(`crawl: --resume: ${p.out} holds no crawl to resume`);
      await createOutputs(p, { fingerprint: this.fingerprint, options: this.o, seeds: this.run.seeds });
    }
    this.outputs = new CrawlOutputs(p);
  }

  /** Takes `<out>.lock` (as tag and html do): a second run on the same folder fails naming the first. */
  private lock(): () => void {
    try {
      mkdirSync(dirname(this.paths.out), { recursive: true });
    } catch (err) {
      throw new FilmkwError('OUTPUT', `crawl: cannot create ${dirname(this.paths.out)}: ${(err as Error).message}`, { cause: err });
    }
    return lockOutput('crawl', this.paths.out);
  }

  async crawl(): Promise<CrawlSummary> {
    const unlock = this.lock();
    try {
      return await this.lockedCrawl();
    } finally {
      unlock();
    }
  }

  private async lockedCrawl(): Promise<CrawlSummary> {
    await this.open();
    try {
      this.sched.startSeeds(this.run.seeds);
      this.replay();
      // requests in flight at the kill (intent journalled, no result): made again
      for (const r of this.taken.values()) {
        this.inFlightAtKill.push(r.url);
        this.launch(r);
      }
      await this.loop();
      // pages never expanded: their two-step score is their own relevance (no child known)
      for (const [url, sim] of [...this.pendingSims]) this.decide(url, sim);
    } finally {
      this.fetcher.close();
      this.outputs.close();
    }
    if (this.scored) await writeFinalIndex(this.paths);
    this.progress(true);
    return this.summary();
  }

  private mismatch(what: string): FilmkwError {
    return inputError(`crawl: --resume: the journal in ${this.paths.out} does not match this crawl at event ${this.rp} (expected ${what}); start a new --out`);
  }

  /** Replays the journal's events up to the final save decisions (consumed by {@link decide}). */
  private replay(): void {
    while (this.rp < this.events.length) {
      const e = this.events[this.rp]!;
      if (e.t === 'save') break;
      this.rp++;
      if (e.t === 'pop') {
        if (this.sched.pop()?.url !== e.url) throw this.mismatch(`pop ${e.url}`);
      } else if (e.t === 'intent') {
        const x = this.sched.expansionOf(e.from);
        if (!x || x.urls[e.i] !== e.url) throw this.mismatch(`request ${e.url}`);
        this.taken.set(e.url, this.sched.take(x, e.i));
      } else if (e.t === 'fetch') {
        const r = this.taken.get(e.url);
        if (!r) throw this.mismatch(`result of ${e.url}`);
        if (e.buf !== undefined) this.feedback.observe(e.buf, e.relevant);
        if (e.dtfl) this.feedback.replay(e.dtfl);
        this.replayed++;
        this.completed(r, e);
      } else {
        const x = this.sched.expansionOf(e.x);
        if (x && x.url !== e.url) throw this.mismatch(`end of ${e.url}`);
        if (!x || x.inFlight > 0) throw this.mismatch(`end of ${e.url}`);
        x.closeAt(e.stop);
        this.sched.finish(x, this.budgetLeft, this.decide);
      }
    }
  }

  private readonly budgetLeft = (): boolean => this.fetched < this.o.maxPages;
  /** Requests may still be started: completed + taken < budget. */
  private readonly budgetOk = (): boolean => this.fetched + this.taken.size < this.o.maxPages;

  /** Makes requests until the crawl is over (budget, empty frontier). */
  private async loop(): Promise<void> {
    for (;;) {
      this.fill();
      if (this.running === 0 && this.wakeAt === Infinity) return;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        if (this.wakeAt < Infinity) timer = setTimeout(resolve, Math.max(0, this.wakeAt - performance.now()));
      });
      clearTimeout(timer);
      this.wake = null;
      if (this.failure) throw this.failure;
    }
  }

  /** Starts requests while slots are free and requests are ready. */
  private fill(): void {
    this.wakeAt = Infinity;
    while (this.running < this.concurrency) {
      const r = this.nextRequest();
      if (!r) return;
      this.outputs.event({ t: 'intent', url: r.url, from: r.expansion.id, i: r.index });
      this.taken.set(r.url, r);
      this.launch(r);
    }
  }

  /** The next request: from the expansions in progress, else from a newly popped frontier entry. */
  private nextRequest(): CrawlRequest | null {
    const maxActive = this.concurrency === 1 ? 1 : this.concurrency * 4;
    const now = performance.now();
    const ready =
      this.concurrency === 1
        ? undefined
        : (host: string) => {
            if (this.politeness.isBusy(host)) return false;
            const at = this.politeness.readyAt(host);
            if (at <= now) return true;
            this.wakeAt = Math.min(this.wakeAt, at);
            return false;
          };
    return this.sched.nextRequest({ budgetOk: this.budgetOk, ready, maxActive, popped: (e) => this.outputs.event({ t: 'pop', url: e.url }), done: (x) => this.finish(x) });
  }

  private finish(x: Expansion): void {
    this.outputs.event({ t: 'done', url: x.url, x: x.id, stop: x.stop });
    this.sched.finish(x, this.budgetLeft, this.decide);
  }

  /** Makes request `r` and queues its completion (completions are processed one at a time, in arrival order). */
  private launch(r: CrawlRequest): void {
    this.running++;
    this.politeness.claim(r.host);
    const end = () => {
      this.running--;
      this.wake?.();
    };
    void this.request(r).then((out) => {
      this.serial = this.serial
        .then(() => (this.failure ? undefined : this.completeLive(r, out)))
        .then(end, (err: unknown) => {
          this.failure ??= err;
          end();
        });
    });
  }

  /** The network part of a request: the options' host rules, robots.txt, the host's turn, the fetch. */
  private async request(r: CrawlRequest): Promise<Outcome> {
    const o = this.o;
    if (!hostAllowed(r.host, o)) return { why: `host ${r.host} is excluded by the options` };
    if ((this.perHost.get(r.host) ?? 0) >= o.maxPagesPerHost) return { why: `host limit of ${o.maxPagesPerHost} pages reached` };
    const rules = await this.politeness.rulesOf(r.url);
    const disallowed = rules.disallowed(r.url);
    if (disallowed) return { why: disallowed };
    if (rules.crawlDelayMs > o.maxCrawlDelayMs) return { why: `robots.txt Crawl-delay of ${rules.crawlDelayMs} ms is above the limit of ${o.maxCrawlDelayMs} ms: host skipped` };
    const sent = await this.politeness.waitTurn(r.host);
    return { fetch: await this.fetcher.fetch(r.url, this.politeness.robotsCheck), sent };
  }

  private async completeLive(r: CrawlRequest, out: Outcome): Promise<void> {
    const ev = await this.record(r, out);
    this.completed(r, ev);
    this.politeness.release(r.host, out.fetch?.ms, !ev.error);
  }

  /** Scores a fetched page: relevance, children, DTFL text; an error when the body is not a usable HTML page. */
  private judge(url: string, base: string, body: Uint8Array, parent: FrontierEntry | null): { score: number; links?: string[]; priors?: number[]; nav?: string[]; navPriors?: number[]; buf?: string; error?: string } {
    try {
      const page = parsePage(decodeHtml(body, { path: url }).html);
      const score = pageRelevance(page, this.lib, this.res.idf, this.o);
      const buf = score < this.o.threshold && this.feedback.on ? `${page.title}\n${page.blocks.map((b) => b.text).join(' ')}`.slice(0, 600) : undefined;
      return { score, ...childLinks(page, base, score, parent?.inherited ?? 0, this.lib, this.o), ...(buf !== undefined ? { buf } : {}) };
    } catch (err) {
      if (!(err instanceof FilmkwError)) throw err;
      return { score: 0, error: err.message.replace(/^html: [^:]*: /u, '') };
    }
  }

  /** The fetch event of a request (written with its WARC record, text and page); see the module header. */
  private async record(r: CrawlRequest, out: Outcome): Promise<FetchEvent> {
    const f = out.fetch;
    const status = f?.status ?? 0;
    let error = out.why ?? f?.error;
    let j: ReturnType<CrawlEngine['judge']> = { score: 0 };
    if (f && !error && f.body && status >= 200 && status < 300) {
      const ct = (f.contentType ?? '').toLowerCase();
      if (ct !== '' && !/^(text\/html|application\/xhtml\+xml)/u.test(ct)) error = `content-type ${ct.split(';')[0]} is not HTML`;
      else {
        j = this.judge(r.url, f.finalUrl ?? r.url, f.body, r.parent);
        error = j.error;
      }
    } else if (f && !error && status >= 400) error = `HTTP ${status}`;
    const isRelevant = j.score >= this.o.threshold;
    let buf = j.buf;
    if (f?.body && status > 0) await this.outputs.response(f.finalUrl ?? r.url, status, f.headers ?? {}, f.body);
    if (f?.body && j.links && this.defer) this.outputs.stage(r.url, f.body);
    if (isRelevant && f?.body) {
      // deferred save: the text is written at the decision; extracted now only for the DTFL buffer
      let text: { title: string; text: string } | null = null;
      if (!this.defer) {
        text = this.outputs.text(r.url, f.body);
        this.outputs.page(r.url, f.body);
      } else if (this.feedback.on) {
        const t = htmlBytesToRecord(f.body, r.url);
        text = 'error' in t ? null : t;
      }
      if (text && this.feedback.on) buf = `${text.title}\n${text.text.slice(0, 1500)}`;
    }
    if (buf !== undefined) this.feedback.observe(buf, isRelevant);
    const dtfl = isRelevant && this.feedback.due(this.relevant) ? this.feedback.update() : undefined;
    const ev: FetchEvent = {
      url: r.url,
      depth: r.depth,
      parent: r.parent?.url ?? null,
      relevant: isRelevant,
      score: round6(j.score),
      status,
      time: new Date().toISOString(),
      ...(f?.finalUrl ? { finalUrl: f.finalUrl } : {}),
      ...(error ? { error } : {}),
      ...(j.links ? { links: j.links, priors: j.priors } : {}),
      ...(j.nav ? { nav: j.nav, navPriors: j.navPriors } : {}),
      ...(dtfl ? { dtfl } : {}),
      ...(buf !== undefined ? { buf } : {}),
      ...(j.links && this.scored ? { pending: true } : {}),
      ...(out.sent !== undefined ? { sent: out.sent } : {}),
      warcEnd: this.outputs.warcSize,
      textsEnd: this.outputs.textsSize,
    };
    this.outputs.event({ t: 'fetch', ...ev });
    return ev;
  }

  /** A request's result (fetched now or replayed) changes the crawl's state; its page joins the scheduler. */
  private completed(r: CrawlRequest, ev: FetchEvent): void {
    this.taken.delete(r.url);
    this.fetched++;
    this.perHost.set(r.host, (this.perHost.get(r.host) ?? 0) + 1);
    if (ev.finalUrl) this.sched.seen.add(urlKeyOf(ev.finalUrl));
    if (ev.error && !ev.links) this.errors++;
    if (ev.relevant) this.relevant++;
    if (ev.pending) this.pendingSims.set(ev.url, ev.score);
    else if (ev.relevant) this.saved++;
    this.feedback.trim();
    this.progress();
    this.sched.complete(r, ev.links ? this.entryOf(ev, r.parent) : null);
  }

  /** The frontier entry of a fetched page with links. */
  private entryOf(ev: FetchEvent, parent: FrontierEntry | null): FrontierEntry {
    const o = this.o;
    const inherited = inheritedScore(ev.score, parent?.inherited ?? 0, o);
    const links = ev.links!.map((u, i) => `${u}\t${ev.priors?.[i] ?? 0}`).join('\n');
    const seq = this.sched.nextSeq();
    const key = o.frontier === 'fifo' ? -seq : o.frontier === 'shark' ? (ev.priors?.[0] ?? 0) : ev.score;
    const hops = ev.score >= o.threshold ? 0 : (parent?.hops ?? 0) + 1;
    const navLinks = ev.nav?.length ? ev.nav.map((u, i) => `${u}\t${ev.navPriors?.[i] ?? 0}`).join('\n') : undefined;
    const budget = o.depthBudget > 0 ? depthBudgetOf(ev.score, parent?.budget, o) : undefined;
    return { seq, url: ev.url, depth: ev.depth, sim: ev.score, key, links, inherited, hops, ...(budget !== undefined ? { budget } : {}), ...(navLinks ? { navLinks } : {}) };
  }

  /** 004 save decision of a page once its two-step score is known (or at the end: its own sim). */
  private readonly decide = (url: string, twoStep: number): void => {
    const sim = this.pendingSims.get(url);
    if (sim === undefined) return;
    this.pendingSims.delete(url);
    const keep = this.o.saveRule === 'score' ? twoStep >= this.o.threshold : sim >= this.o.threshold;
    if (this.rp < this.events.length) {
      const r = this.events[this.rp++]!;
      if (r.t !== 'save' || r.url !== url) throw this.mismatch(`save ${url}`);
    } else {
      if (this.defer) {
        if (keep) this.outputs.keepStaged(url);
        else this.outputs.dropStaged(url);
      }
      this.outputs.event({ t: 'save', url, twoStep: round6(twoStep), saved: keep, warcEnd: this.outputs.warcSize, textsEnd: this.outputs.textsSize });
    }
    if (keep) this.saved++;
  };

  private progress(force = false): void {
    const now = performance.now();
    if (!this.run.onProgress || (!force && now - this.lastProgress < (this.run.progressEveryMs ?? CRAWL_RUN_DEFAULTS.progressEveryMs))) return;
    this.lastProgress = now;
    this.run.onProgress({ fetched: this.fetched, relevant: this.relevant, frontier: this.sched.frontier.size, errors: this.errors, pagesPerSec: this.fetched / Math.max(1e-3, (now - this.t0) / 1000) });
  }

  private summary(): CrawlSummary {
    const seconds = (performance.now() - this.t0) / 1000;
    const summary: CrawlSummary = {
      fetched: this.fetched,
      relevant: this.relevant,
      errors: this.errors,
      frontier: this.sched.frontier.size,
      pagesPerSec: this.fetched / Math.max(seconds, 1e-3),
      seconds,
      cpuSeconds: ((c) => (c.user + c.system) / 1e6)(process.cpuUsage(this.cpu0)),
      evicted: this.sched.frontier.evicted,
      saved: this.saved,
      inFlight: this.inFlightAtKill,
      dtfl: [...this.lib.dynamic],
      replayed: this.replayed,
      library: this.lib.size,
      stoppedBy: this.budgetLeft() ? 'frontier empty' : 'budget',
    };
    const meta = JSON.parse(readFileSync(this.paths.meta, 'utf8')) as Record<string, unknown>;
    writeFileSync(this.paths.meta, `${JSON.stringify({ ...meta, fingerprint: this.fingerprint, summary }, null, 2)}\n`);
    return summary;
  }
}

/** Runs (or resumes) a crawl; see the module header. */
export async function crawl(run: CrawlRun, o: Readonly<CrawlOptions>, res: CrawlResources): Promise<CrawlSummary> {
  return new CrawlEngine(run, o, res).crawl();
}
