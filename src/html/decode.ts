/**
 * Saved web page bytes → text, with the right character encoding.
 *
 * Order of evidence (the first that yields a clean decode wins):
 * 1. a byte-order mark (UTF-8, UTF-16LE/BE) — trusted without further checks;
 * 2. strictly valid UTF-8 (a non-ASCII page whose bytes are valid UTF-8 is almost never in a legacy
 *    charset; this catches the common trap of `charset=gbk` declared over UTF-8 bytes, which is reported
 *    as a warning);
 * 3. the declared charset: `<meta charset>`, `<meta http-equiv="Content-Type" content="…; charset=…">`,
 *    an XML declaration, or the `encoding=` attribute of the old-corpus `<text …>` wrapper, looked for in
 *    the first {@link DECODE_DEFAULTS.sniffBytes} bytes. GB2312 and GBK are decoded as their superset
 *    GB18030 (iconv-lite), as browsers do;
 * 4. GB18030 as the fallback for undeclared non-UTF-8 bytes (the corpus this tool meets is Chinese).
 *
 * "Clean" means U+FFFD replacement characters make up at most {@link DECODE_DEFAULTS.maxBadRatio} of the
 * non-ASCII characters: a few broken bytes (a cut multi-byte sequence) are tolerated with a warning,
 * while a page that decodes to garbage in every candidate is an error ("wrong encoding"), never text.
 * GB18030 and Big5 decode almost any byte pairs without U+FFFD (Big5 bytes read as GBK give fluent-looking
 * nonsense such as "硂琌ノき絏"), so a legacy CJK decode must also be plausible: of its CJK characters at
 * least {@link DECODE_DEFAULTS.minCommonShare} are common hanzi (GB2312 levels 1–2 or Big5 level 1; ≥ 0.98
 * on the 44 GBK pages of CWCED, 0.26 for Big5 read as GBK). An implausible decode tries the other CJK
 * charset (GB18030 ↔ Big5) and is otherwise a "wrong encoding" error.
 *
 * Errors (FilmkwError INPUT, message names the file): empty page, not HTML (binary / NUL bytes or no
 * HTML tag in the first 64 KB), wrong encoding. A page without `</body>`/`</html>` is NOT an error here
 * (real saved pages often lack them and still hold the whole article); it gets a warning, and the
 * extractor turns a truncated page without main text into an error record.
 */
import iconv from 'iconv-lite';
import { inputError } from '../errors.js';

/** Tunables of {@link decodeHtml}. */
export interface DecodeOptions {
  /** File name used in error messages and warnings. @default '<input>' */
  path?: string;
}

/** Defaults of the decoder (frozen). */
export const DECODE_DEFAULTS = Object.freeze({
  /** {@link DecodeOptions.path} */
  path: '<input>',
  /** Bytes searched for a charset declaration. @default 4096 */
  sniffBytes: 4096,
  /** Largest share of U+FFFD among non-ASCII characters for a decode to count as clean. @default 0.01 */
  maxBadRatio: 0.01,
  /** Replacement characters always tolerated (a cut sequence at the end, a stray byte). @default 3 */
  maxBadAbsolute: 3,
  /** Bytes searched for a first HTML tag. @default 65536 */
  tagSearchBytes: 65536,
  /** Smallest share of common hanzi among the CJK characters of a GB18030/Big5 decode. @default 0.7 */
  minCommonShare: 0.7,
  /** The plausibility check needs at least this many CJK characters. @default 20 */
  minCjkChars: 20,
});

/** Result of {@link decodeHtml}. */
export interface DecodedHtml {
  html: string;
  /** The encoding actually used (iconv-lite name, lower case, e.g. `utf-8`, `gb18030`). */
  encoding: string;
  /** Non-fatal findings: declared/actual mismatch, a few bad bytes, no closing tag (maybe truncated). */
  warnings: string[];
}

