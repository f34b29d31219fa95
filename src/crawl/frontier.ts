/**
 * The crawl frontier: a binary max-heap with a deterministic order (higher key, then earlier discovery,
 * then URL; crawler-spec.md §3.5) and a size bound: beyond `max` entries the lowest-priority ones are
 * dropped (counted in `evicted`), so memory stays bounded whatever the size of the web. Entries keep
 * their children's URLs as one joined string (compact: one string per page, not one per link).
 */
export interface FrontierEntry {
  /** Discovery order (fetch sequence number). */
  seq: number;
  url: string;
  depth: number;
  /** Page relevance sim(p). */
  sim: number;
  /** Two-step score once the children have been fetched; absent before. */
  score?: number;
  /** Priority in the heap. */
  key: number;
  /** Candidate children, best first, as `url<TAB>prior` lines joined by '\n' (fetched on lookahead). */
  links: string;
  /** Inherited Shark-Search value for the children. */
  inherited: number;
  /** Children fetched on lookahead, waiting for this page's expansion. */
  kids?: FrontierEntry[];
  /** Pages below η on the way from the last page ≥ η (0 for a relevant page): the tunnel's decay. */
  hops?: number;
  /** What is left of the depth budget (option depthBudget; absent when it is off). */
  budget?: number;
  /** Navigation links of the page (`url<TAB>prior` lines), waiting for the tunnel entry made when the page enters the frontier. */
  navLinks?: string;
  /** A tunnel entry: links the focused order leaves out, below every other entry. */
  tunnel?: boolean;
  /** A reserve entry (a tunnel entry a tier lower): content links of a page whose depth budget is spent. */
  reserve?: boolean;
  /** Of this page's links fetched so far: how many, and how many were pages with links (its link yield). */
  tried?: number;
  fruitful?: number;
}

const before = (a: FrontierEntry, b: FrontierEntry): boolean => (a.key !== b.key ? a.key > b.key : a.seq !== b.seq ? a.seq < b.seq : a.url < b.url);

export class Frontier {
  private heap: FrontierEntry[] = [];
  evicted = 0;

  /** `onEvict` sees every dropped entry, best first (the crawler decides their pending saves). */
  constructor(
    private readonly max: number,
    private readonly onEvict?: (e: FrontierEntry) => void,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  push(e: FrontierEntry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
    if (h.length > this.max + Math.max(16, this.max >> 4)) this.shrink();
  }

  /** Key of the best entry, without removing it. */
  peekKey(): number | undefined {
    return this.heap[0]?.key;
  }

  pop(): FrontierEntry | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }

  /** Keeps the `max` best entries (a sorted array is a valid heap). */
  private shrink(): void {
    this.heap.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    this.evicted += this.heap.length - this.max;
    const dropped = this.onEvict ? this.heap.slice(this.max) : [];
    this.heap.length = this.max;
    for (const e of dropped) this.onEvict!(e);
  }
}
