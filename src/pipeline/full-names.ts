/**
 * The full form of a name over its short form when both are candidates (issue 24 item 3; option
 * `phrases.fullNames`, read by the re-ranking stage): the guideline asks for "the fullest form that
 * appears" (堀越二郎, not 堀越; 游天鸣, not 天鸣), but the model scores the two as separate candidates and
 * the short form, said more often, is often ranked higher; two words do not even hide each other (沈梦溪
 * and 梦溪 both in the top 5). Under this rule a short name gives its place to the best full form among the
 * pooled candidates: the full form takes the higher of the two logits and the short form is not output.
 *
 * A short name is a word (not a phrase) that names a person or character of the KG or is tagged as a name
 * (nr…), an unknown word (x: the segmenter's HMM names) or a Latin word. A full form of it is a longer
 * candidate containing its surface that is
 * - a word naming a person or character, or tagged nr… or x (游天鸣/x, 哈利波特/nr);
 * - a name joined by a name dot or a space (约尔•巴瑞斯, Tony Stark);
 * - under `'affix'` also a compound of the short name and at most {@link AFFIX_CHARACTERS} more characters
 *   before or after it (陈+爱琳, 熊泽+二郎, 立花+泷).
 * Among several full forms the one with the highest logit wins (ties: the first). Read from the items'
 * feature vectors (rerank.ts), so the cross-validation applies the same rule (eval/rerank-train.ts).
 */
import { RERANK_FEATURES } from './rerank.js';
import type { PhraseOptions } from './phrases.js';

type FullNameRule = PhraseOptions['fullNames'];

/** Under `'affix'`, a compound is a full form when it adds at most this many characters to the short name. */
export const AFFIX_CHARACTERS = 2;

const at = (f: string): number => RERANK_FEATURES.indexOf(f as never);
const PERSON = at('person');
const CHARACTER = at('character');
const POS_NAME = at('posName');
const POS_UNKNOWN = at('posUnknown');
const POS_LATIN = at('posLatin');
const PHRASE = at('phrase');
const JOINED = at('phraseJoined');

/** A pooled candidate as the rule reads it: its surface and its feature vector. */
export interface NameItem {
  readonly text: string;
  readonly x: ArrayLike<number>;
}

const personish = (x: ArrayLike<number>): boolean => x[PERSON] === 1 || x[CHARACTER] === 1;

/** Whether the item is a short name (module header). */
function isShortName(x: ArrayLike<number>): boolean {
  return x[PHRASE] !== 1 && (personish(x) || x[POS_NAME] === 1 || x[POS_UNKNOWN] === 1 || x[POS_LATIN] === 1);
}

/** Whether `long` is a full form of the short name `short` (module header). */
function isFullForm(long: NameItem, short: NameItem, rule: FullNameRule): boolean {
  if (long.text.length <= short.text.length || !long.text.includes(short.text)) return false;
  const x = long.x;
  if (x[PHRASE] !== 1) return personish(x) || x[POS_NAME] === 1 || x[POS_UNKNOWN] === 1;
  if (x[JOINED] === 1) return true;
  return rule === 'affix' && long.text.length - short.text.length <= AFFIX_CHARACTERS && (long.text.startsWith(short.text) || long.text.endsWith(short.text));
}

/**
 * The values with every short name's place given to its best full form (module header), as a new
 * array: the full form gets the larger of the two values, the short name NaN (never selected). The same
 * array for `'off'`.
 */
export function preferFullNames(items: readonly NameItem[], values: readonly number[], rule: FullNameRule): readonly number[] {
  if (rule === 'off') return values;
  const out = values.slice();
  for (let i = 0; i < items.length; i++) {
    if (Number.isNaN(out[i]) || !isShortName(items[i].x)) continue;
    // a full form that already gave its own place to a longer one is passed over (天明 → 吴天明 → …)
    let best = -1;
    for (let j = 0; j < items.length; j++) {
      if (j === i || Number.isNaN(out[j]) || !isFullForm(items[j], items[i], rule)) continue;
      if (best < 0 || out[j] > out[best]) best = j;
    }
    if (best < 0) continue;
    out[best] = Math.max(out[best], out[i]);
    out[i] = NaN;
  }
  return out;
}
