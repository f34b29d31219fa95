/**
 * Options of the focused crawler: one frozen defaults object ({@link CRAWL_DEFAULTS}), the four modes as
 * presets over it ({@link MODE_PRESETS}) and strict validation ({@link resolveCrawlOptions}). Every
 * choice the spec leaves open (../shared/docs/crawler-spec.md §4, marked [RECON] there) is one option here.
 */
import { usageError } from '../errors.js';

export const CRAWL_MODES = ['focused', 'bfs', 'static', 'one-step', 'best-first', 'shark'] as const;
export type CrawlMode = (typeof CRAWL_MODES)[number];

export type BlockType = 'title' | 'heading' | 'content' | 'anchor' | 'navigation' | 'other';

export interface CrawlOptions {
  /** @default 'focused' */
  mode: CrawlMode;
  /**
   * Frontier order: `fifo` (breadth-first), `two-step` (004 §2.3 with lookahead; α = 1 is one-step) or
   * `shark` (Shark-Search: a page's unfetched links wait ranked by their best link prior, children join at
   * once; crawler-spec.md §3.4). @default 'two-step'
   */
  frontier: 'fifo' | 'two-step' | 'shark';
  /**
   * Order of a page's children: `shark` (best link prior first, fetched ahead only while not below the best
   * waiting entry) or `none` (document order, all of them: [CGP98] best-first). @default 'shark'
   */
  linkPrior: 'shark' | 'none';
  /**
   * Which score decides that a page is saved (index `relevant`, texts.jsonl, pages/): `score` = 004's
   * two-step score ≥ η, known after the page's lookahead (pages never expanded: their own sim); `sim` =
   * the page's own relevance ≥ η (003 style). crawler-spec.md §3.5 `saveRule`. @default 'score'
   */
  saveRule: 'score' | 'sim';
  /** 004's α: score = α·sim(page) + (1−α)·mean sim(children). 1 = one-step VSM. @default 0.7 */
  alpha: number;
  /** 004 case (a): children below τ_low are dropped from the mean. @default 0.05 */
  tauLow: number;
  /** Page relevance threshold η (003 eq. 15 / θ). Measured on the test web: eval/crawl/ANALYSIS.md. @default 0.12 */
  threshold: number;
  /** Page relevance: 003's weighted tag-block vector (eq. 13–15), 003 eq. 7 block-type sum, or 004's position-weighted cosine. @default 'weightedVector' */
  pageRelevance: 'weightedVector' | 'blockSum' | 'plainCosine';
  /** 003 impact weights: λ (key-tag part), ρ (transitivity to the enclosing block), impact1 per block type. @default 0.3 */
  lambda: number;
  /** @default 0.5 */
  rho: number;
  /** @default {'title': 1, 'heading': 0.8, 'content': 0.6, 'anchor': 0.4, 'other': 0.2, 'navigation': 0.1} */
  impact1: Readonly<Record<BlockType, number>>;
  /** 003 eq. 7 block-type weights (blockSum). @default {'title': 0.25, 'heading': 0, 'content': 0.45, 'anchor': 0.15, 'navigation': 0.05, 'other': 0.1} */
  blockTypeWeights: Readonly<Record<BlockType, number>>;
  /** 004 eq. 1 position weights (plainCosine). @default {'title': 3, 'anchor': 2, 'heading': 2, 'body': 1} */
  positionWeights: Readonly<{ title: number; anchor: number; heading: number; body: number }>;
  /** 003 category weights β_b (主体: KG entity concepts), β_s (专用词汇), β_v (判定词). @default {'subject': 1, 'special': 1, 'judgement': 0.5} */
  topicWeights: Readonly<{ subject: number; special: number; judgement: number }>;
  /** IDF of page terms: nodejieba's bundled table, or none (all 1). @default 'bundled' */
  idfSource: 'bundled' | 'none';
  /** 003 DTFL: off (static library only) or keywords of relevant pages added during the crawl. @default 'feedback' */
  dynamicLibrary: 'off' | 'feedback';
  /** DTFL update every this many relevant pages. @default 50 */
  updateEvery: number;
  /** Terms added per update. @default 20 */
  topN: number;
  /** Weight of a DTFL term relative to a static 专用词汇 term (≤ 1: drift control). @default 0.5 */
  dtflWeight: number;
  /** Cap of the DTFL size. @default 200 */
  dtflMax: number;
  /** A DTFL candidate must have at least this IDF (common words such as 一个, 生活 stay out). @default 7 */
  dtflMinIdf: number;
  /** Shortest KG movie title / person name taken into the library (short titles are common words). @default 3 */
  minMovieName: number;
  /** @default 2 */
  minPersonName: number;
  /** KG names that are common words (bundled IDF below this) stay out of the library. @default 9 */
  minNameIdf: number;
  /** Shark-Search link prior (crawler-spec §3.4): decay δ, anchor share β, inherited share γ. @default 0.5 */
  delta: number;
  /** @default 0.8 */
  beta: number;
  /** @default 0.5 */
  gamma: number;
  /** Out-links that sit in navigation blocks (004 §2.3 noise links) are not followed as ordinary links — not in bfs. @default true */
  dropNavLinks: boolean;
  /**
   * The tunnel: links the focused order leaves out (navigation links) wait in the frontier below every
   * other entry, by a priority halved per page below η on the way (src/crawl/relevance.ts tunnelKey), so the crawl stops
   * only on its budget, its depth limit or an empty reachable web. false = strict filtering: they are
   * dropped, and the crawl stops when the focused frontier is empty. @default true
   */
  tunnel: boolean;
  /**
   * Children fetched ahead per page, best link prior first and only while their prior is not below the
   * best waiting frontier entry (two-step); the others wait in a continuation of the page ranked by
   * their best link prior. 30 (the spec's value) is at least as good as 10 on every seed set of the test
   * web (eval/crawl/ANALYSIS.md).
   * @default 30
   */
  maxLookahead: number;
  /**
   * Stop a page's lookahead at the first child whose link prior is below the best entry waiting in the
   * frontier (the rest wait in a continuation). false = the spec's plain Reading A: up to maxLookahead
   * children fetched ahead whatever their prior. @default true
   */
  lookaheadGate: boolean;
  /**
   * A page's link yield, (pages with links among its links fetched so far + 1) / (links fetched + 1),
   * scales the priors of its remaining links: in the lookahead gate and in the key of its continuation
   * (a page whose links were 404s or dead ends has the rest tried later). @default false
   */
  linkYield: boolean;
  /**
   * Depth budget D (the depth potential of Fish-Search, kept by Shark-Search as its "depth decay",
   * crawler-spec.md references [HER98]): a page at or above τ_low (tauLow: not "极低") has D, a page
   * below τ_low its parent's budget minus one (a seed below τ_low: D − 1). A page whose budget is spent
   * keeps no content link of its own: they wait in the reserve, a tier below the tunnel, taken only when
   * nothing else waits (dropped with `tunnel: false`); its navigation links still wait in the tunnel. Not
   * in bfs. 0 = off (the preset of bfs, best-first and shark). D = 3 was chosen on the four seed sets of
   * eval/crawl/results.md and checked on the off-topic seed sweep (eval/crawl/ANALYSIS.md, "Off-topic seeds").
   * @default 3
   */
  depthBudget: number;
  /** Children fetched ahead per expansion of a page below η (the tunnel: few links of many pages). @default 30 */
  tunnelLookahead: number;
  /** Out-links kept per page (bfs and best-first: in document order; otherwise best link prior first). @default 100 */
  maxOutLinks: number;
  /** @default 1000 */
  maxPages: number;
  /**
   * Largest link depth from a seed: a guard only in the modes with a depth budget, whose chains of pages
   * below τ_low the budget bounds wherever they start; 8 in bfs, best-first and shark (their presets).
   * @default 1000
   */
  maxDepth: number;
  /** @default 100000 */
  maxPagesPerHost: number;
  /** Frontier entries kept in memory; the lowest-priority ones are dropped beyond this (counted). @default 50000 */
  maxFrontier: number;
  /**
   * The set of URLs already fetched or scheduled: `exact` (a 53-bit hash per URL, ≈ 40 bytes each) or
   * `bloom` (a Bloom filter of the `bloom-filters` package sized for `bloomCapacity` URLs at
   * `bloomFpRate`: fixed memory, ≈ 1.8 MB per million URLs at 0.1 %; a false positive skips a URL never
   * seen, at about that rate while the crawl stays within the capacity). @default 'exact'
   */
  seenSet: 'exact' | 'bloom';
  /** @default 10000000 */
  bloomCapacity: number;
  /** @default 0.001 */
  bloomFpRate: number;
  /**
   * Requests in flight at once (at most one per host; Scrapy: 16 in flight, 8 per domain). 1 keeps the
   * deterministic order of the sequential crawler (the evaluation uses it); with more, the set of pages
   * fetched may differ, never a page's record. @default 8
   */
  concurrency: number;
  /**
   * Politeness: least delay between the starts of two requests to one host (robots Crawl-delay raises
   * it). `auto`: {@link REAL_HOST_DELAY_MS} on the real web, 0 through `--via` (a local replay server).
   * @default 'auto'
   */
  delayMs: number | 'auto';
  /**
   * Adaptive per-host delay (Scrapy's AutoThrottle rule, src/crawl/politeness.ts): after each response
   * the host's delay moves halfway to latency / autoThrottleTarget, never below the target nor below
   * delayMs / Crawl-delay, at most autoThrottleMaxDelayMs; an error never lowers it. @default false
   */
  autoThrottle: boolean;
  /** AutoThrottle: requests the host should be serving at once on average. @default 1 */
  autoThrottleTarget: number;
  /** AutoThrottle: the largest delay it sets. @default 60000 */
  autoThrottleMaxDelayMs: number;
  /** Longest Crawl-delay honoured (a larger one skips the host: reported). @default 30000 */
  maxCrawlDelayMs: number;
  /** @default 10000 */
  timeoutMs: number;
  /** @default 5242880 */
  maxBytes: number;
  /** @default 5 */
  maxRedirects: number;
  /** @default true */
  respectRobots: boolean;
  /** The product token of the User-Agent header (robots.txt rules are matched against it). @default 'filmkw-crawler' */
  userAgent: string;
  /**
   * How a site operator reaches whoever runs the crawl (a URL or mailto:), sent in the User-Agent as
   * `filmkw-crawler (+contact)`; the CLI warns when a crawl of the real web names none. @default ''
   */
  contact: string;
  /** Hosts that may be fetched (suffix match, `example.com` covers `www.example.com`); empty = any. @default [] */
  allowHosts: readonly string[];
  /** @default [] */
  denyHosts: readonly string[];
}

