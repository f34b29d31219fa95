/**
 * What the crawl evaluation (eval.ts) and the seed sweep (sweep.ts) read: the test web's gold standard
 * (which URLs are relevant, which pages are real) and a line of a crawl's index.jsonl.
 */

/** The gold standard of a test web: relevance by URL, and the real (non-generated) pages. */
export interface Gold {
  relevant: Map<string, boolean>;
  real: Set<string>;
}

/** One line of a crawl's index.jsonl, as far as the evaluation reads it. */
export interface IndexLine {
  url: string;
  relevant: boolean;
  finalUrl?: string;
}
