/**
 * The focused crawler (seeds 003 and 004; ../shared/docs/crawler-spec.md §3.5, Reading A).
 *
 * The frontier holds fetched pages that are not yet expanded. A page popped for the first time has its
 * children fetched ahead (at most maxLookahead, best link prior first) and gets 004's two-step score
 * from their relevances; it goes back with that score, and when popped again its already fetched
 * children join the frontier (keyed by their own relevance until their own lookahead). α = 1 gives the
 * one-step VSM order; mode bfs expands in FIFO order. A page is saved (relevant) when sim ≥ η.
 *
 * Output in `out/`: crawl.warc.gz (WARC 1.1 response records, warcio), index.jsonl (one line per
 * fetched URL: url, status, relevant, score, depth, parent, time, and error / finalUrl / links when
 * there are), texts.jsonl (main text of the relevant pages: `filmkw tag` input), pages/ (the relevant
 * pages' HTML: `filmkw html text|records`, `filmkw tag <dir>`, `kg import html-list:`), crawl.json
 * (options, seeds, summary) and .state/journal.jsonl (the resume log).
 *
 * Resume: the crawl is a deterministic function of the fetch results, so `--resume` replays the
 * journal (no network: recorded relevance and links) up to where it stopped, truncates the WARC and
 * texts to the journalled sizes, and continues. A page is fetched twice only when the kill hits
 * between its fetch and its journal line.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync, writeFileSync, statSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { dirname, join } from 'node:path';
import { WARCRecord, WARCSerializer } from 'warcio';
import { FilmkwError, usageError, inputError } from '../errors.js';
import { decodeHtml } from '../html/decode.js';
import { htmlBytesToRecord } from '../html/index.js';
import type { KgView } from '../kg/model.js';
import { Fetcher, fetchRobots, type HostRules } from './fetcher.js';
import { Frontier, type FrontierEntry } from './frontier.js';
import { hostAllowed, type CrawlOptions } from './options.js';
import { parsePage } from './page.js';
import { linkPrior, pageRelevance, textRelevance, twoStepScore, type Idf } from './relevance.js';
import { TopicLibrary } from './topic.js';
import { hostKey, normalizeUrl, pageFileName, urlKey } from './url.js';

/** What the crawler needs besides its options: passed in, so the crawl is a function of its inputs. */
export interface CrawlResources {
  kg: KgView | null;
  /** IDF of a term (the bundled table, or 1). */
  idf: Idf;
  /** Common-word test for KG names (kept out of the library). */
  commonWord?: (name: string) => boolean;
  /** Keywords of a text, best first (our extractor): the DTFL source. */
  keywords?: (text: string, topK: number) => string[];
}

export interface CrawlRun {
  seeds: readonly string[];
  out: string;
  via?: string;
  resume?: boolean;
  onProgress?: (p: CrawlProgress) => void;
  /** Milliseconds between progress calls. @default 500 */
  progressEveryMs?: number;
}

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
  dtfl: string[];
  replayed: number;
  library: number;
  stoppedBy: 'budget' | 'frontier empty';
}

/** One journal event: a fetched URL (the index line + what a replay needs) or a DTFL update. */
interface FetchEvent {
  url: string;
  status: number;
  relevant: boolean;
  score: number;
  depth: number;
  parent: string | null;
  time: string;
  finalUrl?: string;
  error?: string;
  /** Candidate children, best first. */
  links?: string[];
  /** Their link priors (crawler-spec.md §3.4), same order. */
  priors?: number[];
  /** Terms the DTFL gained after this page (a library update happens inside one journal line). */
  dtfl?: string[];
  /** Text this page contributed to the DTFL buffers (relevant: its main text; other: a snippet). */
  buf?: string;
  warcEnd: number;
  textsEnd: number;
}
type JournalEvent = { t: 'fetch' } & FetchEvent;

const INDEX_KEYS = ['url', 'status', 'relevant', 'score', 'depth', 'parent', 'time', 'finalUrl', 'error'] as const;
const indexLine = (e: FetchEvent): string => JSON.stringify(Object.fromEntries(INDEX_KEYS.filter((k) => e[k] !== undefined).map((k) => [k, e[k]])));
const round = (x: number) => Math.round(x * 1e6) / 1e6;

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

