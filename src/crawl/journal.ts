/**
 * The crawl journal (`.state/journal.jsonl`, Scrapy's JOBDIR): one JSON line per change of the crawl's
 * state, appended before the change is relied on, so that `--resume` after a kill at any point replays
 * the crawl to where it stopped without the network. Events: `pop` (the frontier's best entry taken),
 * `intent` (a child taken as a request, before any byte is sent), `fetch` (a request's result: the index
 * line plus what a replay needs), `done` (an expansion closed) and `save` (a page's save decision).
 * An expansion is named by its frontier entry's discovery number (`from`, `x`; −1 for the seeds): a page
 * and its tunnel entry can be expanded at the same time.
 * A `fetch` or `save` line records the sizes of the WARC and texts.jsonl after it; a resume cuts both
 * back to the last such line (a kill between writing a record and its journal line leaves a tail).
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { FilmkwError, usageError } from '../errors.js';

/** One fetched URL: the index line plus what a replay needs. */
export interface FetchEvent {
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
  /** Navigation links set apart for the tunnel, and their priors. */
  nav?: string[];
  navPriors?: number[];
  /** Terms the DTFL gained after this page (a library update happens inside one journal line). */
  dtfl?: string[];
  /** Text this page contributed to the DTFL buffers (relevant: its main text; other: a snippet). */
  buf?: string;
  /** The page waits for its two-step score (index: provisional `relevant`). */
  pending?: boolean;
  /** 004's two-step score (index only, from the save event). */
  twoStep?: number;
  /** When the request was sent (ms since the epoch), for the politeness record; absent without a request. */
  sent?: number;
  warcEnd: number;
  textsEnd: number;
}

/** The save decision of a page once its two-step score is known. */
export interface SaveEvent {
  url: string;
  twoStep: number;
  saved: boolean;
  warcEnd: number;
  textsEnd: number;
}

export type JournalEvent =
  | ({ t: 'fetch' } & FetchEvent)
  | ({ t: 'save' } & SaveEvent)
  | { t: 'intent'; url: string; from: number; i: number }
  | { t: 'pop'; url: string }
  | { t: 'done'; url: string; x: number; stop: number };

const INDEX_KEYS = ['url', 'status', 'relevant', 'score', 'twoStep', 'depth', 'parent', 'time', 'finalUrl', 'error', 'pending'] as const;

/** The index.jsonl line of a fetch event (fixed key order). */
export const indexLine = (e: FetchEvent): string => JSON.stringify(Object.fromEntries(INDEX_KEYS.filter((k) => e[k] !== undefined).map((k) => [k, e[k]])));

/** The files of a crawl folder. */
export function crawlPaths(out: string) {
  const state = join(out, '.state');
  return {
    out,
    state,
    journal: join(state, 'journal.jsonl'),
    pending: join(state, 'pending'),
    meta: join(out, 'crawl.json'),
    warc: join(out, 'crawl.warc.gz'),
    texts: join(out, 'texts.jsonl'),
    index: join(out, 'index.jsonl'),
    pages: join(out, 'pages'),
  };
}
export type CrawlPaths = ReturnType<typeof crawlPaths>;

/** Creates the folders of a crawl; an unwritable place is an output error (exit 7). */
export function makeCrawlDirs(p: CrawlPaths): void {
  try {
    mkdirSync(p.pages, { recursive: true });
    mkdirSync(p.pending, { recursive: true });
  } catch (err) {
    throw new FilmkwError('OUTPUT', `crawl: cannot create ${p.out}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Reads the journal of the crawl in `p` for a resume: checks that it is the same crawl (fingerprint),
 * keeps the whole lines (the last may be cut by a kill), rewrites the journal with them, cuts the WARC
 * and texts.jsonl to the sizes of the last sized event and rewrites index.jsonl from the fetch events.
 */
export function readJournalForResume(p: CrawlPaths, fingerprint: string): JournalEvent[] {
  const meta = JSON.parse(readFileSync(p.meta, 'utf8')) as { fingerprint: string };
  if (meta.fingerprint !== fingerprint) throw usageError(`crawl: --resume refused: the seeds, options or KG differ from the crawl in ${p.out}`);
  const events: JournalEvent[] = [];
  const lines = existsSync(p.journal) ? readFileSync(p.journal, 'utf8').split('\n') : [];
  for (const l of lines) {
    if (!l) continue;
    try {
      events.push(JSON.parse(l) as JournalEvent);
    } catch {
      break;
    }
  }
  writeFileSync(p.journal, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  let sized: { warcEnd: number; textsEnd: number } | undefined;
  for (const e of events) if (e.t === 'fetch' || e.t === 'save') sized = e;
  const cut = (path: string, size: number) => {
    if (existsSync(path) && statSync(path).size > size) truncateSync(path, size);
  };
  cut(p.warc, sized?.warcEnd ?? 0);
  cut(p.texts, sized?.textsEnd ?? 0);
  writeFileSync(p.index, events.flatMap((e) => (e.t === 'fetch' ? [`${indexLine(e)}\n`] : [])).join(''));
  return events;
}

/** index.jsonl rewritten from the journal with the save decisions (its final form). */
export async function writeFinalIndex(p: CrawlPaths): Promise<void> {
  const decisions = new Map<string, { saved: boolean; twoStep: number }>();
  const events = async function* () {
    for await (const l of createInterface({ input: createReadStream(p.journal), crlfDelay: Infinity })) if (l) yield JSON.parse(l) as JournalEvent;
  };
  for await (const e of events()) if (e.t === 'save') decisions.set(e.url, { saved: e.saved, twoStep: e.twoStep });
  const tmp = `${p.index}.tmp`;
  const w = createWriteStream(tmp);
  for await (const e of events()) {
    if (e.t !== 'fetch') continue;
    const d = decisions.get(e.url);
    const line = `${indexLine({ ...e, pending: undefined, ...(d ? { relevant: d.saved, twoStep: d.twoStep } : {}) })}\n`;
    if (!w.write(line)) await new Promise<void>((r) => w.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => w.end((err?: Error | null) => (err ? reject(err) : resolve())));
  renameSync(tmp, p.index);
}
