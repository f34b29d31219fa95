/**
 * The crawler's resources from the KG: IDF lookup (nodejieba's bundled table, memoised), the
 * common-word test for KG names (a name the table knows with an IDF below minNameIdf is a common word)
 * and the DTFL keyword source (our extractor, src/pipeline). Kept apart from crawler.ts so that the crawl
 * itself stays a function of (seeds, options, resources).
 */
import type { KgView } from '../kg/model.js';
import { loadBundledIdf } from '../pipeline/idf.js';
import { createExtractor } from '../pipeline/extract.js';
import type { CrawlOptions } from './options.js';
import type { Idf } from './relevance.js';

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

const MEMO_MAX = 500_000;

export function crawlResources(kg: KgView | null, o: Pick<CrawlOptions, 'idfSource' | 'minNameIdf' | 'dynamicLibrary'>): CrawlResources {
  const table = loadBundledIdf();
  const memo = new Map<string, number>();
  const idf =
    o.idfSource === 'none'
      ? () => 1
      : (t: string): number => {
          // concept dimensions (@Movie, @Person, @Genre) are not words: the IDF of an unknown word
          if (t.charCodeAt(0) === 64) return table.unknown;
          let v = memo.get(t);
          if (v === undefined) {
            if (memo.size >= MEMO_MAX) memo.clear();
            v = table.weight(t);
            memo.set(t, v);
          }
          return v;
        };
  const res: CrawlResources = { kg, idf, commonWord: (name) => table.weight(name) < o.minNameIdf };
  if (o.dynamicLibrary === 'feedback') {
    let extractor: ReturnType<typeof createExtractor> | null = null;
    res.keywords = (text, topK) => {
      // Pinned to `filmkw`, not the default preset: the DTFL takes the top 20 words of a page (where the
      // re-ranker's top-5 gains do not matter), the crawl's figures in eval/crawl were measured with it, and
      // it is the faster of the two on the crawl's hot path.
      extractor ??= createExtractor(kg ? { kg, preset: 'filmkw' } : { preset: 'textrank' });
      return extractor.extract(text, { topK }).map((k) => k.word);
    };
  }
  return res;
}
