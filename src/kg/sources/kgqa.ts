/**
 * `kgqa:<file|dir>` — DouBan-KGQA JSON lines (weizhixiaoyi/DouBan-KGQA, data/smalldata):
 *
 *   movie lines   {id (Douban subject id), name ("无双 無雙", "肖申克的救赎 The Shawshank Redemption"),
 *                  directors/writers/actors [{name, href: "/celebrity/<id>/"}], genres [..],
 *                  other_names [..], summary, …}                → Movie, HAS_GENRE, ALIAS, credits, synopsis
 *   person lines  {id: "/celebrity/<id>/", name ("宁浩 Hao Ning"), …}  → surface forms of that person
 *
 * A directory is read file by file (*.txt, *.json, *.jsonl, sorted); each line is recognised by its
 * content (a person line has a `/celebrity/` id), so the two files may also be given one by one.
 *
 * Titles: Douban writes "<Chinese title> <original title>" ({@link splitDoubanTitle}); the Chinese
 * part is the name and the rest an alias. Aliases lose region notes such as "(台)" in the builder
 * (src/kg/aliases.ts), which also joins `other_names` items split inside brackets ("麦迪逊之桥(港", "台)").
 */
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { KgMergeBuilder, SourceCtx, CreditRole } from '../builder.js';
import { celebrityIdFromHref, decodeEntities, readJsonLines, requirePath, type Loc } from './common.js';

const HAN = /\p{Script=Han}/u;
/** Tokens that continue a Chinese title: season / part markers, numerals, edition words. */
const CONTINUATION = /^(?:第[一二三四五六七八九十百零\d]+[季部集章篇期]|[上中下]|前传|续集|电影版|剧场版|完结篇|特别篇|[\dⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩ]+|(?:法国|美国|英国|日|韩|中国|台湾|香港|意大利|西班牙|德国)版)$/u;

/**
 * Splits a Douban title "<Chinese title> <original title>" into the name and the alternative title:
 * the first word, plus following words while the name has no Han character yet (`E.T. 外星人`) or the
 * word continues a title (`第一季`, `2`, `电影版`); the rest, if any, is the alternative title
 * (traditional characters, Japanese, Korean, Latin). "王国 第一季 킹덤 Season 1" → "王国 第一季" + "킹덤 Season 1".
 */
export function splitDoubanTitle(raw: string): { name: string; alt: string | null } {
  const words = raw.trim().split(/\s+/u).filter(Boolean);
  if (words.length <= 1) return { name: words[0] ?? '', alt: null };
  let i = 1;
  while (i < words.length && (!HAN.test(words.slice(0, i).join(' ')) || CONTINUATION.test(words[i]))) i++;
  const name = words.slice(0, i).join(' ');
  const alt = words.slice(i).join(' ');
  if (!HAN.test(name)) return { name: raw.trim(), alt: null }; // no Chinese title at all: keep as is
  return { name, alt: alt === '' ? null : alt };
}

/** Chinese part of a person name "宁浩 Hao Ning" → 宁浩 (names without a Latin tail are kept whole). */
export function splitPersonName(raw: string): string {
  const m = /^(.*?\p{Script=Han}[^A-Za-z]*?)\s+[A-Za-z].*$/u.exec(raw.trim());
  return m ? m[1].trim() : raw.trim();
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

async function filesOf(path: string): Promise<{ file: string; display: string }[]> {
  const kind = await requirePath(path, 'kg import: kgqa source', 'any');
  if (kind === 'file') return [{ file: path, display: basename(path) }];
  const names = (await readdir(path)).filter((n) => /\.(txt|json|jsonl)$/i.test(n)).sort();
  return names.map((n) => ({ file: join(path, n), display: `${basename(path)}/${n}` }));
}

export async function readKgqa(path: string, b: KgMergeBuilder, src: SourceCtx): Promise<void> {
  const files = await filesOf(path);
  for (const { file, display } of files) {
    const onBad = (l: number, reason: string) => {
      b.count(src); // an unparsable line is a record read (and skipped)
      b.skip(`kgqa: ${reason}`, { file: display, line: l });
    };
    for await (const { value, line } of readJsonLines(file, display, onBad)) {
      const loc: Loc = { file: display, line };
      b.count(src);
      const idRaw = str(value.id);
      const cid = celebrityIdFromHref(idRaw);
      if (cid) {
        const name = decodeEntities(str(value.name));
        if (name.trim() === '') {
          b.skip('kgqa person: missing field name', loc, idRaw);
          continue;
        }
        b.celebrity(cid, splitPersonName(name), [name.trim()], src);
        continue;
      }
      if (!/^\d+$/.test(idRaw.trim())) {
        b.skip(idRaw === '' ? 'kgqa movie: missing field id' : 'kgqa movie: id is not a Douban subject id', loc, idRaw);
        continue;
      }
      const rawName = decodeEntities(str(value.name));
      if (rawName.trim() === '') {
        b.skip('kgqa movie: missing field name', loc, idRaw);
        continue;
      }
      const bad = ['directors', 'writers', 'actors', 'genres', 'other_names'].find((k) => value[k] !== undefined && value[k] !== null && !Array.isArray(value[k]));
      if (bad) {
        b.skip(`kgqa movie: field ${bad} is not a list`, loc, idRaw);
        continue;
      }
      const { name, alt } = splitDoubanTitle(rawName);
      const aliases = [
        ...(alt ? [alt] : []),
        ...((value.other_names as unknown[] | undefined) ?? []).map((x) => decodeEntities(str(x))).filter((x) => x !== ''),
      ];
      const genres = ((value.genres as unknown[] | undefined) ?? []).map(str).filter((x) => x.trim() !== '');
      const movieId = b.movie({ subjectId: idRaw.trim(), title: name, aliases, genres, surfaces: [rawName.trim()] }, src, loc);
      if (!movieId) continue;
      const roles: [string, CreditRole][] = [
        ['directors', 'DIRECTED'],
        ['writers', 'WROTE'],
        ['actors', 'ACTED_IN'],
      ];
      for (const [field, role] of roles) {
        for (const p of (value[field] as unknown[] | undefined) ?? []) {
          const rec = (p ?? {}) as Record<string, unknown>;
          const pname = decodeEntities(str(rec.name));
          if (pname.trim() === '') {
            b.skip(`kgqa movie: ${field} entry without a name`, loc, idRaw);
            continue;
          }
          b.credit(movieId, role, { name: pname, celebrityId: celebrityIdFromHref(rec.href) }, src, loc);
        }
      }
      const summary = str(value.summary);
      if (summary.trim() !== '') b.synopsis(movieId, summary, loc);
    }
  }
}
