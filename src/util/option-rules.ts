/**
 * Validation rules of stage options: each stage exports its rules next to its options type and frozen
 * defaults (`<STAGE>_OPTION_RULES`); src/pipeline/options.ts composes them and validates untyped
 * overrides (CLI flags, experiment files) against them.
 */

/** Validation rule of one option. */
export type OptionRule =
  | { type: 'enum'; values: readonly string[] }
  | { type: 'boolean' }
  | { type: 'number'; min?: number; max?: number; integer?: boolean; exclusiveMin?: boolean }
  | { type: 'enumOrNumber'; values: readonly string[]; min: number; max: number; exclusiveMin?: boolean }
  | { type: 'subset'; values: readonly string[] }
  | { type: 'enumOrStrings'; values: readonly string[]; pattern: RegExp; describe: string }
  | { type: 'strings'; pattern: RegExp; describe: string };

/** One rule per key of an options type. */
export type OptionRules<T> = { readonly [K in keyof T]-?: OptionRule };

/** Human description of the values an option accepts (for errors and `--help`). */
export function describeRule(rule: OptionRule): string {
  switch (rule.type) {
    case 'enum':
      return rule.values.map((v) => `'${v}'`).join(' | ');
    case 'boolean':
      return 'true | false';
    case 'number': {
      const parts: string[] = [rule.integer ? 'an integer' : 'a number'];
      if (rule.min !== undefined) parts.push(`${rule.exclusiveMin ? '>' : '≥'} ${rule.min}`);
      if (rule.max !== undefined) parts.push(`${rule.min !== undefined ? 'and ' : ''}≤ ${rule.max}`);
      return parts.join(' ');
    }
    case 'enumOrNumber':
      return `${rule.values.map((v) => `'${v}'`).join(' | ')} | a number ${rule.exclusiveMin ? '>' : '≥'} ${rule.min} and ≤ ${rule.max}`;
    case 'subset':
      return `a list of ${rule.values.join(', ')}`;
    case 'enumOrStrings':
      return `${rule.values.map((v) => `'${v}'`).join(' | ')} | a list of ${rule.describe}`;
    case 'strings':
      return `a list of ${rule.describe}`;
  }
}

/** Check one value against its rule; an error message, or null when the value is valid. */
export function checkRule(rule: OptionRule, value: unknown): string | null {
  const bad = `expected ${describeRule(rule)}`;
  switch (rule.type) {
    case 'enum':
      return typeof value === 'string' && rule.values.includes(value) ? null : bad;
    case 'boolean':
      return typeof value === 'boolean' ? null : bad;
    case 'number':
    case 'enumOrNumber': {
      if (rule.type === 'enumOrNumber' && typeof value === 'string') return rule.values.includes(value) ? null : bad;
      if (typeof value !== 'number' || !Number.isFinite(value)) return bad;
      if (rule.type === 'number' && rule.integer && !Number.isInteger(value)) return bad;
      if (rule.min !== undefined && (rule.exclusiveMin ? value <= rule.min : value < rule.min)) return bad;
      if (rule.max !== undefined && value > rule.max) return bad;
      return null;
    }
    case 'subset':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && rule.values.includes(v)) && new Set(value).size === value.length ? null : bad;
    case 'enumOrStrings':
      if (typeof value === 'string') return rule.values.includes(value) ? null : bad;
      return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && rule.pattern.test(v)) ? null : bad;
    case 'strings':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && rule.pattern.test(v)) ? null : bad;
  }
}
