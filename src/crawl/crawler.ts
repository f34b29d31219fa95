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
 * Resume: the crawl is a deterministic function of the fetch results, so `--resume` replays the
 * journal (no network: recorded relevance and links) up to where it stopped, truncates the WARC and
 * texts to the journalled sizes, and continues. Before each request an intent line is journalled; a
 * page is fetched twice only when the kill hits between its intent and its record (the request in
 * flight), and the resumed run names it (summary `inFlight`). index.jsonl is final when the crawl ends
 * (rewritten from the journal with the save decisions); while it runs, lines marked `pending` carry
 * the provisional sim decision.
 */
import { closeSync, createReadStream, createWriteStream, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync, writeSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
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
import { createSeenSet } from './seen.js';
import { hostKey, normalizeUrl, pageFileName, urlHash, urlKey } from './url.js';

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
  /** The page waits for its two-step score (index: provisional `relevant`). */
  pending?: boolean;
  /** 004's two-step score (index only, from the save event). */
  twoStep?: number;
  warcEnd: number;
  textsEnd: number;
}
/** The save decision of a page once its two-step score is known. */
interface SaveEvent {
  url: string;
  twoStep: number;
  saved: boolean;
  warcEnd: number;
  textsEnd: number;
}
type JournalEvent = ({ t: 'fetch' } & FetchEvent) | ({ t: 'save' } & SaveEvent) | { t: 'intent'; url: string };