/** Runs (or resumes) a crawl; see module header. */
export async function crawl(run: CrawlRun, o: Readonly<CrawlOptions>, res: CrawlResources): Promise<CrawlSummary> {
  const out = run.out;
  const stateDir = join(out, '.state');
  const journalPath = join(stateDir, 'journal.jsonl');
  const metaPath = join(out, 'crawl.json');
  const warcPath = join(out, 'crawl.warc.gz');
  const textsPath = join(out, 'texts.jsonl');
  const indexPath = join(out, 'index.jsonl');
  const fingerprint = JSON.stringify({ options: o, seeds: run.seeds, kg: res.kg?.contentHash ?? null });
  let replay: JournalEvent[] = [];
  try {
    mkdirSync(join(out, 'pages'), { recursive: true });
    mkdirSync(stateDir, { recursive: true });
  } catch (err) {
    throw new FilmkwError('OUTPUT', `crawl: cannot create ${out}: ${(err as Error).message}`, { cause: err });
  }
  if (existsSync(metaPath)) {
    if (!run.resume) throw usageError(`crawl: ${out} already holds a crawl; pass --resume to continue it, or choose another --out`);
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { fingerprint: string };
    if (meta.fingerprint !== fingerprint) throw usageError(`crawl: --resume refused: the seeds, options or KG differ from the crawl in ${out}`);
    const lines = existsSync(journalPath) ? readFileSync(journalPath, 'utf8').split('\n') : [];
    // the last line may be cut by a kill: keep whole lines only
    for (const l of lines) {
      if (!l) continue;
      try {
        replay.push(JSON.parse(l) as JournalEvent);
      } catch {
        break;
      }
    }
    const lastFetch = replay[replay.length - 1];
    writeFileSync(journalPath, replay.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const cut = (p: string, size: number) => {
      if (existsSync(p) && statSync(p).size > size) truncateSync(p, size);
    };
    cut(warcPath, lastFetch?.warcEnd ?? 0);
    cut(textsPath, lastFetch?.textsEnd ?? 0);
    writeFileSync(indexPath, replay.map((e) => `${indexLine(e)}\n`).join(''));
  } else {
    if (run.resume) throw usageError(`crawl: --resume: ${out} holds no crawl to resume`);
    writeFileSync(metaPath, `${JSON.stringify({ fingerprint, options: o, seeds: run.seeds }, null, 2)}\n`);
    for (const p of [journalPath, indexPath, textsPath]) writeFileSync(p, '');
    writeFileSync(warcPath, await WARCSerializer.serialize(WARCRecord.createWARCInfo({ filename: 'crawl.warc.gz', warcVersion: 'WARC/1.1' }, { software: 'filmkw crawl', format: 'WARC File Format 1.1' }), { gzip: true }));
  }
  let warcSize = statSync(warcPath).size;
  let textsSize = existsSync(textsPath) ? statSync(textsPath).size : 0;
  let rp = 0; // next replay event

  const lib = TopicLibrary.fromKg(res.kg, o, res.commonWord);
  const fetcher = new Fetcher(o, run.via);
  const frontier = new Frontier(o.maxFrontier);
  /** URLs already fetched or scheduled, as {@link urlKey} numbers (bounded memory per URL). */
  const seen = new Set<number>();
  const robots = new Map<string, Promise<HostRules>>();
  const lastRequest = new Map<string, number>();
  const perHost = new Map<string, number>();
  const dtflBuffer: string[] = [];
  /** Snippets of the latest pages judged not relevant: the contrast set of the DTFL review. */
  const offBuffer: string[] = [];
  const OFF_KEEP = 100;
  let fetched = 0;
  let relevant = 0;
  let errors = 0;
  let seq = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let lastProgress = 0;
  const progress = (force = false) => {
    const now = performance.now();
    if (!run.onProgress || (!force && now - lastProgress < (run.progressEveryMs ?? 500))) return;
    lastProgress = now;
    run.onProgress({ fetched, relevant, frontier: frontier.size, errors, pagesPerSec: fetched / Math.max(1e-3, (now - t0) / 1000) });
  };

  const rulesOf = (url: string): Promise<HostRules> => {
    const u = new URL(url);
    const key = u.host;
    let r = robots.get(key);
    if (!r) {
      r = o.respectRobots ? fetchRobots(fetcher, u.origin, o.userAgent) : Promise.resolve({ disallowed: () => undefined, crawlDelayMs: 0 });
      robots.set(key, r);
    }
    return r;
  };
  const robotsCheck = async (url: string): Promise<string | null> => (await rulesOf(url)).disallowed(url) ?? null;

  /** Candidate children of a page: resolved, normalised, deduplicated, noise links dropped, best prior first. */
  const childLinks = (page: ReturnType<typeof parsePage>, base: string, sim: number, inherited: number): { links: string[]; priors: number[] } => {
    const inh = sim >= o.threshold ? o.delta * sim : o.delta * inherited;
    const seenHere = new Set<string>();
    const cands: { url: string; prior: number; i: number }[] = [];
    let baseUrl = base;
    if (page.base) {
      const b = normalizeUrl(page.base, base);
      if (!('error' in b)) baseUrl = b.url;
    }
    // many links share one block: its context relevance is computed once
    const contextSim = new Map<string, number>();
    const simOfContext = (c: string) => {
      let v = contextSim.get(c);
      if (v === undefined) contextSim.set(c, (v = textRelevance(c, lib)));
      return v;
    };
    page.links.forEach((l, i) => {
      if (o.dropNavLinks && l.blockType === 'navigation') return;
      const n = normalizeUrl(l.href, baseUrl);
      if ('error' in n || seenHere.has(n.url) || n.url === base) return;
      seenHere.add(n.url);
      if (o.frontier === 'fifo') {
        cands.push({ url: n.url, prior: 0, i });
        return;
      }
      const anchor = textRelevance(l.anchor, lib);
      const prior = linkPrior(inh, anchor, anchor > 0 ? 1 : simOfContext(l.context), o.beta, o.gamma);
      cands.push({ url: n.url, prior, i });
    });
    if (o.frontier !== 'fifo') cands.sort((a, b) => b.prior - a.prior || a.i - b.i);
    const kept = cands.slice(0, o.maxOutLinks);
    return { links: kept.map((c) => c.url), priors: kept.map((c) => round(c.prior)) };
  };

  const writeEvent = (e: JournalEvent) => {
    appendFileSync(journalPath, `${JSON.stringify(e)}\n`);
    appendFileSync(indexPath, `${indexLine(e)}\n`);
  };

  /** DTFL update (003 §2.3, offline stand-in: keywords of the relevant pages; see topic.ts). */
  const updateLibrary = (): string[] => {
    const text = dtflBuffer.join('\n').slice(0, 60000);
    dtflBuffer.length = 0;
    if (!res.keywords || text === '') return [];
    // Han-only words that are neither in the library nor common words (drift control)
    // 003's user review fe(UT) is replaced by a contrast check: a term seen on the recent pages judged
    // not relevant is boilerplate or off-topic (法律声明, 登录…), not topic vocabulary
    const off = offBuffer.join('\n');
    const cands = res.keywords(text, o.topN * 3).filter((w) => w.length >= 2 && /^\p{Script=Han}+$/u.test(w) && !lib.has(w) && (o.idfSource === 'none' || res.idf(w) >= o.dtflMinIdf) && !off.includes(w));
    return lib.extend(cands.slice(0, o.topN), o.dtflWeight * o.topicWeights.special, o.dtflMax);
  };

  /** Fetches and scores one URL (or takes it from the journal on resume); returns its frontier entry when it is a page. */
  const visit = async (url: string, depth: number, parent: FrontierEntry | null): Promise<FrontierEntry | null> => {
    let ev: FetchEvent;
    const host = hostKey(url);
    if (rp < replay.length) {
      const r = replay[rp++]!;
      if (r.url !== url) throw inputError(`crawl: --resume: the journal in ${out} does not match this crawl at event ${rp} (expected ${url}); start a new --out`);
      ev = r;
      if (ev.buf !== undefined) (ev.relevant ? dtflBuffer : offBuffer).push(ev.buf);
      if (ev.dtfl) {
        lib.extend(ev.dtfl, o.dtflWeight * o.topicWeights.special, o.dtflMax);
        dtflBuffer.length = 0;
      }
    } else {
      const base = { url, depth, parent: parent?.url ?? null, relevant: false, score: 0 };
      let why: string | null = null;
      if (!hostAllowed(host, o)) why = `host ${host} is excluded by the options`;
      else if ((perHost.get(host) ?? 0) >= o.maxPagesPerHost) why = `host limit of ${o.maxPagesPerHost} pages reached`;
      else why = await robotsCheck(url);
      let links: string[] | undefined;
      let priors: number[] | undefined;
      let status = 0;
      let error: string | undefined;
      let finalUrl: string | undefined;
      let score = 0;
      let isRelevant = false;
      let buf: string | undefined;
      if (why) error = why;
      else {
        const rules = await rulesOf(url);
        if (rules.crawlDelayMs > o.maxCrawlDelayMs) error = `robots.txt Crawl-delay of ${rules.crawlDelayMs} ms is above the limit of ${o.maxCrawlDelayMs} ms: host skipped`;
        else {
          const wait = (lastRequest.get(host) ?? -Infinity) + Math.max(o.delayMs, rules.crawlDelayMs) - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          lastRequest.set(host, performance.now());
          const r = await fetcher.fetch(url, robotsCheck);
          status = r.status;
          finalUrl = r.finalUrl;
          error = r.error;
          const ct = (r.contentType ?? '').toLowerCase();
          if (!error && r.body && status >= 200 && status < 300) {
            if (ct !== '' && !/^(text\/html|application\/xhtml\+xml)/u.test(ct)) error = `content-type ${ct.split(';')[0]} is not HTML`;
            else {
              try {
                const d = decodeHtml(r.body, { path: url });
                const page = parsePage(d.html);
                score = pageRelevance(page, lib, res.idf, o);
                isRelevant = score >= o.threshold;
                if (!isRelevant && o.dynamicLibrary === 'feedback') buf = `${page.title}\n${page.blocks.map((b) => b.text).join(' ')}`.slice(0, 600);
                const kids = childLinks(page, finalUrl ?? url, score, parent?.inherited ?? 0);
                links = kids.links;
                priors = kids.priors;
              } catch (err) {
                if (!(err instanceof FilmkwError)) throw err;
                error = err.message.replace(/^html: [^:]*: /u, '');
              }
            }
          } else if (!error && status >= 400) error = `HTTP ${status}`;
          if (r.body && status > 0) {
            const rec = WARCRecord.create(
              { url: finalUrl ?? url, date: new Date().toISOString(), type: 'response', warcVersion: 'WARC/1.1', httpHeaders: r.headers ?? {}, statusline: `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}` },
              [r.body],
            );
            const bytes = await WARCSerializer.serialize(rec, { gzip: true });
            appendFileSync(warcPath, bytes);
            warcSize += bytes.length;
          }
          if (isRelevant && r.body) {
            const text = htmlBytesToRecord(r.body, url);
            if (!('error' in text)) {
              const line = `${JSON.stringify({ id: url, url, title: text.title, text: text.text })}\n`;
              appendFileSync(textsPath, line);
              textsSize += Buffer.byteLength(line);
              if (o.dynamicLibrary === 'feedback') buf = `${text.title}\n${text.text.slice(0, 1500)}`;
            }
            const file = join(out, 'pages', pageFileName(url));
            mkdirSync(dirname(file), { recursive: true });
            writeFileSync(file, r.body);
          }
        }
      }
      if (buf !== undefined) (isRelevant ? dtflBuffer : offBuffer).push(buf);
      const dtfl = isRelevant && o.dynamicLibrary === 'feedback' && (relevant + 1) % o.updateEvery === 0 ? updateLibrary() : undefined;
      ev = { ...base, status, relevant: isRelevant, score: round(score), time: new Date().toISOString(), ...(finalUrl ? { finalUrl } : {}), ...(error ? { error } : {}), ...(links ? { links, priors } : {}), ...(dtfl ? { dtfl } : {}), ...(buf !== undefined ? { buf } : {}), warcEnd: warcSize, textsEnd: textsSize };
      writeEvent({ t: 'fetch', ...ev });
    }
    fetched++;
    perHost.set(host, (perHost.get(host) ?? 0) + 1);
    if (ev.finalUrl) seen.add(urlKey(ev.finalUrl));
    if (ev.error && !ev.links) errors++;
    if (ev.relevant) relevant++;
    if (offBuffer.length > OFF_KEEP) offBuffer.splice(0, offBuffer.length - OFF_KEEP);
    progress();
    if (!ev.links) return null;
    const inherited = ev.score >= o.threshold ? o.delta * ev.score : o.delta * (parent?.inherited ?? 0);
    const links = ev.links.map((u, i) => `${u}\t${ev.priors?.[i] ?? 0}`).join('\n');
    return { seq: seq++, url, depth, sim: ev.score, key: o.frontier === 'fifo' ? -seq : ev.score, links, inherited };
  };

  const budgetLeft = () => fetched < o.maxPages;
  for (const s of run.seeds) {
    if (!budgetLeft()) break;
    if (seen.has(urlKey(s))) continue;
    seen.add(urlKey(s));
    const e = await visit(s, 0, null);
    if (e) frontier.push(e);
  }
  while (budgetLeft()) {
    const e = frontier.pop();
    if (!e) break;
    if (e.score === undefined) {
      // lookahead: fetch the children (004 step 2 needs their relevance), at most maxLookahead of them,
      // best link prior first, and only while their prior is not below the best entry waiting in the
      // frontier; the rest wait in a continuation entry ranked by their best link prior
      const kids: FrontierEntry[] = [];
      const sims: number[] = [];
      const links = e.links ? e.links.split('\n') : [];
      let next = 0;
      let fetchedAhead = 0;
      if (e.depth < o.maxDepth) {
        const best = frontier.peekKey() ?? -Infinity;
        for (; next < links.length && fetchedAhead < (o.frontier === 'fifo' ? Infinity : o.maxLookahead); next++) {
          if (!budgetLeft()) break;
          const [link, prior] = links[next]!.split('\t') as [string, string | undefined];
          // a child whose prior is below the best waiting entry waits too (in the continuation)
          if (o.frontier !== 'fifo' && fetchedAhead > 0 && Number(prior ?? 0) < best) break;
          const key = urlKey(link);
          if (seen.has(key)) continue;
          seen.add(key);
          fetchedAhead++;
          const k = await visit(link, e.depth + 1, e);
          if (k) {
            kids.push(k);
            sims.push(k.sim);
          }
        }
      } else next = links.length;
      e.links = '';
      if (o.frontier === 'fifo') {
        for (const k of kids) frontier.push(k);
        continue;
      }
      e.kids = kids;
      e.score = twoStepScore(e.sim, sims, o.alpha, o.tauLow, o.threshold);
      e.key = e.score;
      frontier.push(e);
      if (next < links.length && budgetLeft()) {
        const rest = links.slice(next);
        frontier.push({ seq: seq++, url: e.url, depth: e.depth, sim: e.sim, key: Number(rest[0]!.split('\t')[1] ?? 0), links: rest.join('\n'), inherited: e.inherited });
      }
    } else {
      for (const k of e.kids ?? []) frontier.push(k);
      e.kids = undefined;
    }
  }
  fetcher.close();
  progress(true);
  const seconds = (performance.now() - t0) / 1000;
  const summary: CrawlSummary = {
    fetched,
    relevant,
    errors,
    frontier: frontier.size,
    pagesPerSec: fetched / Math.max(seconds, 1e-3),
    seconds,
    cpuSeconds: ((c) => (c.user + c.system) / 1e6)(process.cpuUsage(cpu0)),
    evicted: frontier.evicted,
    dtfl: [...lib.dynamic],
    replayed: rp,
    library: lib.size,
    stoppedBy: budgetLeft() ? 'frontier empty' : 'budget',
  };
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Record<string, unknown>;
  writeFileSync(metaPath, `${JSON.stringify({ ...meta, fingerprint, summary }, null, 2)}\n`);
  return summary;
}
