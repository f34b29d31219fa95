/**
 * Option checks declared on the commander options (`.argParser(...)`), run while commander parses the
 * command line, before the command does any work. A bad value throws commander's InvalidArgumentError
 * with what the value must be (`must be an integer ≥ 1`); usage-errors.ts adds the command path, the flag
 * and the value given: one line `filmkw: <command>: <flag> must …, got "x"`, exit 2. So a parser names
 * neither its command nor its flag. An option's default is never parsed: a default must already be a
 * valid value.
 *
 * A closed set of values is declared with commander's `.choices()` instead (`--help` lists them as
 * "(choices: …)"; a bad value reads `<command>: <flag> must be a, b or c, got "x"`, usage-errors.ts), two
 * options that do not go together with `.conflicts()` (usage-errors.ts `conflicts`).
 */
import { InvalidArgumentError } from 'commander';

/** "a", "a or b", "a, b or c". */
export const orList = (values: readonly string[]): string => (values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`);

/**
 * A parser that keeps the value `parse` gives, or (undefined: bad) throws what the value `must` be, e.g.
 * `must be HOST=MS`: the message reads `<command>: <flag> must be HOST=MS, got "x"` (module header).
 */
export function checked<T>(parse: (raw: string) => T | undefined, must: string): (raw: string) => T {
  return (raw) => {
    const v = parse(raw);
    if (v === undefined) throw new InvalidArgumentError(must);
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

/** A number in [lo, hi]: `<flag> must be a number in [lo, hi], got "x"`. */
export function numberIn(lo: number, hi: number): (raw: string) => number {
  return checked(
    (raw) => {
      const n = Number(raw);
      return Number.isFinite(n) && n >= lo && n <= hi ? n : undefined;
    },
    `must be a number in [${lo}, ${hi}]`,
  );
}

/** A whole number in [min, max] (digits only, spaces around allowed): `<flag> must be an integer from min to max, got "x"`. */
export function integerIn(min: number, max: number): (raw: string) => number {
  return checked(
    (raw) => {
      const n = Number(raw);
      return /^\s*\d+\s*$/u.test(raw) && n >= min && n <= max ? n : undefined;
    },
    `must be an integer from ${min} to ${max}`,
  );
}

/**
 * Digits only (spaces around allowed), no range: `<flag> must be an integer ≥ 1, got "x"`. For options
 * whose range a library function checks for its own callers too (src/batch/tag-run.ts `TAG_LIMITS`).
 */
export const digits: (raw: string) => number = checked((raw) => (/^\s*\d+\s*$/u.test(raw) ? Number(raw) : undefined), 'must be an integer ≥ 1');

/** A whole number ≥ min, no upper bound here (the library checks its own): `<flag> must be an integer ≥ min, got "x"`. */
export function integerFrom(min: number): (raw: string) => number {
  return checked((raw) => (/^\s*\d+\s*$/u.test(raw) && Number(raw) >= min ? Number(raw) : undefined), `must be an integer ≥ ${min}`);
}
