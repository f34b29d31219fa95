/**
 * `--max-bytes`, shared by `filmkw html text` (html.ts) and `filmkw html records` (html-records.ts), as a
 * commander argParser (option-parsers.ts).
 */
import { PAGE_MAX_BYTES_RANGE } from '../../html/index.js';
import { checked } from './option-parsers.js';

const [LO, HI] = PAGE_MAX_BYTES_RANGE;

/** `--max-bytes` of `html text` and `html records`: a whole number of bytes in {@link PAGE_MAX_BYTES_RANGE}. */
export const MAX_BYTES: (raw: string) => number = checked((raw) => {
  const n = Number(raw);
  return Number.isInteger(n) && n >= LO && n <= HI ? n : undefined;
}, `must be a whole number of bytes from ${LO} to ${HI}`);
