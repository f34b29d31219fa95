/**
 * Stop-word lists for candidate selection (spec §1.2 step 2; paper §2.1 "then stop-word filtering").
 *
 * - `'nodejieba'`: nodejieba's bundled stop_words.utf8 (cppjieba; 1,534 lines: punctuation, digits,
 *   Chinese function words, English function words), read from node_modules at runtime — the same
 *   list `nodejieba.textRankExtract` uses, not copied into this repository.
 * - `'film'`: the team's additions for film texts, dictionaries/stopwords-film.txt (generic film
 *   vocabulary, evaluative and cognition words, light verbs; see the file's header for the basis).
 *
 * Lines are trimmed; blank lines and (in our own files) lines starting with `#` are ignored.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inputError, usageError } from '../errors.js';
import { nodejiebaDefaultFiles } from '../lexicon/base.js';

export const STOPWORD_LISTS = ['nodejieba', 'film'] as const;
export type StopwordList = (typeof STOPWORD_LISTS)[number];

export interface LoadStopwordsOptions {
  /** Built-in lists to include. @default ['nodejieba', 'film'] */
  lists?: readonly StopwordList[];
  /** Extra stop-word files (one word a line, `#` comments). A missing file is FilmkwError INPUT. */
  files?: readonly string[];
  /** Extra words. */
  words?: readonly string[];
}

export const DEFAULT_STOPWORD_LISTS: readonly StopwordList[] = Object.freeze(['nodejieba', 'film'] as StopwordList[]);

/** Path of the film list shipped with the package (dictionaries/stopwords-film.txt). */
export function filmStopwordsPath(): string {
  // src/pipeline/ and dist/pipeline/ are both two levels below the package root.
  return fileURLToPath(new URL('../../dictionaries/stopwords-film.txt', import.meta.url));
}

function readList(path: string, comments: boolean, what: string): string[] {
  if (!existsSync(path)) throw inputError(`stopwords: ${what} not found: ${path}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw inputError(`stopwords: cannot read ${what} ${path}: ${(err as Error).message}`, err);
  }
  const out: string[] = [];
  for (const raw of text.replace(/^\uFEFF/u, '').split('\n')) {
    const w = raw.trim();
    if (w === '' || (comments && w.startsWith('#'))) continue;
    out.push(w);
  }
  return out;
}

/** The words of one built-in list (read from disk). */
export function builtinStopwords(list: StopwordList): readonly string[] {
  switch (list) {
    case 'nodejieba':
      // No comment syntax in cppjieba's list: "#" is itself a stop word there.
      return readList(nodejiebaDefaultFiles().stopWordDict, false, 'nodejieba stop-word list');
    case 'film':
      return readList(filmStopwordsPath(), true, 'film stop-word list');
    default:
      throw usageError(`stopwords: unknown list ${JSON.stringify(list)} (valid: ${STOPWORD_LISTS.join(', ')})`);
  }
}

/** Load and merge stop-word lists into one read-only set (read on each call: load once, pass it on). */
export function loadStopwords(opts: LoadStopwordsOptions = {}): ReadonlySet<string> {
  const lists = opts.lists ?? DEFAULT_STOPWORD_LISTS;
  for (const l of lists) {
    if (!(STOPWORD_LISTS as readonly string[]).includes(l)) {
      throw usageError(`stopwords: unknown list ${JSON.stringify(l)} (valid: ${STOPWORD_LISTS.join(', ')})`);
    }
  }
  const set = new Set<string>();
  for (const l of lists) for (const w of builtinStopwords(l)) set.add(w);
  for (const f of opts.files ?? []) for (const w of readList(f, true, 'stop-word file')) set.add(w);
  for (const w of opts.words ?? []) if (w.trim() !== '') set.add(w.trim());
  return new FrozenSet(set);
}

/** A Set whose mutators throw, so a set shared by extractors cannot be changed by a caller. */
class FrozenSet<T> extends Set<T> {
  #sealed = false;
  constructor(items: Iterable<T>) {
    super();
    for (const i of items) super.add(i);
    this.#sealed = true;
  }
  override add(v: T): this {
    if (this.#sealed) throw new TypeError('stopwords: the stop-word set is read-only');
    return super.add(v);
  }
  override delete(_: T): boolean {
    throw new TypeError('stopwords: the stop-word set is read-only');
  }
  override clear(): void {
    throw new TypeError('stopwords: the stop-word set is read-only');
  }
}
