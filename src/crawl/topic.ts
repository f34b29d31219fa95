/**
 * The topic feature library of seed 003 (§2.1, §3.2; crawler-spec.md §3.2–3.3) for films, and the
 * tokenizer that maps page text onto it.
 *
 * - 主体 (Fb): KG entity names by kind. With 003's concept replacement ("用主题概念代替固定的关键词") every
 *   movie title or alias counts toward one concept dimension `@Movie`, every person name toward
 *   `@Person`, every genre toward `@Genre` (conceptLevel `kind`, the spec's default).
 * - 专用词汇 (Fs): a hand list of film vocabulary ({@link FILM_VOCABULARY}).
 * - 判定词 (Fv): page-type cues that decide a page is useful ({@link JUDGEMENT_WORDS}).
 * - DTFL: terms added during the crawl ({@link TopicLibrary.extend}). 003 expands its library with
 *   search-engine results (top-L pages for each term); offline we use the keywords our own extractor
 *   finds on pages judged relevant instead (relevance feedback: the offline stand-in, not 003's method).
 *
 * Tokens: longest match of library terms (first-character index), remaining CJK runs as character
 * bigrams and Latin words as words, so that the page vector has its full length for the cosine.
 */
import type { KgView, EntityKind } from '../kg/model.js';
import type { CrawlOptions } from './options.js';

/** 003 专用词汇 for films (crawler-spec.md §3.2 table). */
export const FILM_VOCABULARY: readonly string[] = Object.freeze([
  '电影', '影片', '导演', '主演', '编剧', '上映', '票房', '剧情', '影评', '预告片', '片长', '豆瓣评分', '演员', '影院',
  '电视剧', '纪录片', '动画片', '院线', '首映', '定档', '片方', '影帝', '影后', '金马奖', '奥斯卡', '戛纳', '电影节', '拍摄', '剧组', '观众',
]);

/** 003 判定词: cues that a page is a useful film page (crawler-spec.md §3.2 table). */
export const JUDGEMENT_WORDS: readonly string[] = Object.freeze([
  '剧情简介', '演职员', '又名', '上映日期', '评分', '短评', '影评', 'IMDb', '制片国家', '主演', '类型', '喜欢这部电影的人也喜欢', '看过', '想看',
]);

export type TermCategory = 'subject' | 'special' | 'judgement' | 'dynamic';

const KIND_PRIORITY: readonly EntityKind[] = ['Movie', 'Person', 'Genre'];
const isCjk = (c: number) => (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf);
const isWordChar = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** The library: term → dimension, dimension weights q (the topic vector), and a tokenizer. */
export class TopicLibrary {
  /** Surface term → dimension name (a concept such as `@Movie`, or the term itself). */
  private readonly terms = new Map<string, string>();
  /** First character → term lengths present, longest first. */
  private readonly lengths = new Map<string, number[]>();
  /** Topic vector q: dimension → weight. */
  readonly q = new Map<string, number>();
  private qNormCache = 0;
  readonly dynamic: string[] = [];
  readonly counts: Record<TermCategory, number> = { subject: 0, special: 0, judgement: 0, dynamic: 0 };

  /** Adds a surface form of a dimension; an existing surface keeps its first dimension (hand lists first). */
  private addSurface(surface: string, dim: string): boolean {
    if (surface.length < 2 || this.terms.has(surface)) return false;
    this.terms.set(surface, dim);
    const f = surface[0]!;
    const ls = this.lengths.get(f) ?? [];
    if (!ls.includes(surface.length)) {
      ls.push(surface.length);
      ls.sort((a, b) => b - a);
    }
    this.lengths.set(f, ls);
    return true;
  }

  private setDim(dim: string, weight: number): void {
    this.q.set(dim, Math.max(this.q.get(dim) ?? 0, weight));
    this.qNormCache = 0;
  }

