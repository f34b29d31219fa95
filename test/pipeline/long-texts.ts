/**
 * Long seeded texts without punctuation for the linear-work tests (issue 26): dictionary words of the
 * node-rs base dictionary run together (what a page of Chinese without punctuation looks like to the
 * segmenter: many words, unknown runs the HMM joins), and random CJK ideographs (U+4E00–U+9FA5). The same
 * (length, seed) gives the same text on every machine.
 */
import { nodeRsBaseDict } from '../../src/lexicon/base.js';
import { mulberry32 } from '../../src/util/random.js';

let words: string[] | null = null;

/** The base dictionary's words of 1 to 4 CJK characters. */
function dictWords(): string[] {
  if (words) return words;
  words = [];
  for (const line of nodeRsBaseDict().toString('utf8').split('\n')) {
    const w = line.slice(0, line.indexOf(' '));
    if (/^\p{Script=Han}{1,4}$/u.test(w)) words.push(w);
  }
  return words;
}

/** `n` characters of dictionary words run together. */
export function unpunctuatedText(n: number, seed: number): string {
  const list = dictWords();
  const rnd = mulberry32(seed);
  const parts: string[] = [];
  let length = 0;
  while (length < n) {
    const w = list[Math.floor(rnd() * list.length)];
    parts.push(w);
    length += w.length;
  }
  return parts.join('').slice(0, n);
}

/** `n` random CJK ideographs. */
export function randomCjk(n: number, seed: number): string {
  const rnd = mulberry32(seed);
  const codes = new Uint16Array(n);
  for (let i = 0; i < n; i++) codes[i] = 0x4e00 + Math.floor(rnd() * (0x9fa5 - 0x4e00 + 1));
  let s = '';
  for (let i = 0; i < n; i += 8192) s += String.fromCharCode(...codes.subarray(i, i + 8192));
  return s;
}
