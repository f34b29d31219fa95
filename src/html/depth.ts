/**
 * A cap on the nesting depth htmlparser2 builds, applied between its tokenizer and its parser.
 *
 * htmlparser2's Parser keeps its open elements in an array that it grows with `unshift` and searches with
 * `indexOf`, so each start and end tag costs time in the current depth: a page of n nested `<div>`s takes
 * time in n² (issue 26: a page of nested divs under the crawler's 5 MiB cap took minutes; bench/README.md
 * "Figures behind code comments").
 * Recursive tree walks (domutils, the structural record finder) also overflow the call stack on such a
 * tree.
 *
 * {@link cappedParser} gives the Parser a tokenizer (its `Tokenizer` option) whose events pass through a
 * filter that knows the parser's current depth (counted from the open and close events the parser sends
 * to its handler, which mirror its stack exactly). A start tag that would open an element below
 * {@link NESTING_DEFAULTS.maxDepth} levels is dropped with its attributes, and so is the end tag that
 * matches it (per tag name, the most recent dropped one); the text inside stays, in the element at the
 * cap. The tree is flattened there, as Blink's HTML parser does beyond 512 levels. The parser's stack
 * never holds more than `maxDepth + 1` elements, so parsing is linear in the page for any input.
 *
 * The one exception is a raw-text element (script, style, title, textarea, …) opened right at the cap:
 * the tokenizer reads its contents as text whatever the parser does, so dropping it would put script
 * source into the page text. It is passed on (one level more, and no tag can follow inside it). Below
 * `maxDepth + 1` every tag is dropped.
 *
 * Pages up to the cap are parsed exactly as without it: the filter passes every event through unchanged
 * (the real pages of ../shared/data/html nest at most 39 levels).
 */
import { Parser, Tokenizer, type Handler, type ParserOptions, type TokenizerCallbacks } from 'htmlparser2';
import { usageError } from '../errors.js';

/** Defaults of the depth cap (frozen). */
export const NESTING_DEFAULTS = Object.freeze({
  /** Deepest nesting the parser builds; deeper start tags are dropped (Blink's parser limit). @default 512 */
  maxDepth: 512,
});

/** Valid range of a depth cap (a test may go lower; above 100,000 the cap no longer bounds the work). */
const DEPTH_RANGE = [8, 100_000] as const;

/** What the cap did on one page. */
export interface DepthCapStats {
  /** Start tags dropped because they would have opened an element below the cap. */
  dropped: number;
  /** Deepest stack of open elements the parser held. */
  maxDepth: number;
}

