/**
 * The KG user dictionary (paper §2.1: the MKG entity set is the segmenter's user dictionary, so that
 * 肖申克的救赎 is not cut into 肖申克/的/救赎; ablation "W").
 *
 * Output format: one `word freq tag` line per name (see ./user-dict.ts), sorted by
 * word (UTF-16 code-unit order), UTF-8, `\n` line ends. Both backends load it (`createSegmenter({ userDict })`),
 * and nodejieba can load it directly (`nodejieba.load({ userDict })`).
 *
 * Policy, per name and alias of the KG (`KgView.names()`, already normalised: NFKC, trimmed):
 * - **Tag** by entity kind: Movie → `nz` (专名, as jieba tags titles), Person → `nr`, Character → `nr`,
 *   Genre → `n` (genres are ordinary nouns: 剧情, 喜剧, 战争). A name of several kinds takes the tag of
 *   the first kind in the order Movie, Person, Character, Genre.
 * - **Frequency**: the smallest frequency that makes the name beat its own split in the base
 *   dictionary (jieba's `suggest_freq(word, tune=True)`: 1 + ⌊total · Π P(piece)⌋ over the max-probability
 *   split of the name *without* itself), times `freqMargin`, and never below the name's base frequency.
 *   A fixed large frequency (jieba's usual advice) also wins, but it makes every short name (王刚,
 *   大海) eat its neighbours in ordinary text ("大王刚才" → 大/王刚/才). Measured in
 *   dictionaries/README.md (round-trip rate in 4 neutral contexts and collateral changes of non-name
 *   tokens on 2,329 real texts, by policy); the default margin is the smallest with a full round trip.
 * - **Skipped** (each reported with the reason): names with whitespace (the format is space-separated
 *   and the segmenters split at spaces: The Shawshank Redemption); names without any Han character
 *   (Avatar, 2046: the segmenters already keep a Latin/digit run as one token, and a dictionary entry
 *   would split longer runs: Up → Up/date); single characters (家, 灵: common words by definition, an
 *   entry would only retag every occurrence, and cppjieba shields single-character user words from its
 *   HMM while jieba-rs does not, so the backends would differ); names of more than `maxLength` code points.
 * - **Compounds**: a name with a character the segmenters cannot hold in one token (·, ：, ，, ？, kana…;
 *   see `isHoldableWord`) is still written (nodejieba can hold some; `createSegmenter` merges the token
 *   run after tagging, identically in both backends). Its Han parts (between such characters) that are
 *   not base-dictionary words are added as entries of their own with the compound's tag
 *   (莱昂纳多·迪卡普里奥 → 迪卡普里奥 nr) so that the segmenters cut at the compound's ends. A name whose
 *   ASCII `: ; , ? ! ( )` come from NFKC is also written in the full-width form Chinese text uses
 *   (星球大战:新希望 → also 星球大战：新希望; the KG lookup normalises it back).
 * - **Common-word titles** (英雄, 活着, 家, 春天): a name is *common* when it is a base-dictionary word of
 *   at most `commonMaxLength` code points or with base frequency ≥ `commonMinFreq` (a single character
 *   always) — the same definition as the pipeline's title policy (src/lexicon/title-policy.ts). With
 *   `commonWordTitles: 'include'` (default, the paper) they are exported like any name (the segmentation
 *   is unchanged — they are words already — but the tag becomes nz/nr); with `'exclude'` the kinds in
 *   `commonWordKinds` are dropped for them, and a name left with no kind is skipped (reason
 *   `common word`). Which of those tokens denote entities is decided by the pipeline, not here.
 * - **Common phrases** (来了, 一个人, 那个人: not base-dictionary words but made of common ones, rule 1b
 *   of the title policy) whose kinds are all in `commonWordKinds` are skipped with `commonPhrases:
 *   'exclude'` (default): as entries they would cut every 他终于来了 into a title token.
 */
import { readFileSync, renameSync, writeFileSync, unlinkSync } from 'node:fs';
import type { EntityKind, KgView } from '../kg/model.js';
import { ENTITY_KINDS } from '../kg/model.js';
import { FilmkwError, usageError } from '../errors.js';
import { baseLexicon, DEFAULT_BACKEND, SEGMENTER_BACKENDS, type BaseLexicon, type SegmenterBackend } from './base.js';
import { isHoldableWord, splitRoute } from './user-dict.js';
import { isCommonPhrase } from './title-policy.js';
import { cmpStr } from '../util/sorted.js';

