/**
 * Alias hygiene at import (issue 25): the alternative names the sources give a film or a person, made
 * safe to match in text. Every rule is applied by the merge builder (src/kg/builder.ts) to the aliases
 * of every source and reported with examples (`kg import`: cleaned / dropped):
 *
 *   1. **brackets split apart are joined again**: Douban writes `国定杀戮日(台/港)`; a source that splits
 *      alternative titles on `/` or `;` gives `国定杀戮日(台` and `港)` (OpenKG's `othername`, DouBan-KGQA's
 *      `other_names`). Adjacent items are joined (with `/`) while the first has an unclosed bracket and
 *      a following one closes it;
 *   2. **region and note tags are removed**: `(台)`, `(港)`, `(台/港)`, `(港;台)`, `(大陆)`, `(豆友译名)` …,
 *      wherever they stand (`新世纪福尔摩斯(台)第四季`); a tag left unclosed at the end by a split
 *      (`麦迪逊之桥(港`) goes too, and an alias that is only a tag (`台)`) is dropped;
 *   3. **dropped**: an alias that is only punctuation or symbols, a single character (谜, 飘, I), one whose
 *      brackets still do not balance, or a common word by the title policy (src/lexicon/title-policy.ts,
 *      passed in as `commonWord`: the kg layer does not read the lexicon).
 */

/** Tags Douban appends to alternative titles: regions and notes on where the title comes from. */
export const REGION_TAGS: readonly string[] = Object.freeze([
  '台', '港', '澳', '日', '英', '美', '韩', '法', '德', '新', '马', '新马', '港台', '大陆', '内地', '台湾', '香港', '澳门', '中国大陆',
  '豆友译名', '暂译', '原名', '译名',
  // the country of a foreign release title (Babysitting(德国), 大英雄 (日本)), also as "<country>译名"
  '日本', '韩国', '美国', '英国', '法国', '德国', '意大利', '西班牙', '葡萄牙', '匈牙利', '罗马尼亚', '波兰', '俄罗斯', '芬兰', '瑞典',
  '挪威', '丹麦', '荷兰', '比利时', '希腊', '土耳其', '加拿大', '澳大利亚', '新西兰', '巴西', '阿根廷', '墨西哥', '印度', '泰国',
  '新加坡', '马来西亚', '菲律宾', '越南', '印尼',
]);

const TAG = `(?:${[...REGION_TAGS].sort((a, b) => b.length - a.length).join('|')})(?:译名)?`;
const TAGS = `${TAG}(?:\\s*[/／;；、,，]\\s*${TAG})*`;
/** A closed tag list anywhere (`(台/港)`, `新世纪福尔摩斯(台)第四季`). */
const TAG_GROUP = new RegExp(`\\s*[(（]${TAGS}[)）]`, 'gu');
/** An unclosed tag list a split left at the end (`(港`). */
const TAG_OPEN_END = new RegExp(`\\s*[(（]${TAGS}\\s*$`, 'u');
/** What a split leaves of a tag list's end: `台)`, `港)`. */
const TAG_TAIL = new RegExp(`^\\s*${TAGS}\\s*[)）]\\s*$`, 'u');

/** An alias without its region / note tags (`神隐少女(台)` → 神隐少女, `新世纪福尔摩斯(台)第四季` → 新世纪福尔摩斯第四季, `台)` → ''). */
export function stripRegionTags(s: string): string {
  if (TAG_TAIL.test(s)) return '';
  return s.replace(TAG_GROUP, '').replace(TAG_OPEN_END, '').trim();
}

/** Opening minus closing round brackets (half- and full-width). */
export function bracketBalance(s: string): number {
  let n = 0;
  for (const c of s) {
    if (c === '(' || c === '（') n++;
    else if (c === ')' || c === '）') n--;
  }
  return n;
}

/** Every round bracket closed after it was opened (half- and full-width). */
export function bracketsBalanced(s: string): boolean {
  let depth = 0;
  for (const c of s) {
    if (c === '(' || c === '（') depth++;
    else if ((c === ')' || c === '）') && --depth < 0) return false;
  }
  return depth === 0;
}

/** Rule 1: items split inside brackets joined again (`国定杀戮日(台`, `港)` → `国定杀戮日(台/港)`). */
export function rejoinBrackets(items: readonly string[]): { items: string[]; rejoined: { from: string[]; to: string }[] } {
  const out: string[] = [];
  const rejoined: { from: string[]; to: string }[] = [];
  for (let i = 0; i < items.length; i++) {
    let depth = bracketBalance(items[i]);
    if (depth <= 0) {
      out.push(items[i]);
      continue;
    }
    // join while open and a later item brings the depth back to 0
    let j = i;
    let d = depth;
    while (d > 0 && j + 1 < items.length) d += bracketBalance(items[++j]);
    if (d !== 0) {
      out.push(items[i]);
      continue;
    }
    const from = items.slice(i, j + 1);
    const to = from.join('/');
    rejoined.push({ from, to });
    out.push(to);
    depth = 0;
    i = j;
  }
  return { items: out, rejoined };
}

export const ALIAS_PROBLEMS = ['only punctuation or symbols', 'a single character', 'unbalanced brackets', 'a common word (title policy)'] as const;
export type AliasProblem = (typeof ALIAS_PROBLEMS)[number];

/** Rule 3: why an alias is not kept, or null. */
export function aliasProblem(alias: string, commonWord?: ((name: string) => boolean) | null): AliasProblem | null {
  if (/^[\p{P}\p{S}\p{Z}\s]*$/u.test(alias)) return 'only punctuation or symbols';
  if ([...alias.replace(/[\p{P}\p{S}\p{Z}\s]/gu, '')].length <= 1) return 'a single character';
  if (!bracketsBalanced(alias)) return 'unbalanced brackets';
  if (commonWord?.(alias)) return 'a common word (title policy)';
  return null;
}

/** What happened to one list of raw aliases (rules 1–3; `normalize` is model.ts `normalizeName`). */
export interface AliasCleanup {
  kept: string[];
  rejoined: { from: string[]; to: string }[];
  /** Aliases whose region / note tag was removed. */
  tagged: { from: string; to: string }[];
  dropped: { alias: string; reason: AliasProblem | 'only a region tag' }[];
}

/** Rules 1–3 on the raw aliases of one record (already without invisible characters). */
export function cleanAliases(raw: readonly string[], normalize: (s: string) => string, commonWord?: ((name: string) => boolean) | null): AliasCleanup {
  const { items, rejoined } = rejoinBrackets(raw.map((a) => a.trim()).filter((a) => a !== ''));
  const out: AliasCleanup = { kept: [], rejoined, tagged: [], dropped: [] };
  for (const item of items) {
    const norm = normalize(item);
    const bare = stripRegionTags(norm);
    if (bare !== norm) {
      if (bare === '') {
        out.dropped.push({ alias: norm, reason: 'only a region tag' });
        continue;
      }
      out.tagged.push({ from: norm, to: bare });
    }
    const problem = aliasProblem(bare, commonWord);
    if (problem) out.dropped.push({ alias: bare, reason: problem });
    else out.kept.push(bare);
  }
  return out;
}