  get qNorm(): number {
    if (this.qNormCache === 0) {
      let s = 0;
      for (const w of this.q.values()) s += w * w;
      this.qNormCache = Math.sqrt(s);
    }
    return this.qNormCache;
  }

  get size(): number {
    return this.terms.size;
  }

  has(term: string): boolean {
    return this.terms.has(term);
  }

  /**
   * The static library (003 STFL): hand lists + KG names by kind. `commonWord(name)` tells which KG
   * names are common words (kept out: a film called 英雄 would make every news page a film page).
   */
  static fromKg(kg: KgView | null, o: Pick<CrawlOptions, 'topicWeights' | 'minMovieName' | 'minPersonName'>, commonWord: (name: string) => boolean = () => false): TopicLibrary {
    const lib = new TopicLibrary();
    const w = o.topicWeights;
    for (const t of JUDGEMENT_WORDS) if (lib.addSurface(t, t)) (lib.setDim(t, w.judgement), lib.counts.judgement++);
    for (const t of FILM_VOCABULARY) if (lib.addSurface(t, t)) (lib.setDim(t, w.special), lib.counts.special++);
    if (kg) {
      const names = [...kg.names()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const { name, kinds } of names) {
        const kind = KIND_PRIORITY.find((k) => kinds.includes(k));
        if (!kind) continue;
        const cjk = [...name].some((ch) => isCjk(ch.codePointAt(0)!));
        const min = kind === 'Person' ? o.minPersonName : kind === 'Movie' ? o.minMovieName : 2;
        if (name.length < min || (!cjk && name.length < 6) || /\s/u.test(name)) continue;
        if (kind !== 'Genre' && commonWord(name)) continue;
        const dim = `@${kind}`;
        if (lib.addSurface(name, dim)) {
          lib.setDim(dim, kind === 'Genre' ? w.special : w.subject);
          lib.counts.subject++;
        }
      }
    }
    return lib;
  }

  /** 003 DTFL: adds new terms (weight `weight`), at most up to `max` dynamic terms; returns those added. */
  extend(terms: readonly string[], weight: number, max: number): string[] {
    const added: string[] = [];
    for (const t of terms) {
      if (this.dynamic.length >= max) break;
      if (this.addSurface(t, t)) {
        this.setDim(t, weight);
        this.dynamic.push(t);
        this.counts.dynamic++;
        added.push(t);
      }
    }
    return added;
  }

  /** Weight of a dimension in q (0 when it is not a topic dimension). */
  weight(dim: string): number {
    return this.q.get(dim) ?? 0;
  }

  /**
   * Tokens of a text: library terms (as their dimension) by longest match, else CJK bigrams and
   * lower-case Latin words. Calls `emit(token)` for each.
   */
  tokenize(text: string, emit: (token: string) => void): void {
    const n = text.length;
    let i = 0;
    let run = -1; // start of the current unmatched CJK run
    const flush = (end: number) => {
      if (run < 0) return;
      for (let k = run; k + 1 < end; k += 2) emit(text.slice(k, k + 2));
      if ((end - run) % 2 === 1 && end - run > 1) emit(text.slice(end - 2, end));
      run = -1;
    };
    while (i < n) {
      const c = text.charCodeAt(i);
      const ls = this.lengths.get(text[i]!);
      let matched = 0;
      if (ls) {
        for (const L of ls) {
          if (i + L > n) continue;
          const dim = this.terms.get(text.slice(i, i + L));
          if (dim !== undefined) {
            flush(i);
            emit(dim);
            matched = L;
            break;
          }
        }
      }
      if (matched) {
        i += matched;
        continue;
      }
      if (isCjk(c)) {
        if (run < 0) run = i;
        i++;
        continue;
      }
      flush(i);
      if (isWordChar(c)) {
        let j = i + 1;
        while (j < n && isWordChar(text.charCodeAt(j))) j++;
        if (j - i >= 2) emit(text.slice(i, j).toLowerCase());
        i = j;
        continue;
      }
      i++;
    }
    flush(n);
  }
}
