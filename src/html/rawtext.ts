/**
 * Pre-scan that takes the content of pruned raw-text elements (`<script>`, `<style>`) out of a page
 * before htmlparser2 tokenizes it.
 *
 * Why: served pages can be mostly inline script (Douban's long-review pages: script around
 * `div.review-content`). htmlparser2's tokenizer walks raw text one character at a time (a JS loop over
 * `charCodeAt`) and the tree (src/html/tree.ts) then throws that text away, so cutting it out first saves
 * most of the parse of such a page (figures: bench/README.md "Figures behind code comments"). htmlparser2 12 has
 * no public way to skip raw text (its `Tokenizer` option wants a tokenizer class, and version 12 no longer
 * exports its own), so we cut the text out and let the library parse the rest, written to it piece by
 * piece (no copy of the page). Parsing pieces is slower per character than parsing one string, so the
 * tree cuts only pages whose script/style text is at least half of the page (`cutMinShare`), and the
 * scan gives up as soon as that share is out of reach. Only script and style are cut: on the real pages
 * they hold most of the raw text (comments and pruned textarea text little), and the others' end rules
 * are fiddlier, so they are left to the tokenizer.
 *
 * The cut must not change the parse. The rules follow htmlparser2's tokenizer (not only the HTML spec):
 * a `<script`/`<style` start tag is the ASCII-case-insensitive name followed by white space, `/` or
 * `>`; its attributes end at the first `>` outside a quoted value; its content ends at the first
 * `</script` (`</style`, any case) followed by white space (`\t \n \f \r` or space), `/` or `>`, or at
 * the end of the page (truncated pages). Comments (`<!-- … -->`, `--!>`, `<!-->`, `<!--->`) and the
 * content of the other raw-text / RCDATA elements (title, textarea, xmp, iframe, noembed, noframes,
 * plaintext) are stepped over so that a `<script` inside them is not taken for a tag, and nothing is cut
 * inside `<svg>` or `<math>` (foreign content, where script and style are ordinary elements). Never cut:
 * - a `<script>` whose start tag says `ld+json` (the tree reads JSON-LD for metadata);
 * - script text holding `<!--`: the spec's "script data escaped" states (which htmlparser2 does not
 *   implement) could end such a script elsewhere, so without `<!--` both rules give the same end;
 * - text holding U+000F or U+001C (htmlparser2 compares `c | 0x20`, so these can act as `/` and `<`).
 *
 * Checked by the parse (tree.ts): each removed content is replaced by {@link CUT_PROBE}, and the tree
 * builder verifies, from the parser's own events, that each probe follows a start tag the parser took
 * for that element, that the parser read the probe as its text (inside a raw-text element "<x>" is text,
 * anywhere else a tag) and then closed the element, and that the tree ignores that text. A `<script`
 * inside an attribute value, a bogus comment or CDATA, or foreign content fails the check, and the page
 * is parsed again uncut: a wrong start costs time, never output. So is a page whose parse flushes text in
 * `parser.end()` (it ends inside a tag or an entity: htmlparser2 then reads text back from its buffers,
 * for a cut-off end tag from position -1, which differs between one string and pieces). What the check
 * cannot see is where the parser would have ended the cut text; that is the end rule above, pinned
 * against htmlparser2 in test/html/rawtext.test.ts, which also compares cut and uncut parses on every
 * real page and on generated tag soup.
 */

/** Text put where a content was cut: text inside a raw-text element, a tag anywhere else. */
export const CUT_PROBE = '<x>';

/** One cut: the probe starts at `at` (index in the cut string) inside element `tag`. */
export interface RawTextCut {
  at: number;
  tag: string;
}

/** The elements whose content may be cut (raw text in HTML, always pruned by the tree). */
export const CUTTABLE: ReadonlySet<string> = new Set(['script', 'style']);

// Plain indexOf loops, not regular expressions: on a two-byte (CJK) page they are several times faster
// than a regex scan (bench/README.md "Figures behind code comments").