const LEGACY_ALIASES: Record<string, string> = {
  gb2312: 'gb18030',
  gbk: 'gb18030',
  'x-gbk': 'gb18030',
  cp936: 'gb18030',
  'gb_2312-80': 'gb18030',
  'x-gb2312': 'gb18030',
  euccn: 'gb18030',
  'euc-cn': 'gb18030',
  gb18030: 'gb18030',
  utf8: 'utf-8',
  'utf-8': 'utf-8',
  'iso-8859-1': 'windows-1252',
  latin1: 'windows-1252',
  'us-ascii': 'windows-1252',
  ascii: 'windows-1252',
  big5: 'big5',
  'big5-hkscs': 'big5',
};

/** Maps a declared charset label to the decoder used for it, or null when unknown to iconv-lite. */
export function normalizeCharset(label: string): string | null {
  const l = label.trim().toLowerCase().replace(/^["']|["']$/g, '');
  const mapped = LEGACY_ALIASES[l] ?? l;
  return iconv.encodingExists(mapped) ? mapped : null;
}

/** The charset a page declares in its first bytes (meta, http-equiv, XML declaration, `<text encoding>`), or null. */
export function declaredCharset(head: string): string | null {
  const patterns = [
    /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([\w.:-]+)/i, // <meta charset=…> and content="…; charset=…"
    /<\?xml\b[^>]*\bencoding\s*=\s*["']([\w.:-]+)/i,
    /<text\b[^>]*\bencoding\s*=\s*["']?([\w.:-]+)/i,
  ];
  for (const re of patterns) {
    const m = re.exec(head);
    if (m) return m[1]!.toLowerCase();
  }
  return null;
}

const countBad = (s: string): number => {
  let n = 0;
  for (let i = s.indexOf('\uFFFD'); i !== -1; i = s.indexOf('\uFFFD', i + 1)) n++;
  return n;
};
const countNonAscii = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) n++;
  return n;
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

let commonHanzi: Set<string> | null = null;
/** GB2312 levels 1–2 (rows 0xB0–0xF7) and Big5 level 1 (rows 0xA4–0xC6): the hanzi of ordinary text. */
function common(): Set<string> {
  if (commonHanzi) return commonHanzi;
  const set = new Set<string>();
  const add = (enc: string, a0: number, a1: number, ranges: [number, number][]): void => {
    for (let a = a0; a <= a1; a++) {
      for (const [b0, b1] of ranges) {
        for (let b = b0; b <= b1; b++) {
          const c = iconv.decode(Buffer.from([a, b]), enc);
          if (c.length === 1 && c !== '\uFFFD') set.add(c);
        }
      }
    }
  };
  add('gb18030', 0xb0, 0xf7, [[0xa1, 0xfe]]);
  add('big5', 0xa4, 0xc6, [[0x40, 0x7e], [0xa1, 0xfe]]);
  return (commonHanzi = set);
}

/**
 * Share of common hanzi among the CJK characters of a decoded text (CJK punctuation and full-width forms
 * not counted), and how many CJK characters there were.
 */
export function commonHanziShare(text: string): { cjk: number; share: number } {
  const set = common();
  let n = 0;
  let c = 0;
  for (const ch of text) {
    const k = ch.codePointAt(0)!;
    if (k < 0x2e80 || (k >= 0x3000 && k < 0x3040) || (k >= 0xff00 && k <= 0xffef) || ch === '\uFFFD') continue;
    n++;
    if (set.has(ch)) c++;
  }
  return { cjk: n, share: n ? c / n : 1 };
}

/**
 * Decodes the bytes of one saved page. Throws FilmkwError INPUT (message `html: <path>: …`) for an
 * empty page, bytes that are not HTML, or a page that decodes cleanly in no candidate encoding.
 */
export function decodeHtml(bytes: Uint8Array, opts: DecodeOptions = {}): DecodedHtml {
  const D = DECODE_DEFAULTS;
  const where = `html: ${opts.path ?? DECODE_DEFAULTS.path}`;
  const warnings: string[] = [];
  let start = 0;
  while (start < bytes.length && (bytes[start] === 0x20 || bytes[start] === 0x0a || bytes[start] === 0x0d || bytes[start] === 0x09)) start++;
  if (start === bytes.length) throw inputError(`${where}: empty page (${bytes.length} bytes, no content)`);
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

  let html: string | null = null;
  let encoding = '';
  // 1. BOM
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
    encoding = 'utf-8';
    html = iconv.decode(buf.subarray(3), 'utf-8');
  } else if (buf[0] === 0xff && buf[1] === 0xfe) {
    encoding = 'utf-16le';
    html = iconv.decode(buf.subarray(2), 'utf-16le');
  } else if (buf[0] === 0xfe && buf[1] === 0xff) {
    encoding = 'utf-16be';
    html = iconv.decode(buf.subarray(2), 'utf-16be');
  }
  if (html === null) {
    // binary data is not a page (checked before decoding: NUL bytes never occur in HTML text)
    const probe = buf.subarray(0, Math.min(buf.length, D.tagSearchBytes));
    if (probe.includes(0)) throw inputError(`${where}: not HTML (binary data: NUL bytes)`);
    const head = buf.subarray(0, D.sniffBytes).toString('latin1');
    const declaredLabel = declaredCharset(head);
    const declared = declaredLabel ? normalizeCharset(declaredLabel) : null;
    if (declaredLabel && !declared && !/^(?:unset|none|auto|unknown)$/.test(declaredLabel)) warnings.push(`${where}: unknown declared charset "${declaredLabel}" ignored`);
    // 2. strictly valid UTF-8
    let utf8: string | null = null;
    try {
      utf8 = strictUtf8.decode(buf);
    } catch {
      utf8 = null;
    }
    if (utf8 !== null) {
      html = utf8;
      encoding = 'utf-8';
      if (declared && declared !== 'utf-8' && countNonAscii(utf8) > 0) warnings.push(`${where}: declared charset ${declaredLabel} but the bytes are valid UTF-8; decoded as UTF-8`);
    } else {
      // 3. declared, 4. fallbacks
      const candidates = [...new Set([declared, 'gb18030', 'utf-8'].filter((c): c is string => !!c))];
      const tried: string[] = [];
      for (let k = 0; k < candidates.length; k++) {
        const c = candidates[k]!;
        const t = iconv.decode(buf, c);
        const bad = countBad(t);
        tried.push(`${c}: ${bad} bad of ${countNonAscii(t)} non-ASCII chars`);
        if (bad <= D.maxBadAbsolute || bad <= D.maxBadRatio * countNonAscii(t)) {
          if (c === 'gb18030' || c === 'big5') {
            const { cjk, share } = commonHanziShare(t);
            if (cjk >= D.minCjkChars && share < D.minCommonShare) {
              tried[tried.length - 1] += `, only ${Math.round(share * 100)}% of ${cjk} CJK chars common hanzi (mojibake)`;
              const other = c === 'gb18030' ? 'big5' : 'gb18030';
              if (!candidates.includes(other)) candidates.splice(k + 1, 0, other);
              continue;
            }
          }
          html = t;
          encoding = c;
          if (bad > 0) warnings.push(`${where}: ${bad} undecodable byte sequence(s) in ${c}, replaced by U+FFFD`);
          if (declared && c !== declared) warnings.push(`${where}: declared charset ${declaredLabel} does not fit the bytes; decoded as ${c}`);
          break;
        }
      }
      if (html === null) {
        throw inputError(`${where}: wrong encoding: the bytes decode cleanly neither as ${declaredLabel ? `the declared charset ${declaredLabel}, ` : ''}UTF-8 nor GB18030${candidates.includes('big5') ? ' nor Big5' : ''} (${tried.join('; ')})`);
      }
    }
  }
  if (html.charCodeAt(0) === 0xfeff) html = html.slice(1);
  if (!/<(?:!doctype|html|head|body|meta|title|div|p|table|span|a|br|text|article|section|main|h[1-6]|ul|li|script|link|form)\b[^>]*>/i.test(html.slice(0, D.tagSearchBytes))) {
    throw inputError(`${where}: not HTML (no HTML tag in the first ${D.tagSearchBytes / 1024} KB)`);
  }
  if (!/<\/(?:body|html)\s*>/i.test(html.slice(-8192))) warnings.push(`${where}: no </body> or </html> at the end; the page may be truncated`);
  return { html, encoding, warnings };
}
