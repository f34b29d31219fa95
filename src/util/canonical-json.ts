/**
 * Canonical JSON: object keys sorted (UTF-16 order), keys whose value is undefined left out, so equal
 * values give equal strings (cache keys, resume identities, experiment keys). An undefined value at the
 * top level or in an array is written `null`, as JSON.stringify writes it in an array.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`;
}
