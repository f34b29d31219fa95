/**
 * Text in traditional script (issue 24 item 3; option `lexicon.script`, the preset `filmkw-rerank`):
 * the segmenter's dictionary, the KG lexicon, the stop words and the IDF table are in simplified script,
 * so a review written in traditional script (變形金剛, 嗩吶, 百鳥朝鳳) is cut into unknown pieces and
 * matches no KG entity. With `'simplified'` such a text is segmented, matched and ranked in a simplified
 * copy of the same length (opencc-js t → cn, the converter the evaluator's `--ts` folding uses), and every
 * output surface is taken back from the text as written at the same offsets (嗩吶 stays 嗩吶).
 *
 * Which texts: those with at least {@link MIN_TRADITIONAL} ideographs that are traditional-only (they
 * change under opencc's character table TSCharacters) and more than {@link TRADITIONAL_SHARE} of their
 * ideographs so — one pass over the code units with a table lookup; a simplified text (none or a few
 * variant characters such as 乾 or 於) is left as it is and costs nothing more. The conversion itself
 * (linear in the text; bench/README.md "Figures behind code comments") is paid only by the texts in
 * traditional script.
 *
 * The hooks of a call: `candidates` gets the surfaces as written too; `inspect` sees the tokens of the
 * simplified copy (their offsets are the text's). Pure: a function of the text.
 */
import { Converter } from 'opencc-js/t2cn';
import { configs } from 'opencc-js/preset/t2cn';
import type { ExtractCallOptions, Keyword } from './api.js';

/** Values of `lexicon.script`. */
export const SCRIPT_RULES = ['asWritten', 'simplified'] as const;

/** A text is in traditional script with at least this many traditional-only ideographs … */
export const MIN_TRADITIONAL = 2;
/** … and more than this share of its ideographs traditional-only. */
export const TRADITIONAL_SHARE = 0.01;

let table: Uint16Array | null = null;
let convert: ((s: string) => string) | null = null;

/**
 * Code unit → its simplified code unit (0: unchanged), from the one-character entries of opencc's t2s
 * character dictionaries (TSCharacters; built once).
 */
function characterTable(): Uint16Array {
  if (table) return table;
  const t = new Uint16Array(0x10000);
  for (const group of configs.t2s.conversionChain) {
    for (const dict of group) {
      const entries = typeof dict === 'string' ? dict.split('|').map((e) => e.split(' ')) : dict;
      for (const [from, to] of entries) if (from.length === 1 && to !== undefined && to.length === 1 && from !== to) t[from.charCodeAt(0)] = to.charCodeAt(0);
    }
  }
  return (table = t);
}

/** Whether the code unit is an ideograph of the CJK Unified Ideographs block or its extension A. */
const isIdeograph = (c: number): boolean => (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf);

/** Whether the text is in traditional script (module header). */
export function isTraditional(text: string): boolean {
  const t = characterTable();
  let ideographs = 0;
  let traditional = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!isIdeograph(c)) continue;
    ideographs++;
    if (t[c] !== 0) traditional++;
  }
  return traditional >= MIN_TRADITIONAL && traditional > ideographs * TRADITIONAL_SHARE;
}

/**
 * The simplified copy of a text in traditional script, of the same length (UTF-16), or null when the text
 * is not in traditional script. opencc's phrase-aware conversion when it keeps the length (乾隆 stays,
 * 乾淨 → 干净), else character by character.
 */
export function simplifiedCopy(text: string): string | null {
  if (!isTraditional(text)) return null;
  const toSimplified = (convert ??= Converter({ from: 't', to: 'cn' }));
  const full = toSimplified(text);
  if (full.length === text.length) return full;
  const t = characterTable();
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out += t[c] !== 0 ? String.fromCharCode(t[c]) : text[i];
  }
  return out;
}

/**
 * A surface of the simplified copy as written in the text: the text at the offsets of its first
 * occurrence in the copy (the two have the same length); the surface itself when the copy lacks it.
 */
export function surfaceAsWritten(surface: string, text: string, copy: string): string {
  const at = copy.indexOf(surface);
  return at < 0 ? surface : text.slice(at, at + surface.length);
}

/** The keywords of the simplified copy with their surfaces (and their explanation's words) as written, in place. */
export function keywordsAsWritten(keywords: Keyword[], text: string, copy: string): Keyword[] {
  const asWritten = (w: string): string => surfaceAsWritten(w, text, copy);
  for (const k of keywords) {
    k.word = asWritten(k.word);
    if (!k.explain) continue;
    for (const n of k.explain.neighbours) n.word = asWritten(n.word);
    for (const w of k.explain.phrase?.words ?? []) w.word = asWritten(w.word);
  }
  return keywords;
}

/** The call options with the `candidates` hook given the surfaces as written (the other hooks see the copy). */
export function callAsWritten(call: ExtractCallOptions | undefined, text: string, copy: string): ExtractCallOptions | undefined {
  const hook = call?.candidates;
  if (!hook) return call;
  return { ...call, candidates: (list) => hook(list.map((c) => ({ text: surfaceAsWritten(c.text, text, copy), scored: c.scored }))) };
}