const BLOCK_TYPES: readonly BlockType[] = ['title', 'heading', 'content', 'anchor', 'navigation', 'other'];

export const CRAWL_DEFAULTS: Readonly<CrawlOptions> = Object.freeze({
  mode: 'focused',
  frontier: 'two-step',
  linkPrior: 'shark',
  saveRule: 'score',
  alpha: 0.7,
  tauLow: 0.05,
  threshold: 0.12,
  pageRelevance: 'weightedVector',
  lambda: 0.3,
  rho: 0.5,
  impact1: Object.freeze({ title: 1.0, heading: 0.8, content: 0.6, anchor: 0.4, other: 0.2, navigation: 0.1 }),
  blockTypeWeights: Object.freeze({ title: 0.25, heading: 0, content: 0.45, anchor: 0.15, navigation: 0.05, other: 0.1 }),
  positionWeights: Object.freeze({ title: 3, anchor: 2, heading: 2, body: 1 }),
  topicWeights: Object.freeze({ subject: 1, special: 1, judgement: 0.5 }),
  idfSource: 'bundled',
  dynamicLibrary: 'feedback',
  updateEvery: 50,
  topN: 20,
  dtflWeight: 0.5,
  dtflMax: 200,
  dtflMinIdf: 7,
  minMovieName: 3,
  minPersonName: 2,
  minNameIdf: 9,
  delta: 0.5,
  beta: 0.8,
  gamma: 0.5,
  dropNavLinks: true,
  tunnel: true,
  maxLookahead: 30,
  lookaheadGate: true,
  linkYield: false,
  depthBudget: 3,
  tunnelLookahead: 30,
  maxOutLinks: 100,
  maxPages: 1000,
  maxDepth: 1000,
  maxPagesPerHost: 100000,
  maxFrontier: 50000,
  seenSet: 'exact',
  bloomCapacity: 10_000_000,
  bloomFpRate: 0.001,
  concurrency: 8,
  delayMs: 'auto',
  autoThrottle: false,
  autoThrottleTarget: 1,
  autoThrottleMaxDelayMs: 60000,
  maxCrawlDelayMs: 30000,
  timeoutMs: 10000,
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  respectRobots: true,
  userAgent: 'filmkw-crawler',
  contact: '',
  allowHosts: Object.freeze([]) as readonly string[],
  denyHosts: Object.freeze([]) as readonly string[],
});