export interface ExportUserDictOptions {
  /**
   * Backend whose base dictionary decides frequencies and common words (the two bases differ in 67 of
   * ~349k entries).
   * @default DEFAULT_BACKEND ('node-rs')
   */
  backend: SegmenterBackend;
  /** POS tag per entity kind. @default { Movie: 'nz', Person: 'nr', Character: 'nr', Genre: 'n' } */
  tags: Readonly<Record<EntityKind, string>>;
  /**
   * Multiplier on the suggested frequency (see module header).
   * @default 1
   */
  freqMargin: number;
  /**
   * A fixed frequency for every name instead of the suggested one (measurement baseline). 0 = use the suggestion.
   * @default 0
   */
  fixedFreq: number;
  /** @default 'include' */
  commonWordTitles: 'include' | 'exclude';
  /** Kinds that `commonWordTitles: 'exclude'` removes from a common name. @default ['Movie', 'Character'] */
  commonWordKinds: readonly EntityKind[];
  /** @default 100 */
  commonMinFreq: number;
  /** @default 2 */
  commonMaxLength: number;
  /**
   * Names that are not base-dictionary words but ordinary phrases made of them (来了 = 来/了, 一个人 =
   * 一个/人; rule 1b of src/lexicon/title-policy.ts `isCommonPhrase`) and whose kinds are all in
   * `commonWordKinds`: `'exclude'` (default) leaves them out, so the text keeps its ordinary
   * segmentation instead of gaining a title token such as 来了 in every 他终于来了; `'include'` exports
   * them like any name (the paper).
   * @default 'exclude'
   */
  commonPhrases: 'include' | 'exclude';
  /** Longest common phrase, in code points (rule 1b). @default 3 */
  commonPhraseMaxLength: number;
  /** Add the non-word Han parts of compounds as entries (see module header). @default true */
  compoundParts: boolean;
  /**
   * Also write the full-width form of a name whose ASCII `: ; , ? ! ( )` come from NFKC normalisation
   * (星球大战:新希望 → 星球大战：新希望): Chinese text uses the full-width forms, and the KG lookup
   * normalises the token back to the KG name.
   * @default true
   */
  fullWidthVariants: boolean;
  /** Longest name exported, in code points. @default 40 */
  maxLength: number;
}

export const DEFAULT_EXPORT_OPTIONS: Readonly<ExportUserDictOptions> = Object.freeze({
  backend: DEFAULT_BACKEND,
  tags: Object.freeze({ Movie: 'nz', Person: 'nr', Character: 'nr', Genre: 'n' }),
  freqMargin: 1,
  fixedFreq: 0,
  commonWordTitles: 'include',
  commonWordKinds: Object.freeze(['Movie', 'Character'] as EntityKind[]),
  commonMinFreq: 100,
  commonMaxLength: 2,
  commonPhrases: 'exclude',
  commonPhraseMaxLength: 3,
  compoundParts: true,
  fullWidthVariants: true,
  maxLength: 40,
});

export interface SkippedName {
  name: string;
  reason: string;
}

export interface UserDictExport {
  /** `word freq tag` lines, sorted by word, no line ends. */
  lines: string[];
  /** Names not exported, with the reason, sorted by name. */
  skipped: SkippedName[];
  stats: {
    /** Distinct names and aliases offered by the KG. */
    names: number;
    /** Lines written (names + compound parts). */
    entries: number;
    /** Exported names that are compounds (merged after tagging). */
    compounds: number;
    /** Extra entries that are parts of compounds. */
    parts: number;
    /** Extra entries that are full-width variants of names. */
    variants: number;
    /** Exported names that are common words (see module header). */
    commonWords: number;
    skippedByReason: Record<string, number>;
  };
}


/**
 * jieba's `suggest_freq(word, tune=True)` against the base dictionary: the smallest integer frequency
 * with which `word` beats the max-probability split of `word` that does not use `word` itself; never
 * below the word's own base frequency.
 */
