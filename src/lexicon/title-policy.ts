/**
 * Title policy: film titles (and character names) that are also common words — 英雄, 活着, 家, 春天,
 * 无双, 归来, 人质 … — must not turn every review that uses the word into a review "about" that film.
 * The paper matches every candidate against the MKG by surface string (spec §1.6) and does not address
 * this; with a real KG of thousands of titles it makes ordinary words KG entities with KG edges and
 * semantic weight. Design ([RECON], ours):
 *
 * 1. A name is **common** when it is a word of the segmenter's base dictionary (jieba.dict.utf8, the
 *    general-language lexicon, *not* the KG user dictionary) and either has at most `commonMaxLength`
 *    code points or a dictionary frequency ≥ `commonMinFreq`; a single character is always common.
 *    Measured on the 4,504 titles of the OpenKG douban-movie KG: 1,004 are base-dictionary words; the
 *    ≤ 2-character ones are ordinary words at every frequency (10–29: 告白, 野火, 晚秋; ≥ 1,000: 活着,
 *    母亲, 地铁), the 3+-character ones are mostly proper titles below frequency 100 (霸王别姬 27,
 *    红高粱 14, 泰坦尼克号 ~40) and mostly ordinary above (理发师, 人工智能, 幸存者), so the defaults
 *    are 2 and 100.
 *    1b. Also common: a name that is not a base-dictionary word but an ordinary phrase made of them —
 *    at most `commonPhraseMaxLength` (3) code points whose max-probability split has ≥ 2 pieces,
 *    each of frequency ≥ `commonMinFreq` (a single character ≥ 50,000): 来了, 一个人, 那个人, 小男孩
 *    (found as Movie entities in plain sentences of the Douban reviews: 一个人 was a "Movie" keyword
 *    in 6 of them). The lexicon export leaves such names out (src/lexicon/dict.ts `commonPhrases`), so they
 *    are not even tokens. Measured (preset filmkw): F1@5 unchanged on film-dev (0.4644) and csl-dev
 *    (0.1455), F1@1–3 within ±0.002 (no such phrase is a gold keyword there); it removes false entity
 *    keywords from ordinary sentences (他终于来了 no longer yields the Movie 来了).
 * 2. Policy for an entity of a kind in `kinds` (default Movie and Character) whose matched surface is
 *    common:
 *    - `'contextual'` (default): accept it only when the word occurs in 《》 in the document (exactly
 *      bracketed: 《活着》), or when the entity is a KG neighbour of a *firm* entity of another
 *      candidate in the document (an entity that is not itself subject to the policy, or is accepted
 *      by its brackets, and is not a Genre: 剧情 is a neighbour of most films and is no evidence) —
 *      活着 next to 余华 or 葛优 is the film, 活着 alone is a verb;
 *    - `'always'`: accept it (the paper's behaviour);
 *    - `'never'`: reject it.
 *    A rejected entity is removed from the word's entity set; a word left without entities is an
 *    ordinary candidate (no KG edges, no semantic weight, no `kind`/`entityId`).
 * Segmentation is not affected: the lexicon (E1's user dictionary) decides tokens; this decides which
 * tokens denote entities.
 */
import { readFileSync } from 'node:fs';
import { nodejiebaDefaultFiles } from './base.js';
import type { EntityKind, KgView } from '../kg/model.js';
import { ENTITY_KINDS, normalizeName } from '../kg/model.js';
import { splitRoute } from './user-dict.js';
import { sortedHas } from '../util/sorted.js';
import type { OptionRules } from '../util/option-rules.js';

export const TITLE_POLICIES = ['contextual', 'always', 'never'] as const;

/** Options of the title policy (group `titles`). */
export interface TitlePolicyOptions {
  /**
   * What to do with a common-word title (see module header).
   * @default 'contextual'
   */
  titlePolicy: (typeof TITLE_POLICIES)[number];
  /**
   * Entity kinds the policy applies to.
   * @default ['Movie', 'Character']
   */
  titleKinds: EntityKind[];
  /**
   * A base-dictionary word with at least this frequency is common.
   * @default 100
   */
  commonMinFreq: number;
  /**
   * A base-dictionary word of at most this many code points is common at any frequency.
   * @default 2
   */
  commonMaxLength: number;
  /**
   * Rule 1b: a name that is not a base word but made of common ones (来了, 一个人) is common when it has
   * at most this many code points; 0 or 1 turns the rule off.
   * @default 3
   */
  commonPhraseMaxLength: number;
}

export const DEFAULT_TITLE_POLICY_OPTIONS: Readonly<TitlePolicyOptions> = Object.freeze({
  titlePolicy: 'contextual',
  titleKinds: Object.freeze(['Movie', 'Character']) as EntityKind[],
  commonMinFreq: 100,
  commonMaxLength: 2,
  commonPhraseMaxLength: 3,
});

export const TITLE_POLICY_OPTION_RULES: OptionRules<TitlePolicyOptions> = Object.freeze({
  titlePolicy: { type: 'enum', values: TITLE_POLICIES },
  titleKinds: { type: 'subset', values: ENTITY_KINDS },
  commonMinFreq: { type: 'number', min: 0, max: 1e9 },
  commonMaxLength: { type: 'number', min: 0, max: 64, integer: true },
  commonPhraseMaxLength: { type: 'number', min: 0, max: 64, integer: true },
});

