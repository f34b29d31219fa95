/**
 * Issue 26 item 2: POS tagging is linear in the text whatever its punctuation. The tag cache
 * (src/pipeline/segmenters/tag-cache.ts) used to re-tag the whole punctuation-free block once for every
 * new word that jieba cuts differently on its own: native `tag` ran on 57× the text at 40k characters
 * without punctuation, quadratic. The work is counted (characters given to native `tag` and `cut`,
 * `cacheStats()`), never timed, on seeded text without punctuation (dictionary words run together, and
 * random CJK characters), with both backends' real taggers: here 40k and 160k characters (the size at
 * which the quadratic cache gave native `tag` 57× the text, and four times it); 125k to 1M characters in
 * test/integration/pipeline/segment-linear-long.test.ts.
 */
import { taggingLinearTests } from './work-cases.js';

taggingLinearTests([40_000, 160_000], [40_000, 160_000]);