export function suggestFreq(word: string, lex: BaseLexicon): number {
  const n = [...word].length;
  const route = splitRoute(word, lex.freq, Math.log(lex.total), 1); // an unknown character counts once (jieba)
  const split = n <= 1 || route === null ? 0 : Math.floor(Math.exp(route.logProbability) * lex.total) + 1;
  return Math.max(split, lex.freq.get(word) ?? 1, 1);
}

/** Whether `name` is a common word of the base dictionary (see module header). */
export function isCommonWord(name: string, lex: BaseLexicon, opts: Pick<ExportUserDictOptions, 'commonMinFreq' | 'commonMaxLength'> = DEFAULT_EXPORT_OPTIONS): boolean {
  const len = [...name].length;
  if (len === 1) return true;
  const f = lex.freq.get(name);
  if (f === undefined) return false;
  return len <= opts.commonMaxLength || f >= opts.commonMinFreq;
}

const HAN = /\p{Script=Han}/u;
/** ASCII punctuation that NFKC folds from the full-width forms Chinese text uses. */
const FOLDED = /[:;,?!()]/u;
const FOLDED_ALL = /[:;,?!()]/gu;

function resolveOptions(opts: Partial<ExportUserDictOptions>): ExportUserDictOptions {
  const o: ExportUserDictOptions = { ...DEFAULT_EXPORT_OPTIONS, ...opts, tags: { ...DEFAULT_EXPORT_OPTIONS.tags, ...(opts.tags ?? {}) } };
  if (!(SEGMENTER_BACKENDS as readonly string[]).includes(o.backend)) {
    throw usageError(`dict: unknown backend ${JSON.stringify(o.backend)} (valid: ${SEGMENTER_BACKENDS.join(', ')})`);
  }
  if (!(o.freqMargin >= 1) || !Number.isFinite(o.freqMargin)) throw usageError(`dict: freqMargin must be a number ≥ 1, got ${o.freqMargin}`);
  if (!Number.isInteger(o.fixedFreq) || o.fixedFreq < 0) throw usageError(`dict: fixedFreq must be an integer ≥ 0, got ${o.fixedFreq}`);
  if (o.commonPhrases !== 'include' && o.commonPhrases !== 'exclude') {
    throw usageError(`dict: commonPhrases must be include or exclude, got ${JSON.stringify(o.commonPhrases)}`);
  }
  if (!Number.isInteger(o.commonPhraseMaxLength) || o.commonPhraseMaxLength < 0) {
    throw usageError(`dict: commonPhraseMaxLength must be an integer ≥ 0, got ${JSON.stringify(o.commonPhraseMaxLength)}`);
  }
  if (o.commonWordTitles !== 'include' && o.commonWordTitles !== 'exclude') {
    throw usageError(`dict: commonWordTitles must be include or exclude, got ${JSON.stringify(o.commonWordTitles)}`);
  }
  for (const k of ENTITY_KINDS) {
    if (!/^[A-Za-z]{1,8}$/u.test(o.tags[k])) throw usageError(`dict: tag for ${k} must be 1-8 ASCII letters, got ${JSON.stringify(o.tags[k])}`);
  }
  return o;
}

