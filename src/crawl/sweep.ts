/**
 * The off-topic seed sweep (issue 27): every real off-topic page of the test web from which a film page
 * can be reached at all is taken as a seed, one at a time, with a fixed budget; per configuration, the
 * number of seeds from which the crawl fetches at least one relevant page, the harvest rate over all
 * fetches of all seeds, and where the first relevant page came. Reachability follows every link as the
 * crawler parses it (navigation links included) through the pages the test web serves (redirects
 * followed), breadth-first, so the distance to the nearest film page is the fewest links a crawl needs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeHtml } from '../html/decode.js';
import { crawl, type CrawlResources } from './crawler.js';
import type { Gold, IndexLine } from './gold.js';
import { resolveCrawlOptions, type CrawlMode, type CrawlOptions } from './options.js';
import { parsePage } from './page.js';
import { normalizeUrl } from './url.js';

/** A sweep seed and the fewest links from it to a relevant page. */
export interface SweepSeed {
  url: string;
  distance: number;
}

/** The served pages of a test web: URL → file (redirects resolved to their target). */
function servedPages(web: string): { files: Map<string, string>; redirect: Map<string, string> } {
  const files = new Map<string, string>();
  const redirect = new Map<string, string>();
  for (const line of readFileSync(join(web, 'manifest.tsv'), 'utf8').split('\n').slice(1)) {
    const [url, file] = line.split('\t');
    if (!url || !file) continue;
    const n = normalizeUrl(url);
    if ('error' in n) continue;
    if (file.startsWith('redirect:')) {
      const t = normalizeUrl(file.slice('redirect:'.length), n.url);
      if (!('error' in t)) redirect.set(n.url, t.url);
    } else if (!file.startsWith('status:')) files.set(n.url, file.replace(/^slow:\d+:/u, ''));
  }
  return { files, redirect };
}

/**
 * Real off-topic pages (gold: real, not relevant) from which a relevant page is reachable within
 * `maxDistance` links, nearest first (ties by URL).
 */
export function tunnelSeeds(web: string, gold: Gold, maxDistance = 12): SweepSeed[] {
  const { files, redirect } = servedPages(web);
  const memo = new Map<string, string[]>();
  const linksOf = (u: string): string[] => {
    let out = memo.get(u);
    if (out) return out;
    out = [];
    const f = files.get(u);
    if (f) {
      try {
        const page = parsePage(decodeHtml(new Uint8Array(readFileSync(join(web, f))), { path: u }).html);
        for (const l of page.links) {
          const n = normalizeUrl(l.href, u);
          if (!('error' in n)) out.push(redirect.get(n.url) ?? n.url);
        }
      } catch {
        // an undecodable page has no links
      }
    }
    memo.set(u, out);
    return out;
  };
  const seeds: SweepSeed[] = [];
  for (const [url, rel] of gold.relevant) {
    if (rel || !gold.real.has(url) || !files.has(url)) continue;
    const dist = new Map([[url, 0]]);
    const queue = [url];
    let found = -1;
    for (let i = 0; i < queue.length && found < 0; i++) {
      const u = queue[i]!;
      const d = dist.get(u)!;
      if (d >= maxDistance) break;
      for (const v of linksOf(u)) {
        if (dist.has(v) || !files.has(v)) continue;
        dist.set(v, d + 1);
        if (gold.relevant.get(v) === true) {
          found = d + 1;
          break;
        }
        queue.push(v);
      }
    }
    if (found > 0) seeds.push({ url, distance: found });
  }
  return seeds.sort((a, b) => a.distance - b.distance || (a.url < b.url ? -1 : 1));
}

/** One configuration of the sweep. */
export interface SweepConfig {
  label: string;
  mode: CrawlMode;
  overrides?: Partial<CrawlOptions>;
}

/**
 * The six modes (the default with the depth budget D = 3), strict filtering, the focused crawler without the
 * budget (the default before it), the deep tunnel and the depth budget at 2, 4, 5 (ANALYSIS.md).
 */
export const SWEEP_CONFIGS: readonly SweepConfig[] = Object.freeze([
  { label: 'focused (default)', mode: 'focused' },
  { label: 'bfs', mode: 'bfs' },
  { label: 'static', mode: 'static' },
  { label: 'one-step', mode: 'one-step' },
  { label: 'best-first', mode: 'best-first' },
  { label: 'shark', mode: 'shark' },
  { label: 'focused, strict (tunnel off)', mode: 'focused', overrides: { tunnel: false } },
  { label: 'focused, no depth budget (maxDepth 8: the default before)', mode: 'focused', overrides: { depthBudget: 0, maxDepth: 8 } },
  { label: 'focused, deep tunnel (no depth budget, maxDepth 1000, linkYield, tunnelLookahead 1)', mode: 'focused', overrides: { depthBudget: 0, linkYield: true, tunnelLookahead: 1 } },
  { label: 'focused, depth budget 2', mode: 'focused', overrides: { depthBudget: 2 } },
  { label: 'focused, depth budget 4', mode: 'focused', overrides: { depthBudget: 4 } },
  { label: 'focused, depth budget 5', mode: 'focused', overrides: { depthBudget: 5 } },
] as SweepConfig[]);

