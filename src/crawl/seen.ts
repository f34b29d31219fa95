/**
 * The crawler's seen-set (URLs already fetched or scheduled, as {@link urlKey} numbers): exact, or a
 * Bloom filter of fixed size (option `seenSet`; the memory figures are in eval/crawl/ANALYSIS.md).
 */
import bloomFilters from 'bloom-filters';
import type { CrawlOptions } from './options.js';

export interface SeenSet {
  has(key: number): boolean;
  add(key: number): void;
}

/** An exact set, or a Bloom filter sized for `bloomCapacity` keys at `bloomFpRate` (deterministic: the package's fixed default seed). */
export function createSeenSet(o: Pick<CrawlOptions, 'seenSet' | 'bloomCapacity' | 'bloomFpRate'>): SeenSet {
  if (o.seenSet === 'exact') return new Set<number>();
  const f = bloomFilters.BloomFilter.create(o.bloomCapacity, o.bloomFpRate);
  return {
    has: (key) => f.has(key.toString(36)),
    add: (key) => f.add(key.toString(36)),
  };
}
