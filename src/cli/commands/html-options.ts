/**
 * `--max-bytes`, shared by `filmkw html text` (html.ts) and `filmkw html records` (html-records.ts), as a
 * commander argParser (option-parsers.ts).
 */
import { usageError } from '../../errors.js';
import { PAGE_MAX_BYTES_RANGE } from '../../html/index.js';
import { numberIn } from './option-parsers.js';

/** `--max-bytes` of `html text` and `html records`: a whole number of bytes in {@link PAGE_MAX_BYTES_RANGE}. */
export function maxBytesParser(cmd: string): (raw: string) => number {
  const inRange = numberIn(cmd, '--max-bytes', PAGE_MAX_BYTES_RANGE[0], PAGE_MAX_BYTES_RANGE[1]);
  return (raw) => {
    const n = inRange(raw);
    if (!Number.isInteger(n)) throw usageError(`${cmd}: --max-bytes must be a whole number of bytes, got ${JSON.stringify(raw)}`);
    return n;
  };
}
