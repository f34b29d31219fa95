/**
 * 003's dynamic topic library (DTFL, §2.3), offline stand-in for its search-engine expansion: the main
 * text of relevant pages is buffered, and every `updateEvery` relevant pages the keywords our extractor
 * finds in it join the library (Han-only words, not in the library, IDF ≥ dtflMinIdf). 003's user review
 * fe(UT) is replaced by a contrast check: a term seen on the recent pages judged not relevant is
 * boilerplate or off-topic (法律声明, 登录…), not topic vocabulary.
 */
import type { CrawlResources } from './resources.js';
import type { CrawlOptions } from './options.js';
import type { TopicLibrary } from './topic.js';

/** Snippets of the latest pages judged not relevant kept as the contrast set. */
const OFF_KEEP = 100;

type FeedbackOptions = Pick<CrawlOptions, 'dynamicLibrary' | 'updateEvery' | 'topN' | 'dtflWeight' | 'dtflMax' | 'dtflMinIdf' | 'idfSource' | 'topicWeights'>;

export class LibraryFeedback {
  private readonly onTopic: string[] = [];
  private readonly offTopic: string[] = [];

  constructor(
    private readonly lib: TopicLibrary,
    private readonly o: Readonly<FeedbackOptions>,
    private readonly res: Pick<CrawlResources, 'keywords' | 'idf'>,
  ) {}

  get on(): boolean {
    return this.o.dynamicLibrary === 'feedback';
  }

  /** A page's text joins the buffer of its side (relevant pages: the DTFL source; others: the contrast set). */
  observe(buf: string, relevant: boolean): void {
    (relevant ? this.onTopic : this.offTopic).push(buf);
  }

  /** Whether the `relevantSoFar + 1`-th relevant page triggers an update. */
  due(relevantSoFar: number): boolean {
    return this.on && (relevantSoFar + 1) % this.o.updateEvery === 0;
  }

  /** A library update from the buffered relevant text; returns the terms added. */
  update(): string[] {
    const text = this.onTopic.join('\n').slice(0, 60000);
    this.onTopic.length = 0;
    if (!this.res.keywords || text === '') return [];
    const off = this.offTopic.join('\n');
    const cands = this.res
      .keywords(text, this.o.topN * 3)
      .filter((w) => w.length >= 2 && /^\p{Script=Han}+$/u.test(w) && !this.lib.has(w) && (this.o.idfSource === 'none' || this.res.idf(w) >= this.o.dtflMinIdf) && !off.includes(w));
    return this.lib.extend(cands.slice(0, this.o.topN), this.weight, this.o.dtflMax);
  }

  /** A journalled update replayed: the same terms added, the buffer emptied. */
  replay(terms: readonly string[]): void {
    this.lib.extend(terms, this.weight, this.o.dtflMax);
    this.onTopic.length = 0;
  }

  /** Keeps the contrast set at its size. */
  trim(): void {
    if (this.offTopic.length > OFF_KEEP) this.offTopic.splice(0, this.offTopic.length - OFF_KEEP);
  }

  private get weight(): number {
    return this.o.dtflWeight * this.o.topicWeights.special;
  }
}