/** Build the user dictionary of a KG (see module header). Deterministic for a given KG and options. */
export function exportUserDict(kg: KgView, opts: Partial<ExportUserDictOptions> = {}): UserDictExport {
  const o = resolveOptions(opts);
  const lex = baseLexicon(o.backend);
  // name → kinds (union; names() may list a name more than once)
  const kindsOf = new Map<string, Set<EntityKind>>();
  for (const { name, kinds } of kg.names()) {
    let s = kindsOf.get(name);
    if (!s) kindsOf.set(name, (s = new Set()));
    for (const k of kinds) s.add(k);
  }
  const entries = new Map<string, { freq: number; tag: string }>();
  const skipped: SkippedName[] = [];
  const partsWanted = new Map<string, string>(); // part → tag (first compound in name order)
  const variantsWanted = new Map<string, string>(); // full-width variant → tag
  let compounds = 0;
  let commonWords = 0;
  const freqOf = (w: string): number => (o.fixedFreq > 0 ? o.fixedFreq : Math.max(Math.ceil(suggestFreq(w, lex) * o.freqMargin), lex.freq.get(w) ?? 1));
  for (const name of [...kindsOf.keys()].sort(cmpStr)) {
    let kinds = ENTITY_KINDS.filter((k) => kindsOf.get(name)!.has(k));
    const len = [...name].length;
    if (name === '') {
      skipped.push({ name, reason: 'empty name' });
      continue;
    }
    if (/\s/u.test(name)) {
      skipped.push({ name, reason: 'whitespace: the dictionary format is space-separated and the segmenters split at spaces' });
      continue;
    }
    if (!HAN.test(name)) {
      skipped.push({ name, reason: 'no Han character: the segmenters keep a Latin/digit run as one token already; an entry would split longer runs' });
      continue;
    }
    if (len === 1) {
      skipped.push({ name, reason: 'single character: an entry would retag every occurrence, and the backends differ on single-character user words (cppjieba shields them from its HMM, jieba-rs does not)' });
      continue;
    }
    if (len > o.maxLength) {
      skipped.push({ name, reason: `longer than maxLength (${o.maxLength} characters)` });
      continue;
    }
    const common = isCommonWord(name, lex, o);
    if (common && o.commonWordTitles === 'exclude') {
      kinds = kinds.filter((k) => !o.commonWordKinds.includes(k));
      if (kinds.length === 0) {
        skipped.push({ name, reason: `common word: base-dictionary word and commonWordTitles=exclude` });
        continue;
      }
    }
    if (
      !common &&
      o.commonPhrases === 'exclude' &&
      kinds.every((k) => o.commonWordKinds.includes(k)) &&
      isCommonPhrase(name, lex.freq, o.commonMinFreq, o.commonPhraseMaxLength)
    ) {
      skipped.push({ name, reason: 'common phrase: made of common base-dictionary words (like 来了 = 来/了), so not made a token; commonPhrases=include exports it' });
      continue;
    }
    if (kinds.length === 0) {
      skipped.push({ name, reason: 'no entity kind' });
      continue;
    }
    if (common) commonWords++;
    const tag = o.tags[kinds[0]];
    entries.set(name, { freq: freqOf(name), tag });
    if (o.fullWidthVariants && FOLDED.test(name)) {
      const v = name.replace(FOLDED_ALL, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
      if (!variantsWanted.has(v)) variantsWanted.set(v, tag);
    }
    if (!isHoldableWord(name)) {
      compounds++;
      if (o.compoundParts) {
        for (const part of name.split(/[^\p{Script=Han}A-Za-z0-9+#&._%-]+/u)) {
          if ([...part].length >= 2 && HAN.test(part) && isHoldableWord(part) && !lex.freq.has(part) && !partsWanted.has(part)) {
            partsWanted.set(part, tag);
          }
        }
      }
    }
  }
  let variants = 0;
  for (const [v, tag] of variantsWanted) {
    if (entries.has(v) || kindsOf.has(v)) continue;
    entries.set(v, { freq: freqOf(v), tag });
    variants++;
  }
  let parts = 0;
  for (const [part, tag] of partsWanted) {
    if (entries.has(part) || kindsOf.has(part)) continue; // a name of its own (exported or deliberately skipped)
    entries.set(part, { freq: freqOf(part), tag });
    parts++;
  }
  const lines = [...entries.keys()].sort(cmpStr).map((w) => `${w} ${entries.get(w)!.freq} ${entries.get(w)!.tag}`);
  skipped.sort((a, b) => cmpStr(a.name, b.name));
  const skippedByReason: Record<string, number> = {};
  for (const s of skipped) {
    const key = s.reason.split(':')[0];
    skippedByReason[key] = (skippedByReason[key] ?? 0) + 1;
  }
  return {
    lines,
    skipped,
    stats: { names: kindsOf.size, entries: lines.length, compounds, parts, variants, commonWords, skippedByReason },
  };
}

/** Export and write the user dictionary to `path` atomically (temp file + rename). */
export function writeUserDict(kg: KgView, path: string, opts: Partial<ExportUserDictOptions> = {}): UserDictExport & { path: string; bytes: number } {
  const result = exportUserDict(kg, opts);
  const content = result.lines.map((l) => `${l}\n`).join('');
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, content);
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* nothing to clean */
    }
    throw new FilmkwError('OUTPUT', `dict: cannot write ${path}: ${(err as Error).message}`, { cause: err });
  }
  return { ...result, path, bytes: Buffer.byteLength(content) };
}
