/**
 * IDF prior (an extension beyond 王芳 等 2022; option group `prior`, off in every paper preset).
 *
 * Graph rankings favour frequent generic words (传统, 中国, 文化, 时代 …) that TF-IDF pushes down, and on
 * film-dev nodejieba's TF-IDF beats plain TextRank. With `prior.idf: 'multiply'` the final score of each
 * candidate is multiplied by its inverse document frequency before the top K are taken:
 *
 *   score'(v_i) = S(v_i) · idf(v_i)
 *
 * The IDF table is nodejieba's bundled `idf.utf8` (the cppjieba `KeywordExtractor` table), read at run
 * time from the installed package (never copied into this repository). A word absent from the table
 * (KG entity names such as 百鸟朝凤, HMM-found names) gets the mean IDF of the table, which is what
 * cppjieba's KeywordExtractor does (`idfAverage_`). Measured on the paper's full model (eval/results/
 * film-dev/ANALYSIS.md §4): +0.048 [+0.032, +0.064] F1@5 on film-dev and +0.016 [+0.011, +0.021] on
 * csl-dev (paired 95% bootstrap intervals); it is part of the preset `filmkw`.
 */
import { readFileSync } from 'node:fs';
import { FilmkwError } from '../errors.js';
import { nodejiebaDefaultFiles } from './segmenters/nodejieba.js';

/** The IDF prior (group `prior` of the pipeline options). */
export interface PriorOptions {
  /**
   * `'off'` (the paper: graph scores only) or `'multiply'`: final score × idf(word) before the top K
   * (module header). Scores in the output are then the products.
   * @default 'off'
   */
  idf: 'off' | 'multiply';
}

/** An IDF table: word → idf, with the value used for words that are not in it. */
export interface IdfTable {
  /** Where the table came from (file name only, for `options`/results; never a machine path). */
  readonly source: string;
  /** Number of words in the table. */
  readonly size: number;
  /** IDF of words absent from the table (the table's mean). */
  readonly unknown: number;
  /** IDF of a word (the table's value, else {@link unknown}). */
  weight(word: string): number;
}

/**
 * Parse an IDF file: one `word idf` per line (space or tab separated); blank lines are skipped. A line
 * with a missing or non-numeric IDF is an INPUT error naming file:line.
 * @param name the file's display name in errors and in {@link IdfTable.source}
 */
export function parseIdf(content: string, name: string): IdfTable {
  const map = new Map<string, number>();
  let sum = 0;
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const cut = line.search(/\s/u);
    const word = cut < 0 ? line : line.slice(0, cut);
    const value = cut < 0 ? NaN : Number(line.slice(cut + 1).trim());
    if (!Number.isFinite(value)) throw new FilmkwError('INPUT', `idf: ${name}:${i + 1}: idf: expected "word idf", got ${JSON.stringify(line.slice(0, 60))}`);
    if (!map.has(word)) sum += value;
    map.set(word, value);
  }
  if (map.size === 0) throw new FilmkwError('INPUT', `idf: ${name}: no entries`);
  const unknown = sum / map.size;
  return Object.freeze({
    source: name,
    size: map.size,
    unknown,
    weight: (word: string) => map.get(word) ?? unknown,
  });
}

let bundled: IdfTable | undefined;

/** nodejieba's bundled idf.utf8, loaded once per process. */
export function loadBundledIdf(): IdfTable {
  if (bundled) return bundled;
  const path = nodejiebaDefaultFiles().idfDict;
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    throw new FilmkwError('INPUT', `idf: cannot read nodejieba's idf.utf8 (${(err as Error).message})`, { cause: err });
  }
  bundled = parseIdf(content, 'nodejieba idf.utf8');
  return bundled;
}