/** Path of the base jieba dictionary shipped with nodejieba (the same lexicon @node-rs/jieba embeds). */
export function defaultBaseDictionary(): string {
  return nodejiebaDefaultFiles().dict;
}

/**
 * Frequencies in a jieba-format dictionary ("word freq [tag]" per line) of the words in `wanted` only
 * (a KG's names), so the map stays small.
 */
export function dictionaryFrequencies(path: string, wanted: ReadonlySet<string> | null): Map<string, number> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`title-policy: cannot read the base dictionary ${path}: ${(e as Error).message}`);
  }
  const out = new Map<string, number>();
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const space = text.indexOf(' ', at);
    const wordEnd = space >= 0 && space < end ? space : end;
    const word = text.slice(at, wordEnd).trim();
    if (wanted === null || wanted.has(word)) {
      const freqEnd = text.indexOf(' ', wordEnd + 1);
      const freq = Number(text.slice(wordEnd + 1, freqEnd >= 0 && freqEnd < end ? freqEnd : end));
      out.set(word, Number.isFinite(freq) ? freq : 0);
    }
    at = end + 1;
  }
  return out;
}

/** Whether a name counts as a common word (rule 1 of the module header). */
export function isCommonWord(name: string, frequency: number | undefined, options: Pick<TitlePolicyOptions, 'commonMinFreq' | 'commonMaxLength'>): boolean {
  const length = [...name].length;
  if (length <= 1) return true;
  if (frequency === undefined) return false;
  return length <= options.commonMaxLength || frequency >= options.commonMinFreq;
}

/** A single character counts as a common piece of a phrase only at this base-dictionary frequency (了 883,634, 来 161,501, 人 313,209, 看 66,641; 李 9,566, 白 12,266). */
export const COMMON_CHARACTER_MIN_FREQ = 50_000;

/**
 * Rule 1b: a name that is not a base-dictionary word but an ordinary phrase made of them — 来了 (来/了),
 * 一个人 (一个/人), 那个人, 小男孩 — is common too: at most `maxLength` code points, and the
 * max-probability split of the base dictionary (jieba's DAG route, the name itself excluded) has ≥ 2
 * pieces, each a word of frequency ≥ `minFreq` (a single character: ≥ COMMON_CHARACTER_MIN_FREQ, so
 * names such as 李想 = 李/想 or 小白 = 小/白 stay proper names). Longer names of common words are
 * mostly real titles (花样年华, 重庆森林, 黑客帝国) and are not affected.
 */
export function isCommonPhrase(name: string, freq: ReadonlyMap<string, number>, minFreq: number, maxLength: number): boolean {
  const n = [...name].length;
  if (n < 2 || n > maxLength) return false;
  const route = splitRoute(name, freq, LOG_TOTAL);
  if (route === null) return false;
  return route.pieces.every((piece) => (freq.get(piece) ?? 0) >= ([...piece].length === 1 ? COMMON_CHARACTER_MIN_FREQ : minFreq));
}
/** log of the base dictionary's total frequency (jieba's dict.txt ≈ 60.1 M); a constant per piece, so the route is jieba's. */
const LOG_TOTAL = Math.log(60_101_967);

/**
 * Frequencies of the base dictionary: a jieba-format file (read for the KG's names only), or an
 * already parsed table (the segmenter backend's base lexicon, src/lexicon/base.ts `baseLexicon`) with an id
 * that names it.
 */
export type FrequencySource = string | { id: string; freq: ReadonlyMap<string, number> };

/**
 * The names (and aliases) of entities of the policy kinds that are common words: a pure function of
 * (dictionary, KG content, options), computed on each call (createExtractor keeps it in the caller's
 * DiskCache when it has one).
 */
export function commonEntityNames(kg: KgView, options: TitlePolicyOptions, source: FrequencySource = defaultBaseDictionary()): ReadonlySet<string> {
  const maxPhrase = options.commonPhraseMaxLength ?? 0;
  const wanted = new Set<string>();
  for (const { name, kinds } of kg.names()) if (kinds.some((k) => options.titleKinds.includes(k))) wanted.add(name);
  const phrases = maxPhrase >= 2;
  const freq = typeof source === 'string' ? dictionaryFrequencies(source, phrases ? null : wanted) : source.freq;
  const common = new Set<string>();
  for (const name of wanted) {
    const f = freq.get(name);
    if (isCommonWord(name, f, options) || (phrases && f === undefined && isCommonPhrase(name, freq, options.commonMinFreq, maxPhrase))) common.add(name);
  }
  return common;
}

/**
 * The test of rules 1 and 1b as a predicate on one name (the KG import drops aliases that are common words,
 * src/kg/aliases.ts): the whole base dictionary is read once, when the predicate is made.
 */
