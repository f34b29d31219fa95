/**
 * Issue 26 item 2 on long texts (moved from test/pipeline/segment-linear.test.ts, which runs the same
 * checks on 40k and 160k characters in the fast suite): POS tagging of 125k to 1M characters without
 * punctuation gives native `tag` at most 3 × the text, with both backends' real taggers. Counted, never
 * timed.
 */
import { taggingLinearTests } from '../../pipeline/work-cases.js';

taggingLinearTests([125_000, 250_000, 500_000, 1_000_000], [125_000, 500_000]);
