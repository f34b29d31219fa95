/**
 * URL handling for the crawler and the replay server: normalisation (crawler-spec.md §3.4: lower-case
 * host, no fragment, no tracking parameters, sorted query keys, relative links resolved), the host key
 * used for politeness and robots.txt, and file names derived from URLs that can never leave their
 * directory.
 */
import { createHash } from 'node:crypto';

/** Query parameters that only track the visitor; dropped by {@link normalizeUrl}. */
const TRACKING = /^(utm_[a-z_]*|spm|fbclid|gclid|dt_dapp|isappinstalled|from|_i)$/iu;

/** Longest URL the crawler accepts (longer ones are reported, not fetched). */
export const MAX_URL_LENGTH = 2048;

/** Why a link was not accepted, or the normalised URL. */
export type Normalized = { url: string } | { error: string };

/**
 * RFC 3986 §6.2.2.1–2 in a path: a percent-encoded unreserved character (ALPHA, DIGIT, `-._~`) is
 * decoded (`/%66rag` is `/frag`), the hex digits of every other percent-encoding upper-cased.
 */
function normalizePercent(path: string): string {
  return path.replace(/%([0-9a-fA-F]{2})/gu, (_m, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/u.test(c) ? c : `%${hex.toUpperCase()}`;
  });
}

/**
 * Resolve `href` against `base` and normalise it: http(s) only, no credentials, lower-case host (WHATWG
 * URL), default port dropped, fragment dropped, percent-encoding of the path normalised
 * ({@link normalizePercent}; the query is re-encoded as form data below, which does the same),
 * tracking parameters dropped, remaining query keys sorted (stable for equal keys), empty path → `/`.
 * Returns a reason instead of a URL for anything else.
 */
export function normalizeUrl(href: string, base?: string): Normalized {
  const raw = href.trim();
  if (raw === '') return { error: 'empty URL' };
  let u: URL;
  try {
    u = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    return { error: `not a URL: ${JSON.stringify(raw.slice(0, 200))}` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: `scheme ${u.protocol.replace(/:$/u, '')} is not http(s)` };
  if (u.username || u.password) return { error: 'URL with credentials' };
  if (u.hostname === '') return { error: 'URL without host' };
  u.hash = '';
  if (u.pathname.includes('%')) u.pathname = normalizePercent(u.pathname);
  if (u.search) {
    const kept = [...u.searchParams.entries()].filter(([k]) => !TRACKING.test(k));
    kept.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    u.search = kept.length ? new URLSearchParams(kept).toString() : '';
  }
  const url = u.toString();
  if (url.length > MAX_URL_LENGTH) return { error: `URL longer than ${MAX_URL_LENGTH} characters` };
  return { url };
}

/** `host[:port]` of a normalised URL: the unit of politeness and robots.txt. */
export function hostKey(url: string): string {
  return new URL(url).host;
}

/** Host + path + query, the scheme-free key the replay server dispatches on. */
export function replayKey(url: string): string {
  const u = new URL(url);
  return `${u.host}${u.pathname}${u.search}`;
}

/** Short stable hash of a string (hex), for file names and seen-sets. */
export function urlHash(s: string, hexChars = 16): string {
  return createHash('sha1').update(s).digest('hex').slice(0, hexChars);
}

/**
 * A relative file path for the page at `url`: `<host>/<hash>.html`, where the host is reduced to
 * `[a-z0-9.-]` (no `..`, no separators), so the path never escapes the directory it is joined to.
 */
export function pageFileName(url: string, ext = '.html'): string {
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    host = 'invalid';
  }
  const safeHost = host.toLowerCase().replace(/[^a-z0-9.-]+/gu, '_').replace(/\.{2,}/gu, '_').replace(/^[.-]+/u, '') || 'host';
  return `${safeHost.slice(0, 100)}/${urlHash(url)}${ext}`;
}

/**
 * A 53-bit number for a URL (the first 7 bytes of its SHA-1), for the crawler's seen-set: a number costs
 * a fraction of the string's memory. Two URLs collide with probability ≈ n²/2⁵⁴ (≈ 6·10⁻⁵ at 10⁶ URLs).
 */
export function urlKey(url: string): number {
  const h = createHash('sha1').update(url).digest();
  return (h.readUIntBE(0, 6) * 32) + (h[6]! >>> 3);
}
