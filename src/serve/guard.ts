/**
 * The request checks of `filmkw serve` that come before any work (issue 26), pure functions of the
 * request's headers and body:
 *
 * - DNS rebinding: on a loopback bind, in any spelling (127.0.0.0/8, `::1`, `0:0:0:0:0:0:0:1`,
 *   `::ffff:127.0.0.2`, `localhost`), only requests whose Host names a loopback address are answered: a
 *   page of another site whose name was re-pointed at 127.0.0.1 sends its own name.
 * - Cross-origin requests: a browser sends `text/plain`, form and multipart POSTs to any site without
 *   asking (no CORS preflight), so every POST must be `application/json` (which a cross-origin page
 *   cannot send without a preflight the server never grants), and a request a browser marks as coming
 *   from another origin (`Origin` other than the server's own, `Sec-Fetch-Site: cross-site` or
 *   `same-site`) is refused whatever its type.
 * - Body shape: JSON nested deeper than {@link MAX_BODY_DEPTH} is refused before it is parsed, so it
 *   never reaches the option resolver (whose recursion it overflowed: a 500).
 *
 * Host names are compared after WHATWG URL parsing, the same normalisation a browser applies (`127.1`,
 * `0x7f000001` and `[0:0:0:0:0:0:0:1]` are loopback spellings too).
 */

/** The host part of `authority` (`name[:port]`) as a browser would resolve it, lower case; null if unparsable. */
export function hostName(authority: string): string | null {
  if (authority === '' || /[\s/?#@\\]/u.test(authority)) return null;
  try {
    return new URL(`http://${authority}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** Whether a normalised host name (from {@link hostName}) is a loopback address or `localhost`. */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/u.test(name)) return true;
  if (name === '[::1]') return true;
  // IPv4-mapped IPv6 (::ffff:7f00:1 is ::ffff:127.0.0.1 as the URL parser writes it)
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/u.test(name);
}

/** Whether the server's bind address is a loopback address (then the Host check is on). */
export function isLoopbackBind(bind: string): boolean {
  const name = hostName(bind.includes(':') && !bind.startsWith('[') ? `[${bind}]` : bind);
  return name !== null && isLoopbackName(name);
}

/** On a loopback bind, only a Host header that names a loopback address (any port) is allowed. */
export function hostAllowed(header: string | undefined, bind: string): boolean {
  if (!isLoopbackBind(bind)) return true;
  if (!header) return false;
  const name = hostName(header);
  return name !== null && isLoopbackName(name);
}

/** Why a POST is refused for where it comes from (403) or its type (415); null when it may go on. */
export function postRefusal(headers: { host?: string; origin?: string; secFetchSite?: string; contentType?: string }): { status: 403 | 415; message: string } | null {
  const site = headers.secFetchSite?.trim().toLowerCase();
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return { status: 403, message: `cross-origin request refused (Sec-Fetch-Site: ${site}); the API answers the viewer's own page and programs, not other sites` };
  }
  if (headers.origin !== undefined) {
    if (!sameOrigin(headers.origin, headers.host)) {
      return { status: 403, message: `cross-origin request refused (Origin: ${headers.origin.slice(0, 100)}); the API answers the viewer's own page and programs, not other sites` };
    }
  }
  const type = (headers.contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    return { status: 415, message: `the request body must be JSON sent as Content-Type: application/json (got ${headers.contentType === undefined ? 'no Content-Type' : JSON.stringify(headers.contentType.slice(0, 100))})` };
  }
  return null;
}

/** Whether `origin` is the server itself as reached through `host` (scheme http, same host and port). */
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    const from = new URL(origin);
    return from.protocol === 'http:' && from.host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}

/** Deepest nesting of a request body (objects and arrays; the top-level object is 1). */
export const MAX_BODY_DEPTH = 8;

/**
 * Whether the JSON text `raw` nests objects or arrays deeper than `max` (the top-level value is 1): one
 * pass over the text, strings skipped, before JSON.parse (which spends about half a second building a
 * million nested arrays).
 */
export function jsonNestedDeeperThan(raw: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