/** The modes: the proposed crawler and the baselines the papers compare against. */
export const MODE_PRESETS: Readonly<Record<CrawlMode, Readonly<Partial<CrawlOptions>>>> = Object.freeze({
  /** 003 extended library (static + feedback) as page relevance, 004 two-step score as frontier priority. */
  focused: Object.freeze({}),
  /** Breadth-first: FIFO frontier, every link followed (relevance still computed for the index); the depth limit of before (no budget). */
  bfs: Object.freeze({ frontier: 'fifo', dropNavLinks: false, depthBudget: 0, maxDepth: 8 }),
  /** 003's baseline: the static library only (no DTFL), same frontier as focused. */
  static: Object.freeze({ dynamicLibrary: 'off' }),
  /** 004's baseline: one-step VSM (α = 1), same library as focused. */
  'one-step': Object.freeze({ alpha: 1 }),
  /** crawler-spec.md §3.5 `best-first` ([CGP98]/BFS1): the most relevant page's children, all, in document order; no lookahead gating, no two-step. */
  'best-first': Object.freeze({ alpha: 1, linkPrior: 'none', depthBudget: 0, maxDepth: 8 }),
  /** crawler-spec.md §3.5 `shark` ([HER98]): unfetched links ranked by their Shark-Search prior; no two-step. */
  shark: Object.freeze({ alpha: 1, frontier: 'shark', depthBudget: 0, maxDepth: 8 }),
});

