/**
 * The taggers of both backends (native cut + word → tag cache) against the native tag of the same
 * dictionary configuration (test/pipeline/segment-tag-cache.test.ts) on every text of the shared corpora:
 * film-dev, film-train, the Douban reviews and the synopses (skipped with a message when absent).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readReviews, readSynopses, REVIEWS, SYNOPSES } from '../../../bench/tag.js';
import { assertSame, BACKENDS, tagger, userDictText } from '../../pipeline/tag-cache-check.js';

const shared = (rel: string) => fileURLToPath(new URL(`../../../../shared/data/${rel}`, import.meta.url));
const FILM_DEV = shared('annotated/film-dev.jsonl');
const FILM_TRAIN = shared('annotated/film-train.jsonl');
const haveData = [FILM_DEV, FILM_TRAIN, REVIEWS, SYNOPSES].every((p) => existsSync(p));

test(
  'tag cache (both backends): identical to native tag on every text of film-dev, film-train, the Douban reviews and the synopses',
  { skip: haveData ? false : 'needs ../shared/data (annotated/film-*.jsonl, the review and synopsis corpora of bench/tag.ts)' },
  () => {
    const texts: string[] = [];
    for (const file of [FILM_DEV, FILM_TRAIN]) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const o = JSON.parse(line) as { text: string; title?: string };
        texts.push(o.text);
        if (o.title) texts.push(o.title);
      }
    }
    const annotated = texts.length;
    texts.push(...readReviews().texts, ...readSynopses().texts);
    assert.ok(annotated >= 400 && texts.length > 2700, `corpus read: ${annotated} annotated texts and titles, ${texts.length} in all`);
    for (const backend of BACKENDS) {
      const base = tagger(backend, '');
      assertSame(base, texts); // cold
      assertSame(base, texts); // warm
      const user = tagger(backend, userDictText());
      assertSame(user, texts.slice(0, annotated));
      assertSame(user, texts.slice(0, annotated));
    }
  },
);
