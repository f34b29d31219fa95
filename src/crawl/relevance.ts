/**
 * Page relevance (seed 003 §3, seed 004 §2.2), the two-step score (seed 004 §2.3) and the link prior
 * (Shark-Search form, crawler-spec.md §3.4). Each formula is one named function whose header cites its
 * source; the reconstructions ([RECON] in ../shared/docs/crawler-spec.md) are marked as such.
 */
import type { BlockType, CrawlOptions } from './options.js';
import type { Block, ParsedPage } from './page.js';
import type { TopicLibrary } from './topic.js';

/** IDF lookup of a term (1 for every term when the IDF is off). */
export type Idf = (term: string) => number;

/**
 * Block impact and weight, seed 003 Definitions 1–2, eqs. (3)–(5) [RECON, crawler-spec.md §3.1]:
 * impact0 = |KeyTagSet(b)| / max_b' |KeyTagSet(b')|; impact = λ·impact0 + (1−λ)·impact1[type];
 * impact*(b) = impact(b) + ρ·max over enclosed blocks of impact* (transitivity, bottom-up);
 * weight(b) = impact*(b) / Σ impact*.
 */
export function blockWeights(blocks: readonly Block[], o: Pick<CrawlOptions, 'lambda' | 'rho' | 'impact1'>): Float64Array {
  const n = blocks.length;
  let maxKey = 0;
  for (const b of blocks) if (b.keyTags > maxKey) maxKey = b.keyTags;
  const star = new Float64Array(n);
  const childMax = new Float64Array(n);
  // children come after their parent in document order, so a reverse pass is bottom-up
  for (let i = n - 1; i >= 0; i--) {
    const b = blocks[i]!;
    const impact0 = maxKey > 0 ? b.keyTags / maxKey : 0;
    star[i] = o.lambda * impact0 + (1 - o.lambda) * o.impact1[b.type] + o.rho * childMax[i]!;
    if (b.parent >= 0 && star[i]! > childMax[b.parent]!) childMax[b.parent] = star[i]!;
  }
  let sum = 0;
  for (let i = 0; i < n; i++) sum += star[i]!;
  if (sum > 0) for (let i = 0; i < n; i++) star[i]! /= sum;
  return star;
}

/**
 * Cosine of a sparse page vector with the topic vector q, seed 003 eq. (15) / seed 004 eq. (2):
 * sim = Σ_t w(t)·q(t) / (‖w‖·‖q‖).
 */
export function cosine(vec: ReadonlyMap<string, number>, lib: TopicLibrary): number {
  let dot = 0;
  let norm = 0;
  for (const [t, w] of vec) {
    norm += w * w;
    const q = lib.weight(t);
    if (q) dot += w * q;
  }
  if (dot === 0 || norm === 0) return 0;
  return dot / (Math.sqrt(norm) * lib.qNorm);
}

/**
 * The weighted term vector of a page, seed 003 eqs. (12)–(14) [RECON]: tf*(t) = Σ_blocks weight(l)·tf(t,l)
 * (f_l(t) = the block weight, eq. 14), w(t) = tf*(t)·idf(t) (eq. 12). Cosine normalisation (eq. 13) is
 * done by {@link cosine}.
 */
export function weightedVector(blocks: readonly Block[], weights: Float64Array, lib: TopicLibrary, idf: Idf): Map<string, number> {
  const vec = new Map<string, number>();
  for (let i = 0; i < blocks.length; i++) {
    const w = weights[i]!;
    if (w === 0 || blocks[i]!.text === '') continue;
    lib.tokenize(blocks[i]!.text, (t) => vec.set(t, (vec.get(t) ?? 0) + w));
  }
  for (const [t, v] of vec) vec.set(t, v * idf(t));
  return vec;
}

/** Seed 003 eq. (7) [RECON, weights lost]: R(p) = Σ_type a_type · sim(p_type, T). */
export function blockSumRelevance(blocks: readonly Block[], lib: TopicLibrary, idf: Idf, a: Readonly<Record<BlockType, number>>): number {
  const byType = new Map<BlockType, Map<string, number>>();
  for (const b of blocks) {
    if (!b.text) continue;
    let v = byType.get(b.type);
    if (!v) byType.set(b.type, (v = new Map()));
    const vec = v;
    lib.tokenize(b.text, (t) => vec.set(t, (vec.get(t) ?? 0) + 1));
  }
  let r = 0;
  let sumA = 0;
  for (const [type, weight] of Object.entries(a) as [BlockType, number][]) sumA += weight;
  for (const [type, v] of byType) {
    for (const [t, x] of v) v.set(t, x * idf(t));
    r += (a[type] / (sumA || 1)) * cosine(v, lib);
  }
  return r;
}

/**
 * Seed 004 eq. (1)–(2) [READ form, weights lost]: tf(t) = Σ_positions w_i·f_i (title, anchor, heading,
 * body), then the cosine with the topic vector. The "traditional VSM" page relevance.
 */