export interface SweepRow {
  label: string;
  seeds: number;
  /** Seeds from which at least one relevant page was fetched. */
  reached: number;
  fetched: number;
  relevant: number;
  /** Fetches before the first relevant page, per reached seed (1 = the first fetch after the seed). */
  firstRelevant: number[];
  /** Harvest rate of each seed's crawl. */
  harvests: number[];
  /** Crawls that ended with their budget spent. */
  budgetSpent: number;
}

/** Runs every configuration from every seed (concurrency 1: the deterministic order). */
export async function runSeedSweep(a: {
  seeds: readonly SweepSeed[];
  gold: Gold;
  via: string;
  work: string;
  maxPages: number;
  resources: (o: Readonly<CrawlOptions>) => CrawlResources;
  say: (m: string) => void;
}): Promise<SweepRow[]> {
  const rows: SweepRow[] = [];
  for (const [ci, c] of SWEEP_CONFIGS.entries()) {
    const row: SweepRow = { label: c.label, seeds: a.seeds.length, reached: 0, fetched: 0, relevant: 0, firstRelevant: [], harvests: [], budgetSpent: 0 };
    for (const [si, seed] of a.seeds.entries()) {
      const o = resolveCrawlOptions({ mode: c.mode, maxPages: a.maxPages, concurrency: 1, ...c.overrides });
      const out = join(a.work, `sweep-${ci}-${si}`);
      const s = await crawl({ seeds: [seed.url], out, via: a.via }, o, a.resources(o));
      const lines = readFileSync(join(out, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as IndexLine);
      const rel = lines.map((l) => a.gold.relevant.get(l.finalUrl ?? l.url) === true || a.gold.relevant.get(l.url) === true);
      const first = rel.indexOf(true);
      row.fetched += lines.length;
      row.relevant += rel.filter(Boolean).length;
      row.harvests.push(rel.filter(Boolean).length / Math.max(1, lines.length));
      if (first >= 0) {
        row.reached++;
        row.firstRelevant.push(first);
      }
      if (s.stoppedBy === 'budget') row.budgetSpent++;
    }
    a.say(`crawl eval: sweep ${c.label}: ${row.reached}/${row.seeds} seeds reach a film page, harvest ${((100 * row.relevant) / Math.max(1, row.fetched)).toFixed(1)}%`);
    rows.push(row);
  }
  return rows;
}

const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The sweep's section of results.md. */
export function sweepTable(seeds: readonly SweepSeed[], rows: readonly SweepRow[], maxPages: number): string {
  const pct = (x: number) => (100 * x).toFixed(1);
  const hr = (r: SweepRow) => r.relevant / Math.max(1, r.fetched);
  const def = rows.find((r) => r.label === 'focused (default)');
  const bfs = rows.find((r) => r.label === 'bfs');
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  return [
    `## Off-topic seed sweep (${seeds.length} seeds, ${maxPages}-page budget each, concurrency 1)`,
    '',
    `Seeds: every real off-topic page of the test web from which a relevant page can be reached at all (links as the crawler parses them, navigation links included). Fewest links to a film page: ${[...new Set(seeds.map((s) => s.distance))].map((d) => `${d} (${seeds.filter((s) => s.distance === d).length} seeds)`).join(', ')}. Harvest = relevant fetched / fetched over all the crawls of the row (a crawl that stops early weighs little); mean harvest = the mean of the seeds' harvest rates; "first film page" = fetches before it, median over the seeds that reach one.`,
    '',
    '| configuration | seeds reaching a film page | harvest | mean harvest | first film page (median fetch) | budget spent |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.label} | ${r.reached} / ${r.seeds} | ${pct(hr(r))} | ${pct(r.harvests.reduce((x, y) => x + y, 0) / Math.max(1, r.harvests.length))} | ${r.firstRelevant.length ? median(r.firstRelevant) : '—'} | ${r.budgetSpent} / ${r.seeds} |`),
    '',
    ...(def && bfs
      ? [
          `Targets: default reaches film pages from more seeds than bfs: ${def.reached} vs ${bfs.reached} (${verdict(def.reached > bfs.reached)}); from at least 10: ${def.reached} (${verdict(def.reached >= 10)}); higher harvest than bfs: ${pct(hr(def))} vs ${pct(hr(bfs))} (${verdict(hr(def) > hr(bfs))}).`,
          '',
        ]
      : []),
  ].join('\n');
}