const INDEX_KEYS = ['url', 'status', 'relevant', 'score', 'twoStep', 'depth', 'parent', 'time', 'finalUrl', 'error', 'pending'] as const;
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
  const pendingDir = join(stateDir, 'pending');
  const fingerprint = JSON.stringify({ options: o, seeds: run.seeds, kg: res.kg?.contentHash ?? null });
  let replay: Exclude<JournalEvent, { t: 'intent' }>[] = [];
  const inFlight: string[] = [];
  try {
    mkdirSync(join(out, 'pages'), { recursive: true });
    mkdirSync(pendingDir, { recursive: true });
  } catch (err) {
    throw new FilmkwError('OUTPUT', `crawl: cannot create ${out}: ${(err as Error).message}`, { cause: err });
  }
  if (existsSync(metaPath)) {
    if (!run.resume) throw usageError(`crawl: ${out} already holds a crawl; pass --resume to continue it, or choose another --out`);
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { fingerprint: string };
    if (meta.fingerprint !== fingerprint) throw usageError(`crawl: --resume refused: the seeds, options or KG differ from the crawl in ${out}`);
    const lines = existsSync(journalPath) ? readFileSync(journalPath, 'utf8').split('\n') : [];
    // the last line may be cut by a kill: keep whole lines only; an intent without its record is the
    // request that was in flight at the kill (it is made again)
    let open: string | undefined;
    for (const l of lines) {
      if (!l) continue;
      let e: JournalEvent;
      try {
        e = JSON.parse(l) as JournalEvent;
      } catch {
        break;
      }
      if (e.t === 'intent') open = e.url;
      else {
        if (e.t === 'fetch' && e.url === open) open = undefined;
        replay.push(e);
      }
    }
    if (open !== undefined) inFlight.push(open);
    const lastFetch = replay[replay.length - 1];
    writeFileSync(journalPath, replay.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const cut = (p: string, size: number) => {
      if (existsSync(p) && statSync(p).size > size) truncateSync(p, size);
    };
    cut(warcPath, lastFetch?.warcEnd ?? 0);
    cut(textsPath, lastFetch?.textsEnd ?? 0);
    writeFileSync(indexPath, replay.flatMap((e) => (e.t === 'fetch' ? [`${indexLine(e)}\n`] : [])).join(''));
  } else {
    if (run.resume) throw usageError(`crawl: --resume: ${out} holds no crawl to resume`);
    writeFileSync(metaPath, `${JSON.stringify({ fingerprint, options: o, seeds: run.seeds }, null, 2)}\n`);
    for (const p of [journalPath, indexPath, textsPath]) writeFileSync(p, '');
    writeFileSync(warcPath, await WARCSerializer.serialize(WARCRecord.createWARCInfo({ filename: 'crawl.warc.gz', warcVersion: 'WARC/1.1' }, { software: 'filmkw crawl', format: 'WARC File Format 1.1' }), { gzip: true }));
  }
  // the four append-only outputs stay open for the whole crawl (one open per file, not one per page:
  // opening was 16 % of a crawl's CPU time); each write is still unbuffered write(2) calls, as before
  const appenders: number[] = [];
  const appender = (path: string) => {
    let fd = -1;
    return (data: string | Uint8Array) => {
      if (fd < 0) appenders.push((fd = openSync(path, 'a')));
      const buf = typeof data === 'string' ? Buffer.from(data) : data;
      for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
    };
  };
  const closeAppenders = () => {
    for (const fd of appenders.splice(0)) closeSync(fd);
  };
  const appendJournal = appender(journalPath);
  const appendIndex = appender(indexPath);
  const appendTexts = appender(textsPath);
  const appendWarc = appender(warcPath);
  let warcSize = statSync(warcPath).size;
  let textsSize = existsSync(textsPath) ? statSync(textsPath).size : 0;
  let rp = 0; // next replay event

  const lib = TopicLibrary.fromKg(res.kg, o, res.commonWord);
  const fetcher = new Fetcher(o, run.via);
  // a dropped entry is never expanded: its pending save is decided on its own sim (bounded memory)
  const frontier = new Frontier(o.maxFrontier, (e) => {
    decide(e.url, e.sim);
    for (const k of e.kids ?? []) decide(k.url, k.sim);
  });
  /** URLs already fetched or scheduled, as {@link urlKey} numbers (exact, or a Bloom filter: `seenSet`). */
  const seen = createSeenSet(o);
  const robots = new Map<string, Promise<HostRules>>();
  const lastRequest = new Map<string, number>();
  const perHost = new Map<string, number>();
  const dtflBuffer: string[] = [];
  /** Snippets of the latest pages judged not relevant: the contrast set of the DTFL review. */
  const offBuffer: string[] = [];
  const OFF_KEEP = 100;
  let fetched = 0;
  let relevant = 0;
  let saved = 0;
  /** 004's score is computed (two-step frontier, α < 1); with saveRule `score` it decides saving. */
  const scored = o.frontier === 'two-step' && o.alpha < 1;
  const defer = scored && o.saveRule === 'score';
  /** Pages whose two-step score is not known yet → their sim, in fetch order. */
  const pendingSims = new Map<string, number>();
  let errors = 0;
  let seq = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let lastProgress = 0;
  const progress = (force = false) => {
    const now = performance.now();
    if (!run.onProgress || (!force && now - lastProgress < (run.progressEveryMs ?? CRAWL_RUN_DEFAULTS.progressEveryMs))) return;
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

  /** bfs and best-first take a page's children in document order, all of them (no link prior). */
  const documentOrder = o.frontier === 'fifo' || o.linkPrior === 'none';
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
      if (documentOrder) {
        cands.push({ url: n.url, prior: 0, i });
        return;
      }
      const anchor = textRelevance(l.anchor, lib);
      const prior = linkPrior(inh, anchor, anchor > 0 ? 1 : simOfContext(l.context), o.beta, o.gamma);
      cands.push({ url: n.url, prior, i });
    });
    if (!documentOrder) cands.sort((a, b) => b.prior - a.prior || a.i - b.i);
    const kept = cands.slice(0, o.maxOutLinks);
    return { links: kept.map((c) => c.url), priors: kept.map((c) => round(c.prior)) };
  };

  const writeEvent = (e: JournalEvent) => {
    appendJournal(`${JSON.stringify(e)}\n`);
    if (e.t === 'fetch') appendIndex(`${indexLine(e)}\n`);
  };
  /** Main text of a saved page → texts.jsonl; returns it (the DTFL buffer takes it too). */
  const saveText = (url: string, body: Uint8Array): { title: string; text: string } | null => {
    const text = htmlBytesToRecord(body, url);
    if ('error' in text) return null;
    const line = `${JSON.stringify({ id: url, url, title: text.title, text: text.text })}\n`;
    appendTexts(line);
    textsSize += Buffer.byteLength(line);
    return text;
  };
  /** A saved page's file under pages/ (its folder created). */
  const pageFile = (url: string): string => {
    const file = join(out, 'pages', pageFileName(url));
    mkdirSync(dirname(file), { recursive: true });
    return file;
  };
  const savePage = (url: string, body: Uint8Array) => writeFileSync(pageFile(url), body);
  const stagedPath = (url: string) => join(pendingDir, `${urlHash(url)}.html`);
  const mismatch = (url: string) => inputError(`crawl: --resume: the journal in ${out} does not match this crawl at event ${rp} (expected ${url}); start a new --out`);

  /** 004 save decision of a page once its two-step score is known (or at the end: its own sim). */
  const decide = (url: string, twoStep: number) => {
    const sim = pendingSims.get(url);
    if (sim === undefined) return;
    pendingSims.delete(url);
    const keep = o.saveRule === 'score' ? twoStep >= o.threshold : sim >= o.threshold;
    if (rp < replay.length) {
      const r = replay[rp++]!;
      if (r.t !== 'save' || r.url !== url) throw mismatch(url);
    } else {
      if (defer) {
        const staged = stagedPath(url);
        if (keep) {
          // the staged file becomes the page file (a rename, not a second file written); a kill after the
          // rename and before the save line: the page file holds the body
          const file = pageFile(url);
          if (existsSync(staged)) {
            saveText(url, readFileSync(staged));
            renameSync(staged, file);
          } else if (existsSync(file)) saveText(url, readFileSync(file));
        } else rmSync(staged, { force: true });
      }
      writeEvent({ t: 'save', url, twoStep: round(twoStep), saved: keep, warcEnd: warcSize, textsEnd: textsSize });
    }
    if (keep) saved++;
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
      if (r.t !== 'fetch' || r.url !== url) throw mismatch(url);
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
      let pending: boolean | undefined;
      if (why) error = why;
      else {
        const rules = await rulesOf(url);
        if (rules.crawlDelayMs > o.maxCrawlDelayMs) error = `robots.txt Crawl-delay of ${rules.crawlDelayMs} ms is above the limit of ${o.maxCrawlDelayMs} ms: host skipped`;
        else {
          const wait = (lastRequest.get(host) ?? -Infinity) + Math.max(o.delayMs, rules.crawlDelayMs) - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          lastRequest.set(host, performance.now());
          appendJournal(`${JSON.stringify({ t: 'intent', url })}\n`);
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
            const bytes = await WARCSerializer.serialize(rec, { gzip: true, preferPako: true });
            appendWarc(bytes);
            warcSize += bytes.length;
          }
          if (links && scored) pending = true;
          if (r.body && links && defer) writeFileSync(stagedPath(url), r.body);
          if (isRelevant && r.body) {
            // deferred save: the text is written at the decision; extracted now only for the DTFL buffer
            let text: { title: string; text: string } | null = null;
            if (!defer) {
              text = saveText(url, r.body);
              savePage(url, r.body);
            } else if (o.dynamicLibrary === 'feedback') {
              const t = htmlBytesToRecord(r.body, url);
              text = 'error' in t ? null : t;
            }
            if (text && o.dynamicLibrary === 'feedback') buf = `${text.title}\n${text.text.slice(0, 1500)}`;
          }
        }
      }
      if (buf !== undefined) (isRelevant ? dtflBuffer : offBuffer).push(buf);
      const dtfl = isRelevant && o.dynamicLibrary === 'feedback' && (relevant + 1) % o.updateEvery === 0 ? updateLibrary() : undefined;
      ev = { ...base, status, relevant: isRelevant, score: round(score), time: new Date().toISOString(), ...(finalUrl ? { finalUrl } : {}), ...(error ? { error } : {}), ...(links ? { links, priors } : {}), ...(dtfl ? { dtfl } : {}), ...(buf !== undefined ? { buf } : {}), ...(pending ? { pending } : {}), warcEnd: warcSize, textsEnd: textsSize };
      writeEvent({ t: 'fetch', ...ev });
    }
    fetched++;
    perHost.set(host, (perHost.get(host) ?? 0) + 1);
    if (ev.finalUrl) seen.add(urlKey(ev.finalUrl));
    if (ev.error && !ev.links) errors++;
    if (ev.relevant) relevant++;
    if (ev.pending) pendingSims.set(url, ev.score);
    else if (ev.relevant) saved++;
    if (offBuffer.length > OFF_KEEP) offBuffer.splice(0, offBuffer.length - OFF_KEEP);
    progress();
    if (!ev.links) return null;
    const inherited = ev.score >= o.threshold ? o.delta * ev.score : o.delta * (parent?.inherited ?? 0);
    const links = ev.links.map((u, i) => `${u}\t${ev.priors?.[i] ?? 0}`).join('\n');
    const key = o.frontier === 'fifo' ? -seq : o.frontier === 'shark' ? (ev.priors?.[0] ?? 0) : ev.score;
    return { seq: seq++, url, depth, sim: ev.score, key, links, inherited };
  };

  /** index.jsonl from the journal, with the save decisions (the final form; see the module header). */
  const finalIndex = async () => {
    const decisions = new Map<string, { saved: boolean; twoStep: number }>();
    const events = async function* () {
      for await (const l of createInterface({ input: createReadStream(journalPath), crlfDelay: Infinity })) if (l) yield JSON.parse(l) as JournalEvent;
    };
    for await (const e of events()) if (e.t === 'save') decisions.set(e.url, { saved: e.saved, twoStep: e.twoStep });
    const tmp = `${indexPath}.tmp`;
    const w = createWriteStream(tmp);
    for await (const e of events()) {
      if (e.t !== 'fetch') continue;
      const d = decisions.get(e.url);
      const line = `${indexLine({ ...e, pending: undefined, ...(d ? { relevant: d.saved, twoStep: d.twoStep } : {}) })}\n`;
      if (!w.write(line)) await new Promise<void>((r) => w.once('drain', () => r()));
    }
    await new Promise<void>((resolve, reject) => w.end((err?: Error | null) => (err ? reject(err) : resolve())));
    renameSync(tmp, indexPath);
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
        for (; next < links.length && fetchedAhead < (documentOrder ? Infinity : o.maxLookahead); next++) {
          if (!budgetLeft()) break;
          const [link, prior] = links[next]!.split('\t') as [string, string | undefined];
          // a child whose prior is below the best waiting entry waits too (in the continuation)
          if (!documentOrder && o.lookaheadGate && fetchedAhead > 0 && Number(prior ?? 0) < best) break;
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
      if (o.frontier !== 'two-step') {
        // bfs and shark: the children join at once; shark keeps the page's other links waiting by prior
        for (const k of kids) frontier.push(k);
        if (o.frontier === 'fifo' || next >= links.length || !budgetLeft()) continue;
      } else {
        e.kids = kids;
        e.score = twoStepScore(e.sim, sims, o.alpha, o.tauLow, o.threshold);
        e.key = e.score;
        decide(e.url, e.score);
        frontier.push(e);
      }
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
  // pages never expanded: their two-step score is their own relevance (no child known)
  for (const [url, sim] of [...pendingSims]) decide(url, sim);
  closeAppenders();
  if (scored) await finalIndex();
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
    saved,
    inFlight,
    dtfl: [...lib.dynamic],
    replayed: replay.reduce((n, e, i) => n + (i < rp && e.t === 'fetch' ? 1 : 0), 0),
    library: lib.size,
    stoppedBy: budgetLeft() ? 'frontier empty' : 'budget',
  };
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Record<string, unknown>;
  writeFileSync(metaPath, `${JSON.stringify({ ...meta, fingerprint, summary }, null, 2)}\n`);
  return summary;
}
