/**
 * Option checks declared on the commander options (`.argParser(...)`), run while commander parses the
 * command line, before the command does any work. A bad value throws the CLI's usage error itself
 * (FilmkwError USAGE: one line `filmkw: <command>: <flag> must …`, exit 2), not commander's
 * InvalidArgumentError, so the message and the exit code are the ones the command always gave. An option's
 * default is never parsed: a default must already be a valid value.
 *
 * A closed set of values is declared with commander's `.choices()` instead (`--help` lists them as
 * "(choices: …)"; a bad value reads `<command>: <flag> must be a, b or c, got "x"`, usage-errors.ts), two
 * options that do not go together with `.conflicts()` (usage-errors.ts `conflicts`).
 */
import { InvalidArgumentError } from 'commander';
import { usageError } from '../../errors.js';

/** "a", "a or b", "a, b or c". */
export const orList = (values: readonly string[]): string => (values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`);

/** A parser that keeps the value `parse` gives, or throws the usage error `message` names (undefined: bad). */
export function checked<T>(parse: (raw: string) => T | undefined, message: (raw: string) => string): (raw: string) => T {
  return (raw) => {
    const v = parse(raw);
    if (v === undefined) throw usageError(message(raw));
    return v;
  };
}

/**
 * A parser for an option with `.choices(values)` that also takes a value in any case with spaces around
 * (`--format CSV`), as the value's own reader does (io/readers.ts checkFormat). A value outside the set
 * gets commander's invalid-choice error, so its message is that of every `.choices()` option
 * (usage-errors.ts: `<cmd>: --format must be jsonl, csv or txt, got "x"`).
 */
export function anyCase<T extends string>(values: readonly T[]): (raw: string) => T {
  return (raw) => {
    const v = raw.trim().toLowerCase();
    if ((values as readonly string[]).includes(v)) return v as T;
    throw new InvalidArgumentError(`Allowed choices are ${values.join(', ')}.`);
  };
}

/** A number in [lo, hi]: `<cmd>: <flag> must be a number in [lo, hi], got "x"`. */
export function numberIn(cmd: string, flag: string, lo: number, hi: number): (raw: string) => number {
  return checked(
    (raw) => {
      const n = Number(raw);
      return Number.isFinite(n) && n >= lo && n <= hi ? n : undefined;
    },
    (raw) => `${cmd}: ${flag} must be a number in [${lo}, ${hi}], got ${JSON.stringify(raw)}`,
  );
}

/** A whole number in [min, max] (digits only, spaces around allowed): `<cmd>: <flag> must be an integer from min to max, got "x"`. */
export function integerIn(cmd: string, flag: string, min: number, max: number): (raw: string) => number {
  return checked(
    (raw) => {
      const n = Number(raw);
      return /^\s*\d+\s*$/u.test(raw) && n >= min && n <= max ? n : undefined;
    },
    (raw) => `${cmd}: ${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
  );
}

/**
 * Digits only (spaces around allowed), no range: `<cmd>: <flag> must be an integer ≥ 1, got "x"`. For options
 * whose range a library function checks for its own callers too (src/batch/tag-run.ts `TAG_LIMITS`).
 */
export function digits(cmd: string, flag: string): (raw: string) => number {
  return checked(
    (raw) => (/^\s*\d+\s*$/u.test(raw) ? Number(raw) : undefined),
    (raw) => `${cmd}: ${flag} must be an integer ≥ 1, got ${JSON.stringify(raw)}`,
  );
}

/** A whole number ≥ min, no upper bound here (the library checks its own): `<cmd>: <flag> must be an integer ≥ min, got "x"`. */
export function integerFrom(cmd: string, flag: string, min: number): (raw: string) => number {
  return checked(
    (raw) => (/^\s*\d+\s*$/u.test(raw) && Number(raw) >= min ? Number(raw) : undefined),
    (raw) => `${cmd}: ${flag} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`,
  );
}
