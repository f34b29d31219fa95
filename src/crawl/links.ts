/**
 * Link extraction (crawler-spec.md §3.4): the candidate children of a fetched page, as a pure function of
 * (parsed page, its URL, its relevance, the inherited Shark-Search value, the topic library, options).
 * Links are resolved against `<base href>` or the page URL, normalised ({@link normalizeUrl}),
 * de-duplicated, noise links in navigation blocks set apart (`dropNavLinks`: kept for the tunnel, or
 * dropped with `tunnel: false`), scored by the Shark-Search
 * link prior ({@link linkPrior}) and ordered best prior first (document order for bfs and best-first);
 * at most `maxOutLinks` are kept.
 */
import type { CrawlOptions } from './options.js';
import type { ParsedPage } from './page.js';
import { inheritedScore, linkPrior, textRelevance } from './relevance.js';
import type { TopicLibrary } from './topic.js';
import { normalizeUrl } from './url.js';

/** A page's candidate children, best first, with their link priors (same order); `nav`: the navigation links the options leave out, kept for the tunnel. */
export interface ChildLinks {
  links: string[];
  priors: number[];
  nav?: string[];
  navPriors?: number[];
}

export type LinkOptions = Pick<CrawlOptions, 'frontier' | 'linkPrior' | 'threshold' | 'delta' | 'beta' | 'gamma' | 'dropNavLinks' | 'tunnel' | 'maxOutLinks'>;

/** bfs and best-first take a page's children in document order, all of them (no link prior). */
export const documentOrder = (o: Pick<CrawlOptions, 'frontier' | 'linkPrior'>): boolean => o.frontier === 'fifo' || o.linkPrior === 'none';

/** Rounds a score for the journal and the index (6 decimals). */
export const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/**
 * Candidate children of `page` fetched at `base` (see the module header). `sim` is the page's relevance,
 * `inherited` the value the page inherited: its children inherit {@link inheritedScore}.
 */
export function childLinks(page: ParsedPage, base: string, sim: number, inherited: number, lib: TopicLibrary, o: LinkOptions): ChildLinks {
  const inh = inheritedScore(sim, inherited, o);
  const byDocument = documentOrder(o);
  const seenHere = new Set<string>();
  const seenNav = new Set<string>();
  const cands: { url: string; prior: number; i: number }[] = [];
  const navCands: { url: string; prior: number; i: number }[] = [];
  const keepNav = o.dropNavLinks && o.tunnel && o.frontier !== 'fifo';
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
    const nav = o.dropNavLinks && l.blockType === 'navigation';
    if (nav && !keepNav) return;
    const n = normalizeUrl(l.href, baseUrl);
    // content links and navigation links are de-duplicated apart (a link in both is followed as content)
    const seen = nav ? seenNav : seenHere;
    if ('error' in n || seen.has(n.url) || n.url === base) return;
    seen.add(n.url);
    const to = nav ? navCands : cands;
    if (byDocument) {
      to.push({ url: n.url, prior: 0, i });
      return;
    }
    const anchor = textRelevance(l.anchor, lib);
    const prior = linkPrior(inh, anchor, anchor > 0 ? 1 : simOfContext(l.context), o.beta, o.gamma);
    to.push({ url: n.url, prior, i });
  });
  const order = (a: { prior: number; i: number }, b: { prior: number; i: number }) => b.prior - a.prior || a.i - b.i;
  if (!byDocument) {
    cands.sort(order);
    navCands.sort(order);
  }
  const kept = cands.slice(0, o.maxOutLinks);
  // a navigation link that is also a content link is followed as one
  const keptSet = new Set(kept.map((c) => c.url));
  const nav = navCands.filter((c) => !keptSet.has(c.url)).slice(0, o.maxOutLinks);
  return { links: kept.map((c) => c.url), priors: kept.map((c) => round6(c.prior)), ...(nav.length ? { nav: nav.map((c) => c.url), navPriors: nav.map((c) => round6(c.prior)) } : {}) };
}