const num = (o: Record<string, unknown>, k: string, lo: number, hi: number, int = false, prefix = '') => {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi || (int && !Number.isInteger(v))) {
    throw usageError(`crawl: option ${prefix}${k} must be ${int ? 'an integer' : 'a number'} in [${lo}, ${hi}], got ${JSON.stringify(v)}`);
  }
};
const oneOf = (o: Record<string, unknown>, k: string, values: readonly string[]) => {
  if (!values.includes(o[k] as string)) throw usageError(`crawl: option ${k} must be one of ${values.join(', ')}, got ${JSON.stringify(o[k])}`);
};
const weights = (o: Record<string, unknown>, k: string, keys: readonly string[]) => {
  const v = o[k] as Record<string, unknown>;
  if (typeof v !== 'object' || v === null) throw usageError(`crawl: option ${k} must be an object`);
  for (const key of Object.keys(v)) if (!keys.includes(key)) throw usageError(`crawl: option ${k}.${key} is unknown (known: ${keys.join(', ')})`);
  for (const key of keys) num(v, key, 0, 100, false, `${k}.`);
};

/** Defaults ← mode preset ← overrides, validated: an unknown key or a bad value is a usage error. */
export function resolveCrawlOptions(overrides: Partial<CrawlOptions> = {}): Readonly<CrawlOptions> {
  for (const k of Object.keys(overrides)) if (!Object.hasOwn(CRAWL_DEFAULTS, k)) throw usageError(`crawl: unknown option ${k}`);
  const mode = overrides.mode ?? CRAWL_DEFAULTS.mode;
  if (!(CRAWL_MODES as readonly string[]).includes(mode)) throw usageError(`crawl: --mode must be one of ${CRAWL_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
  const o = { ...CRAWL_DEFAULTS, ...MODE_PRESETS[mode], ...overrides } as CrawlOptions;
  const r = o as unknown as Record<string, unknown>;
  oneOf(r, 'frontier', ['fifo', 'two-step', 'shark']);
  oneOf(r, 'linkPrior', ['shark', 'none']);
  oneOf(r, 'saveRule', ['score', 'sim']);
  oneOf(r, 'seenSet', ['exact', 'bloom']);
  num(r, 'bloomCapacity', 1000, 1e10, true);
  num(r, 'bloomFpRate', 1e-9, 0.5);
  oneOf(r, 'pageRelevance', ['weightedVector', 'blockSum', 'plainCosine']);
  oneOf(r, 'idfSource', ['bundled', 'none']);
  oneOf(r, 'dynamicLibrary', ['off', 'feedback']);
  for (const k of ['alpha', 'tauLow', 'threshold', 'lambda', 'rho', 'dtflWeight', 'delta', 'beta', 'gamma']) num(r, k, 0, 1);
  for (const k of ['updateEvery', 'topN', 'maxLookahead', 'tunnelLookahead', 'maxOutLinks', 'maxPages', 'maxPagesPerHost', 'maxFrontier', 'maxRedirects']) num(r, k, k === 'maxRedirects' ? 0 : 1, 1e9, true);
  for (const k of ['dtflMax', 'depthBudget', 'maxDepth', 'maxCrawlDelayMs', 'minMovieName', 'minPersonName']) num(r, k, 0, 1e9, true);
  if (o.delayMs !== 'auto') num(r, 'delayMs', 0, 1e9, true);
  num(r, 'concurrency', 1, 256, true);
  num(r, 'minNameIdf', 0, 100);
  num(r, 'dtflMinIdf', 0, 100);
  num(r, 'timeoutMs', 1, 600000, true);
  num(r, 'autoThrottleTarget', 0.1, 100);
  num(r, 'autoThrottleMaxDelayMs', 0, 3600000, true);
  num(r, 'maxBytes', 1024, 1 << 30, true);
  weights(r, 'impact1', BLOCK_TYPES);
  weights(r, 'blockTypeWeights', BLOCK_TYPES);
  weights(r, 'positionWeights', ['title', 'anchor', 'heading', 'body']);
  weights(r, 'topicWeights', ['subject', 'special', 'judgement']);
  for (const k of ['dropNavLinks', 'tunnel', 'respectRobots', 'lookaheadGate', 'autoThrottle', 'linkYield'] as const) if (typeof o[k] !== 'boolean') throw usageError(`crawl: ${k} must be true or false`);
  if (typeof o.userAgent !== 'string' || !/^[\w.\-/ ()+:;]{1,200}$/u.test(o.userAgent)) throw usageError('crawl: userAgent must be 1–200 printable characters');
  if (typeof o.contact !== 'string' || !/^[\w.\-/:@+~%?=&#]{0,200}$/u.test(o.contact)) throw usageError(`crawl: contact must be a URL or an e-mail address (no spaces, at most 200 characters), got ${JSON.stringify(o.contact)}`);
  for (const k of ['allowHosts', 'denyHosts'] as const) {
    if (!Array.isArray(o[k]) || o[k].some((h) => typeof h !== 'string' || !/^[a-z0-9.-]+(:\d+)?$/iu.test(h))) throw usageError(`crawl: ${k} must be host names, got ${JSON.stringify(o[k])}`);
  }
  return Object.freeze({ ...o, allowHosts: Object.freeze([...o.allowHosts].map((h) => h.toLowerCase())), denyHosts: Object.freeze([...o.denyHosts].map((h) => h.toLowerCase())) });
}

/** The politeness delay on a real host when `delayMs` is `auto` (the spec's default: one request per second per host). */
export const REAL_HOST_DELAY_MS = 1000;

/** `delayMs` resolved: `auto` is {@link REAL_HOST_DELAY_MS}, or 0 when every request goes to a replay server (`via`). */
export function resolvedDelayMs(o: Pick<CrawlOptions, 'delayMs'>, via: string | undefined): number {
  return o.delayMs === 'auto' ? (via ? 0 : REAL_HOST_DELAY_MS) : o.delayMs;
}

/** The User-Agent header: the product token, and the contact when there is one. */
export function userAgentHeader(o: Pick<CrawlOptions, 'userAgent' | 'contact'>): string {
  return o.contact ? `${o.userAgent} (+${o.contact})` : o.userAgent;
}

/** Whether the options allow fetching from `host` (allow list by suffix, deny list by suffix). */
export function hostAllowed(host: string, o: Pick<CrawlOptions, 'allowHosts' | 'denyHosts'>): boolean {
  const h = host.toLowerCase();
  const match = (p: string) => h === p || h.endsWith(`.${p}`);
  if (o.denyHosts.some(match)) return false;
  return o.allowHosts.length === 0 || o.allowHosts.some(match);
}