/** Does `s` hold the ASCII lower-case `name` at `i`, in any ASCII case? */
const nameAt = (s: string, i: number, name: string): boolean => {
  for (let k = 0; k < name.length; k++) {
    const c = s.charCodeAt(i + k);
    if (c !== name.charCodeAt(k) && c + 0x20 !== name.charCodeAt(k)) return false;
  }
  return true;
};
const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
const isEndOfName = (c: number): boolean => c === 0x2f || c === 0x3e || isWs(c);

const tagIs = (s: string, i: number, name: string): string | undefined => (nameAt(s, i, name) && isEndOfName(s.charCodeAt(i + name.length)) ? name : undefined);

/**
 * The element the scan must know (raw text, RCDATA, foreign content) whose name starts at `i` and is
 * followed by white space, `/` or `>`, if any.
 */
function nameAtTag(s: string, i: number): string | undefined {
  switch (s.charCodeAt(i) | 0x20) {
    case 0x73: // s
      return tagIs(s, i, 'script') ?? tagIs(s, i, 'style') ?? tagIs(s, i, 'svg');
    case 0x74: // t
      return tagIs(s, i, 'title') ?? tagIs(s, i, 'textarea');
    case 0x69: // i
      return tagIs(s, i, 'iframe');
    case 0x6e: // n
      return tagIs(s, i, 'noembed') ?? tagIs(s, i, 'noframes');
    case 0x6d: // m
      return tagIs(s, i, 'math');
    case 0x70: // p
      return tagIs(s, i, 'plaintext');
    case 0x78: // x
      return tagIs(s, i, 'xmp');
    default:
      return undefined;
  }
}

/**
 * Index of the `>` that ends the start tag whose name ends before `i`, or -1 when the page ends first
 * (htmlparser2's attribute states: quoted values may hold `>`, unquoted ones end at white space or `>`).
 */
export function startTagEnd(s: string, i: number): number {
  const n = s.length;
  while (i < n) {
    let c = s.charCodeAt(i);
    if (c === 0x3e) return i; // '>'
    if (isWs(c) || c === 0x2f) {
      i++; // white space, or the '/' of a self-closing mark (ignored in HTML)
      continue;
    }
    // attribute name: up to '=', white space, '/' or '>'
    while (i < n && (c = s.charCodeAt(i)) !== 0x3d && !isWs(c) && c !== 0x2f && c !== 0x3e) i++;
    while (i < n && isWs(s.charCodeAt(i))) i++;
    if (i >= n) return -1;
    if (s.charCodeAt(i) !== 0x3d) continue; // no value
    i++;
    while (i < n && isWs(s.charCodeAt(i))) i++;
    if (i >= n) return -1;
    c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x27) {
      const q = s.indexOf(c === 0x22 ? '"' : "'", i + 1);
      if (q < 0) return -1;
      i = q + 1;
    } else {
      while (i < n && (c = s.charCodeAt(i)) !== 0x3e && !isWs(c)) i++;
    }
  }
  return -1;
}

/** Index just after the comment whose `<!--` ends before `i`, or -1 when it runs to the end. */
export function commentEnd(s: string, i: number): number {
  if (s.charCodeAt(i) === 0x3e) return i + 1; // <!-->
  if (s.charCodeAt(i) === 0x2d && s.charCodeAt(i + 1) === 0x3e) return i + 2; // <!--->
  // the first "-->" or "--!>"
  for (let j = s.indexOf('--', i); j >= 0; j = s.indexOf('--', j + 1)) {
    const c = s.charCodeAt(j + 2);
    if (c === 0x3e) return j + 3;
    if (c === 0x21 && s.charCodeAt(j + 3) === 0x3e) return j + 4;
  }
  return -1;
}