/** Elements whose contents the tokenizer reads as raw text (htmlparser2's special tags). */
const RAW_TEXT: ReadonlySet<string> = new Set(['script', 'style', 'title', 'textarea', 'iframe', 'noembed', 'noframes', 'xmp', 'plaintext']);
/** Void elements: no end tag is expected for them, so a dropped one leaves nothing to match. */
const VOID: ReadonlySet<string> = new Set(['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/** The handler methods the Parser may call (htmlparser2's `Handler`). */
const HANDLER_EVENTS = [
  'onparserinit', 'onreset', 'onend', 'onerror', 'onclosetag', 'onopentagname', 'onattribute', 'onopentag',
  'ontext', 'oncomment', 'oncdatastart', 'oncdataend', 'oncommentend', 'onprocessinginstruction',
] as const satisfies readonly (keyof Handler)[];

/** The part of the tokenizer's text the filter reads tag names from (the chunks as written, no copy). */
class Chunks {
  private readonly parts: string[] = [];
  private readonly starts: number[] = [];
  private end = 0;

  add(chunk: string): void {
    this.parts.push(chunk);
    this.starts.push(this.end);
    this.end += chunk.length;
  }

  slice(start: number, end: number): string {
    let i = this.parts.length - 1;
    while (i > 0 && this.starts[i]! > start) i--;
    let s = '';
    for (; i < this.parts.length && this.starts[i]! < end; i++) s += this.parts[i]!.slice(Math.max(0, start - this.starts[i]!), end - this.starts[i]!);
    return s;
  }
}

type HeldEvent = [name: 'onattribname' | 'onattribdata' | 'onattribend', a: number, b: number] | [name: 'onattribentity', cp: number];

/**
 * Sits between the tokenizer and the parser: passes every event on while the parser is above the cap;
 * at the cap it holds a start tag's events until the tag ends, then passes them on or drops them.
 */
class DepthFilter implements TokenizerCallbacks {
  chunks = new Chunks();
  /** The parser's depth, kept by the counting handler. */
  depth = 0;
  readonly stats: DepthCapStats = { dropped: 0, maxDepth: 0 };
  /** Dropped start tags whose end tag has not come yet, by name. */
  private readonly pending = new Map<string, number>();
  /** The start tag being held at the cap: its name position, its name, its attribute events. */
  private held: { start: number; end: number; name: string; events: HeldEvent[] } | null = null;

  constructor(
    private readonly parser: TokenizerCallbacks,
    private readonly cap: number,
  ) {}

  onopentagname(start: number, end: number): void {
    if (this.depth < this.cap) return this.parser.onopentagname(start, end);
    this.held = { start, end, name: this.chunks.slice(start, end).toLowerCase(), events: [] };
  }

  onopentagend(endIndex: number): void {
    const h = this.held;
    if (!h) return this.parser.onopentagend(endIndex);
    this.held = null;
    // a raw-text element at the cap: its text must stay out of the page text (see the header)
    if (this.depth === this.cap && RAW_TEXT.has(h.name) && !this.parser.isInForeignContext?.()) {
      this.replay(h);
      return this.parser.onopentagend(endIndex);
    }
    this.drop(h.name);
  }

  onselfclosingtag(endIndex: number): void {
    const h = this.held;
    if (!h) return this.parser.onselfclosingtag(endIndex);
    this.held = null;
    this.drop(h.name);
  }

  onclosetag(start: number, end: number): void {
    if (this.pending.size > 0) {
      const name = this.chunks.slice(start, end).toLowerCase();
      const n = this.pending.get(name);
      if (n !== undefined) {
        if (n > 1) this.pending.set(name, n - 1);
        else this.pending.delete(name);
        return;
      }
    }
    this.parser.onclosetag(start, end);
  }

  onattribname(start: number, end: number): void {
    if (this.held) this.held.events.push(['onattribname', start, end]);
    else this.parser.onattribname(start, end);
  }

  onattribdata(start: number, end: number): void {
    if (this.held) this.held.events.push(['onattribdata', start, end]);
    else this.parser.onattribdata(start, end);
  }

  onattribend(quote: number, end: number): void {
    if (this.held) this.held.events.push(['onattribend', quote, end]);
    else this.parser.onattribend(quote, end);
  }

  onattribentity(cp: number): void {
    if (this.held) this.held.events.push(['onattribentity', cp]);
    else this.parser.onattribentity(cp);
  }

  oncdata(start: number, end: number, offset: number): void {
    this.parser.oncdata(start, end, offset);
  }

  oncomment(start: number, end: number, offset: number): void {
    this.parser.oncomment(start, end, offset);
  }

  ondeclaration(start: number, end: number): void {
    this.parser.ondeclaration(start, end);
  }

  onprocessinginstruction(start: number, end: number): void {
    this.parser.onprocessinginstruction(start, end);
  }

  ontext(start: number, end: number): void {
    this.parser.ontext(start, end);
  }

  ontextentity(cp: number, end: number): void {
    this.parser.ontextentity(cp, end);
  }

  onend(): void {
    this.parser.onend();
  }

  isInForeignContext(): boolean {
    return this.parser.isInForeignContext?.() ?? false;
  }

  private drop(name: string): void {
    this.stats.dropped++;
    if (!VOID.has(name)) this.pending.set(name, (this.pending.get(name) ?? 0) + 1);
  }

  private replay(h: { start: number; end: number; events: HeldEvent[] }): void {
    this.parser.onopentagname(h.start, h.end);
    for (const e of h.events) {
      if (e[0] === 'onattribentity') this.parser.onattribentity(e[1]);
      else this.parser[e[0]](e[1], e[2]);
    }
  }
}

/** Checks a depth cap given as an option: FilmkwError USAGE when it is not an integer in range. */
export function checkMaxDepth(v: number, what = 'maxDepth'): number {
  if (!Number.isInteger(v) || v < DEPTH_RANGE[0] || v > DEPTH_RANGE[1]) throw usageError(`${what} must be an integer in [${DEPTH_RANGE[0]}, ${DEPTH_RANGE[1]}], got ${v}`);
  return v;
}

/**
 * An htmlparser2 Parser for `handler` whose tree is at most `maxDepth` levels deep (see the header);
 * `stats` fills in as the parser runs.
 */
export function cappedParser(handler: Partial<Handler>, options: ParserOptions = {}, maxDepth: number = NESTING_DEFAULTS.maxDepth): { parser: Parser; stats: DepthCapStats } {
  const cap = checkMaxDepth(maxDepth);
  let filter: DepthFilter | null = null;
  const counting: Partial<Handler> = {};
  for (const k of HANDLER_EVENTS) {
    const f = handler[k];
    if (typeof f === 'function') (counting as Record<string, unknown>)[k] = f.bind(handler);
  }
  // every element the parser pushes is announced by onopentagname and every pop by onclosetag (void
  // elements get both at once), so the difference is the length of its stack
  counting.onopentagname = (name) => {
    const d = ++filter!.depth;
    if (d > filter!.stats.maxDepth) filter!.stats.maxDepth = d;
    handler.onopentagname?.(name);
  };
  counting.onclosetag = (name, implied) => {
    filter!.depth--;
    handler.onclosetag?.(name, implied);
  };
  class CappedTokenizer extends Tokenizer {
    constructor(opts: ConstructorParameters<typeof Tokenizer>[0], parser: TokenizerCallbacks) {
      filter = new DepthFilter(parser, cap);
      super(opts, filter);
    }

    override write(chunk: string): void {
      filter!.chunks.add(chunk);
      super.write(chunk);
    }

    override reset(): void {
      super.reset();
      filter!.chunks = new Chunks(); // offsets start again at 0, the parser empties its stack
      filter!.depth = 0;
    }
  }
  const parser = new Parser(counting, { ...options, Tokenizer: CappedTokenizer });
  return { parser, stats: filter!.stats };
}
