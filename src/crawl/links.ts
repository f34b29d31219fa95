/**
 * Link extraction (crawler-spec.md §3.4): the candidate children of a fetched page, as a pure function of
 * (parsed page, its URL, its relevance, the inherited Shark-Search value, the topic library, options).
 * Links are resolved against `<base href>` or the page URL, normalised ({@link normalizeUrl}),
 * de-duplicated, noise links in navigation blocks dropped (`dropNavLinks`), scored by the Shark-Search
 * link prior ({@link linkPrior}) and ordered best prior first (document order for bfs and best-first);
 * at most `maxOutLinks` are kept.
 */
import type { CrawlOptions } from './options.js';
import type { ParsedPage } from './page.js';
import { linkPrior, textRelevance } from './relevance.js';
import type { TopicLibrary } from './topic.js';
import { normalizeUrl } from './url.js';

/** A page's candidate children, best first, with their link priors (same order). */
export interface ChildLinks {
  links: string[];
  priors: number[];
}

export type LinkOptions = Pick<CrawlOptions, 'frontier' | 'linkPrior' | 'threshold' | 'delta' | 'beta' | 'gamma' | 'dropNavLinks' | 'maxOutLinks'>;

/** bfs and best-first take a page's children in document order, all of them (no link prior). */
export const documentOrder = (o: Pick<CrawlOptions, 'frontier' | 'linkPrior'>): boolean => o.frontier === 'fifo' || o.linkPrior === 'none';

/** Rounds a score for the journal and the index (6 decimals). */
export const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/**
 * Candidate children of `page` fetched at `base` (see the module header). `sim` is the page's relevance,
 * `inherited` its parent's inherited value: the children inherit δ·sim when the page is relevant, else
 * δ·inherited (Shark-Search's decay).
 */
export function childLinks(page: ParsedPage, base: string, sim: number, inherited: number, lib: TopicLibrary, o: LinkOptions): ChildLinks {
  const inh = sim >= o.threshold ? o.delta * sim : o.delta * inherited;
  const byDocument = documentOrder(o);
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
    if (byDocument) {
      cands.push({ url: n.url, prior: 0, i });
      return;
    }
    const anchor = textRelevance(l.anchor, lib);
    const prior = linkPrior(inh, anchor, anchor > 0 ? 1 : simOfContext(l.context), o.beta, o.gamma);
    cands.push({ url: n.url, prior, i });
  });
  if (!byDocument) cands.sort((a, b) => b.prior - a.prior || a.i - b.i);
  const kept = cands.slice(0, o.maxOutLinks);
  return { links: kept.map((c) => c.url), priors: kept.map((c) => round6(c.prior)) };
}