/** Index of the end tag that closes raw text of `name` starting at `i` (or the page length). */
export function rawTextEnd(s: string, i: number, name: string): number {
  for (let j = s.indexOf('</', i); j >= 0; j = s.indexOf('</', j + 1)) {
    if (nameAt(s, j + 2, name) && isEndOfName(s.charCodeAt(j + 2 + name.length))) return j;
  }
  return s.length;
}

/** First index ≥ `from` of `what` in `s` (-1: none), remembering the last answer (the scan only moves on). */
const finder = (s: string, what: string): ((from: number) => number) => {
  let found = -2; // -2: not searched yet
  return (from) => (found === -1 || found >= from ? found : (found = s.indexOf(what, from)));
};

/**
 * Cuts the content of the raw-text elements named in `tags` (a subset of {@link CUTTABLE}) out of
 * `html`, putting {@link CUT_PROBE} in its place. Returns the cut page as pieces to write to the parser
 * one after the other (substrings of `html` and probes: no copy of the page is made), where the probes
 * are (indices in their concatenation) and how many characters were cut. With `minShare`, gives up (no
 * cuts) as soon as the cut text can no longer reach that share of the page.
 */
export function cutRawText(html: string, tags: ReadonlySet<string> = CUTTABLE, minShare = 0): { parts: string[]; cuts: RawTextCut[]; chars: number } {
  const need = minShare * html.length;
  const none = (chars: number) => ({ parts: [html], cuts: [], chars });
  const parts: string[] = [];
  const cuts: RawTextCut[] = [];
  const commentOpen = finder(html, '<!--');
  const quirk0f = finder(html, '\x0f');
  const quirk1c = finder(html, '\x1c');
  let last = 0; // start of the part not yet taken
  let outLen = 0;
  let chars = 0;
  let foreign = 0; // open <svg>/<math>, roughly
  for (let p = html.indexOf('<'); p >= 0; p = html.indexOf('<', p)) {
    if (chars + html.length - p < need) return none(chars);
    const c1 = html.charCodeAt(p + 1);
    if (c1 === 0x21 && html.charCodeAt(p + 2) === 0x2d && html.charCodeAt(p + 3) === 0x2d) {
      const e = commentEnd(html, p + 4);
      if (e < 0) break; // the rest is a comment
      p = e;
      continue;
    }
    const close = c1 === 0x2f;
    const n0 = p + (close ? 2 : 1);
    const name = nameAtTag(html, n0);
    if (!name) {
      p++;
      continue;
    }
    if (close) {
      if ((name === 'svg' || name === 'math') && foreign > 0) foreign--;
      p = n0;
      continue; // other end tags: nothing to do
    }
    const gt = startTagEnd(html, n0 + name.length);
    if (gt < 0) break; // an unterminated start tag: htmlparser2 drops it, and the page ends there
    p = gt + 1;
    if (name === 'svg' || name === 'math') {
      if (html.charCodeAt(gt - 1) !== 0x2f) foreign++; // <svg/> closes itself in foreign content
      continue;
    }
    if (foreign > 0) continue; // foreign content: no raw text, scan on inside
    if (name === 'plaintext') break; // the rest of the page is text
    const from = gt + 1;
    const to = rawTextEnd(html, from, name);
    p = to;
    if (to === from || !tags.has(name)) continue;
    if (name === 'script' && /ld\+json/i.test(html.slice(n0, from))) continue;
    const q0 = quirk0f(from);
    const q1 = quirk1c(from);
    const co = name === 'script' ? commentOpen(from) : -1;
    if ((q0 >= 0 && q0 < to) || (q1 >= 0 && q1 < to) || (co >= 0 && co < to)) continue;
    parts.push(html.slice(last, from), CUT_PROBE);
    outLen += from - last;
    cuts.push({ at: outLen, tag: name });
    outLen += CUT_PROBE.length;
    chars += to - from;
    last = to;
  }
  if (chars < need || !cuts.length) return none(chars);
  parts.push(html.slice(last));
  return { parts, cuts, chars };
}
