/**
 * Option values shared by `filmkw html text` (html.ts) and `filmkw html records` (html-records.ts): a number
 * in a range, and `--max-bytes`.
 */
import { usageError } from '../../errors.js';
import { PAGE_MAX_BYTES_RANGE, PAGE_READ_DEFAULTS } from '../../html/index.js';

/** The value of option `name` as a number in [lo, hi] (undefined when not given). */
export function numberOption(name: string, v: string | undefined, lo: number, hi: number, cmd = 'html text'): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < lo || n > hi) throw usageError(`${cmd}: ${name} must be a number in [${lo}, ${hi}], got ${JSON.stringify(v)}`);
  return n;
}

/** `--max-bytes` of `html text` and `html records`: an integer in {@link PAGE_MAX_BYTES_RANGE}. */
export function maxBytesOption(v: string | undefined, cmd: string): number {
  const n = numberOption('--max-bytes', v, PAGE_MAX_BYTES_RANGE[0], PAGE_MAX_BYTES_RANGE[1], cmd) ?? PAGE_READ_DEFAULTS.maxBytes;
  if (!Number.isInteger(n)) throw usageError(`${cmd}: --max-bytes must be a whole number of bytes, got ${JSON.stringify(v)}`);
  return n;
}
