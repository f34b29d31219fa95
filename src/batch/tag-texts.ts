/**
 * The tagging of a batch of documents by one extractor, the same in this thread (engine.ts
 * `InlineEngine`) and in a pool worker (worker.ts): per document the keywords as a JSON array string
 * (format.ts) or an error message. engine.ts re-exports its types.
 */
import type { Extractor } from '../pipeline/api.js';
import { keywordsJson } from './format.js';

/**
 * Result for one text: keywords as JSON (with the film value the KG did not know, when the record named
 * one: the run reports those once), or why extraction failed.
 */
export type TagResult = { json: string; unknownFilm?: string } | { error: string };

/** One document to tag: its text and, when the record has them, its film and title (the document context). */
export interface TagDocument {
  readonly text: string;
  readonly film?: string;
  readonly title?: string;
}

/** A document, or a bare text (no context). */
export type TagInput = string | TagDocument;

/** Per-call extraction options. */
export interface TagCallOptions {
  topK?: number;
  explain: boolean;
}

/** Run an extractor over documents, catching per-document failures. */
export function tagTexts(extractor: Extractor, docs: readonly TagInput[], call: TagCallOptions): TagResult[] {
  const out: TagResult[] = new Array(docs.length);
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i];
    const text = typeof d === 'string' ? d : d.text;
    const film = typeof d === 'string' ? undefined : d.film;
    const title = typeof d === 'string' ? undefined : d.title;
    try {
      const json = keywordsJson(extractor.extract(text, { topK: call.topK, explain: call.explain, film, title }), call.explain);
      out[i] = film !== undefined && extractor.resolveFilm(film) === null ? { json, unknownFilm: film } : { json };
    } catch (err) {
      out[i] = { error: `extract: ${(err as Error)?.message ?? String(err)}` };
    }
  }
  return out;
}