export function commonWordTest(
  options: Pick<TitlePolicyOptions, 'commonMinFreq' | 'commonMaxLength' | 'commonPhraseMaxLength'> = DEFAULT_TITLE_POLICY_OPTIONS,
  source: FrequencySource = defaultBaseDictionary(),
): (name: string) => boolean {
  const freq = typeof source === 'string' ? dictionaryFrequencies(source, null) : source.freq;
  const maxPhrase = options.commonPhraseMaxLength ?? 0;
  return (name: string) => {
    const f = freq.get(name);
    return isCommonWord(name, f, options) || (maxPhrase >= 2 && f === undefined && isCommonPhrase(name, freq, options.commonMinFreq, maxPhrase));
  };
}

/** Where a word occurs: the node's occurrences as UTF-16 [start, end) offsets into the text. */
export interface PolicyContext {
  text: string;
  words: readonly string[];
  /** Node index of each candidate occurrence. */
  node: Int32Array;
  /** UTF-16 start of each occurrence. */
  charStart: Int32Array;
}

/** Which of the words subject to the policy have at least one occurrence bracketed exactly by 《》 (the others: 0). */
function bracketedNodes(context: PolicyContext, subject: readonly (Uint8Array | null)[]): Uint8Array {
  const out = new Uint8Array(context.words.length);
  const { text, node, charStart } = context;
  for (let k = 0; k < node.length; k++) {
    if (subject[node[k]] === null) continue;
    const start = charStart[k];
    const end = start + context.words[node[k]].length;
    if (start > 0 && text.charCodeAt(start - 1) === 0x300a && text.charCodeAt(end) === 0x300b) out[node[k]] = 1;
  }
  return out;
}

/**
 * Apply the title policy to the entity sets of a document's words (rule 2 of the module header).
 * @param entities per word: matched entity indices or null
 * @param common from {@link commonEntityNames}
 */
export function applyTitlePolicy(
  entities: readonly (Int32Array | null)[],
  kg: KgView,
  context: PolicyContext,
  common: ReadonlySet<string>,
  options: Pick<TitlePolicyOptions, 'titlePolicy' | 'titleKinds'>,
): (Int32Array | null)[] {
  if (options.titlePolicy === 'always' || common.size === 0) return entities.slice();
  const n = entities.length;
  // which (word, entity) pairs are subject to the policy
  let subject: (Uint8Array | null)[] | null = null;
  for (let i = 0; i < n; i++) {
    const set = entities[i];
    if (set === null || !common.has(normalizeName(context.words[i]))) continue;
    let flags: Uint8Array | null = null;
    for (let k = 0; k < set.length; k++) {
      if (options.titleKinds.includes(kg.kindOf(set[k]))) (flags ??= new Uint8Array(set.length))[k] = 1;
    }
    if (flags !== null) (subject ??= new Array<Uint8Array | null>(n).fill(null))[i] = flags;
  }
  if (subject === null) return entities.slice();
  const contextual = options.titlePolicy === 'contextual';
  const bracketed = contextual ? bracketedNodes(context, subject) : null;
  // firm entities: not subject to the policy, or accepted by brackets, and not a Genre
  const isFirm = (i: number, k: number): boolean => {
    const flags = subject[i];
    return (flags === null || bracketed?.[i] === 1 || flags[k] === 0) && kg.kindOf(entities[i]![k]) !== 'Genre';
  };
  let firmCount: Map<number, number> | null = null;
  /** How many times each entity is firm, over all words (computed when a pair first needs it). */
  const firmCounts = (): Map<number, number> => {
    if (firmCount !== null) return firmCount;
    firmCount = new Map();
    for (let j = 0; j < n; j++) {
      const set = entities[j];
      if (set === null) continue;
      for (let k = 0; k < set.length; k++) if (isFirm(j, k)) firmCount.set(set[k], (firmCount.get(set[k]) ?? 0) + 1);
    }
    return firmCount;
  };
  return entities.map((set, i) => {
    const flags = subject[i];
    if (!set || !flags) return set;
    if (bracketed?.[i]) return set;
    const kept: number[] = [];
    let own: number[] | null = null;
    for (let k = 0; k < set.length; k++) {
      const e = set[k];
      if (!flags[k]) {
        kept.push(e);
        continue;
      }
      if (!contextual) continue;
      // Related: a KG neighbour f ≠ e of e is firm for some other word (its firm count beyond this word's own).
      const counts = firmCounts();
      if (own === null) {
        own = [];
        for (let x = 0; x < set.length; x++) if (isFirm(i, x)) own.push(set[x]);
      }
      const elsewhere = (f: number): boolean => {
        const c = counts.get(f);
        if (c === undefined) return false;
        let mine = 0;
        for (const g of own!) if (g === f) mine++;
        return c > mine;
      };
      const nb = kg.neighbours(e);
      let related = false;
      if (nb.length <= counts.size) {
        for (let x = 0; x < nb.length && !related; x++) related = nb[x] !== e && elsewhere(nb[x]);
      } else {
        for (const f of counts.keys()) {
          if (f !== e && sortedHas(nb, f) && elsewhere(f)) {
            related = true;
            break;
          }
        }
      }
      if (related) kept.push(e);
    }
    return kept.length === 0 ? null : kept.length === set.length ? set : Int32Array.from(kept);
  });
}