export function plainCosineRelevance(page: ParsedPage, lib: TopicLibrary, w: Readonly<{ title: number; anchor: number; heading: number; body: number }>): number {
  const vec = new Map<string, number>();
  const add = (text: string, weight: number) => lib.tokenize(text, (t) => vec.set(t, (vec.get(t) ?? 0) + weight));
  for (const b of page.blocks) {
    if (!b.text) continue;
    add(b.text, b.type === 'title' ? w.title : b.type === 'heading' ? w.heading : w.body);
  }
  for (const l of page.links) if (l.anchor) add(l.anchor, w.anchor - w.body);
  return cosine(vec, lib);
}

/** Page relevance sim(p, T) under the option `pageRelevance`. */
export function pageRelevance(page: ParsedPage, lib: TopicLibrary, idf: Idf, o: CrawlOptions): number {
  switch (o.pageRelevance) {
    case 'plainCosine':
      return plainCosineRelevance(page, lib, o.positionWeights);
    case 'blockSum':
      return blockSumRelevance(page.blocks, lib, idf, o.blockTypeWeights);
    default:
      return cosine(weightedVector(page.blocks, blockWeights(page.blocks, o), lib, idf), lib);
  }
}

/**
 * Seed 004 §2.3, eqs. (3)/(4) (reproduces the paper's worked example 0.7·0.9 + 0.3·(0.9+0.8+0.7)/3 = 0.87):
 * score(u) = α·sim(u) + (1−α)·mean_{v∈C(u)} sim(v), where C(u) drops the children below τ_low (case a);
 * when no child is left or none reaches τ_high (= η), score(u) = sim(u) (case b).
 */
export function twoStepScore(sim: number, children: readonly number[], alpha: number, tauLow: number, tauHigh: number): number {
  let sum = 0;
  let n = 0;
  let max = 0;
  for (const s of children) {
    if (s < tauLow) continue;
    sum += s;
    n++;
    if (s > max) max = s;
  }
  if (n === 0 || max < tauHigh) return sim;
  return alpha * sim + (1 - alpha) * (sum / n);
}

/**
 * Link prior before fetching, Shark-Search form [HER98, UNVERIFIED-MEMORY; crawler-spec.md §3.4]:
 * prior = γ·inherited + (1−γ)·(β·anchor + (1−β)·context), context = 1 when the anchor matches.
 * Used to choose which children to fetch ahead and in which order.
 */
export function linkPrior(inherited: number, anchorSim: number, contextSim: number, beta: number, gamma: number): number {
  const context = anchorSim > 0 ? 1 : contextSim;
  return gamma * inherited + (1 - gamma) * (beta * anchorSim + (1 - beta) * context);
}

/**
 * Shark-Search's inherited score [HER98, UNVERIFIED-MEMORY; crawler-spec.md §3.4]: the value a page
 * passes to its children: δ·sim for a relevant page (sim ≥ η), else δ·inherited (decayed per hop).
 */
export function inheritedScore(sim: number, inherited: number, o: Pick<CrawlOptions, 'threshold' | 'delta'>): number {
  return sim >= o.threshold ? o.delta * sim : o.delta * inherited;
}

/**
 * Depth budget of a fetched page (Fish-Search's depth potential, Shark-Search's depth decay [HER98,
 * UNVERIFIED-MEMORY]; option depthBudget = D): D for a page at or above τ_low, else its parent's budget
 * minus one (a seed: D − 1), never below 0. A page at 0 keeps its content links in the reserve, a tier
 * below the tunnel ({@link reserveKey}; scheduler.ts pushNew).
 */
export function depthBudgetOf(sim: number, parentBudget: number | undefined, o: Pick<CrawlOptions, 'depthBudget' | 'tauLow'>): number {
  if (sim >= o.tauLow) return o.depthBudget;
  return Math.max(0, (parentBudget ?? o.depthBudget) - 1);
}

/**
 * Frontier key of a tunnel entry (the links the focused order leaves out, crawler.ts header): in (−1, 0),
 * below every ordinary key, so the tunnel is taken only when nothing else is waiting; among tunnel
 * entries, δ^hops·(1 + prior)/2: each page below η on the way from the last relevant page halves the
 * priority (δ = 0.5, Shark-Search's decay per irrelevant hop), the best link prior breaks the rest.
 */
export function tunnelKey(hops: number, prior: number, delta: number): number {
  return -1 + delta ** hops * ((1 + prior) / 2);
}

/**
 * Frontier key of a reserve entry (option depthBudget): the content links of a page whose depth budget
 * is spent, a tier below the tunnel: {@link tunnelKey} − 1, in (−2, −1), so they are taken only when
 * neither an ordinary nor a tunnel entry waits (Fish-Search drops them; kept here so that the crawl
 * stops only on its budget, its depth limit or an empty reachable web).
 */
export function reserveKey(hops: number, prior: number, delta: number): number {
  return tunnelKey(hops, prior, delta) - 1;
}

/** Relevance of a short text (anchor, context) against the library: plain cosine of its tokens. */
export function textRelevance(text: string, lib: TopicLibrary): number {
  if (!text) return 0;
  const vec = new Map<string, number>();
  lib.tokenize(text, (t) => vec.set(t, (vec.get(t) ?? 0) + 1));
  return cosine(vec, lib);
}
