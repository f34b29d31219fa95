/**
 * Seeded, deterministic synthetic film KG for benchmarks and scale tests (the paper's MKG has about
 * 17,000 entities and 3,000,000 relations; ours has far fewer, so scale is tested on this generator).
 *
 * Shape (film-KG-like degree skew):
 *   - kinds: 30% movies, 53% people, 0.4% genres (at least 8), the rest characters (each in one movie);
 *   - every movie has 1–3 directors, 1–4 writers, 1–6 genres and 0–3 aliases; genres are drawn by a
 *     Zipf law (s = 1.1), so the top genres are hubs linked to most movies;
 *   - characters are played by 1–2 people (PLAYED, with the character's movie) and belong to their movie;
 *   - ACTED_IN takes the rest of the relation budget: per-movie cast sizes follow a Zipf law over movies
 *     (s = 0.6, capped at 80% of the people), cast members are drawn without repetition from a mixture of a
 *     Zipf law over people (s = 1.0, popular actors first, 75%) and a uniform draw (25%); the most popular
 *     people end up linked to nearly every movie (neighbour counts in the thousands).
 * The total relation count is exact (`relations`), all relations are distinct, names may collide across
 * entities (as real names do). Entities and relations are fed to {@link KgBuilder} as typed columns, so no
 * per-relation object is allocated (a 3M-relation KgData would cost several hundred MB of heap).
 *
 * Note: with 17k entities an entity can have at most ~17k distinct neighbours; the "100,000 neighbours" edge
 * case is covered by the reliability tests with a larger entity count.
 */
import { KgBuilder, KgStore } from './store.js';
import { RELATION_KINDS, type Entity, type KgData, type RelationKind } from './model.js';
import { mulberry32 } from '../util/random.js';
import { lowerBound } from '../util/sorted.js';

export interface SyntheticOptions {
  /** @default 17000 */
  entities?: number;
  /** @default 3000000 */
  relations?: number;
  /** @default 1 */
  seed?: number;
}

export const SYNTHETIC_DEFAULTS = Object.freeze({ entities: 17_000, relations: 3_000_000, seed: 1 });

/** Zipf sampler over 0..n-1 (rank r has weight 1/(r+1)^s), through a permuted rank order. */
function zipf(n: number, s: number, rand: () => number, order: Int32Array): () => number {
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let r = 0; r < n; r++) cdf[r] = acc += 1 / Math.pow(r + 1, s);
  for (let r = 0; r < n; r++) cdf[r] /= acc;
  return () => {
    const u = rand();
    return order[lowerBound(cdf, u, 0, n - 1)];
  };
}

function shuffled(n: number, rand: () => number): Int32Array {
  const p = new Int32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p;
}

const SURNAMES = '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤';
const GIVEN = '伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超秀兰霞平刚桂英华玉萍红娥玲芬燕彬鹏辉斌宇浩凯健俊帆帅旭宁龙林欣怡雪琳晨阳佳思子梓涵轩雨泽博文一诺昊然千玺';
const TITLE = '长津湖战狼流浪地球哪吒红海行动唐人街探案我不是药神你好李焕英满江红八佰无名深海热烈孤注一掷封神第一部消失的她人生大事万里归途独行月球误杀少年的你让子弹飞霸王别姬活着英雄城南旧事';
const GENRES = ['剧情', '喜剧', '动作', '爱情', '科幻', '动画', '悬疑', '惊悚', '恐怖', '犯罪', '同性', '音乐', '歌舞', '传记', '历史', '战争', '西部', '奇幻', '冒险', '灾难', '武侠', '情色', '纪录片', '短片', '家庭', '儿童', '运动', '古装', '黑色电影', '真人秀', '脱口秀', '戏曲'];

function pick(chars: string, rand: () => number): string {
  return chars[Math.floor(rand() * chars.length)];
}

/** Builds the synthetic KG straight into a store (fast path; no relation objects). */
export function syntheticKgStore(opts: SyntheticOptions = {}): KgStore {
  const nEnt = opts.entities ?? SYNTHETIC_DEFAULTS.entities;
  const nRel = opts.relations ?? SYNTHETIC_DEFAULTS.relations;
  const seed = opts.seed ?? SYNTHETIC_DEFAULTS.seed;
  if (!Number.isInteger(nEnt) || nEnt < 20) throw new RangeError('synthetic kg: entities must be an integer ≥ 20');
  if (!Number.isInteger(nRel) || nRel < 0) throw new RangeError('synthetic kg: relations must be a non-negative integer');
  const rand = mulberry32(seed >>> 0 || 0x9e3779b9);
  const nGenre = Math.max(8, Math.round(nEnt * 0.004));
  const nMovie = Math.round(nEnt * 0.3);
  const nPerson = Math.round(nEnt * 0.53);
  const nChar = nEnt - nGenre - nMovie - nPerson;
  const b = new KgBuilder();
  const code = (k: RelationKind) => RELATION_KINDS.indexOf(k);
  const [DIRECTED, WROTE, ACTED_IN, HAS_GENRE, ALIAS, PLAYED] = (['DIRECTED', 'WROTE', 'ACTED_IN', 'HAS_GENRE', 'ALIAS', 'PLAYED'] as const).map(code);

  const movieIdx = new Int32Array(nMovie);
  const movieNames: string[] = [];
  for (let i = 0; i < nMovie; i++) {
    let name = '';
    const len = 2 + Math.floor(rand() * 4);
    for (let j = 0; j < len; j++) name += pick(TITLE, rand);
    if (rand() < 0.3) name += String(2 + Math.floor(rand() * 3));
    movieNames.push(name);
    const e: Entity = { id: `movie/douban/${1_000_000 + i}`, kind: 'Movie', name, surfaces: [name], aliases: [] };
    movieIdx[i] = b.addEntity(e);
  }
  const personIdx = new Int32Array(nPerson);
  for (let i = 0; i < nPerson; i++) {
    const name = pick(SURNAMES, rand) + pick(GIVEN, rand) + (rand() < 0.6 ? pick(GIVEN, rand) : '');
    personIdx[i] = b.addEntity({ id: `person/douban/${2_000_000 + i}`, kind: 'Person', name, surfaces: [name], aliases: [] });
  }
  const genreIdx = new Int32Array(nGenre);
  for (let i = 0; i < nGenre; i++) {
    const name = i < GENRES.length ? GENRES[i] : `${GENRES[i % GENRES.length]}${Math.floor(i / GENRES.length)}`;
    genreIdx[i] = b.addEntity({ id: `genre/${name}`, kind: 'Genre', name, surfaces: [name], aliases: [] });
  }
  const charIdx = new Int32Array(nChar);
  const charMovie = new Int32Array(nChar);
  for (let i = 0; i < nChar; i++) {
    const m = Math.floor(rand() * nMovie);
    charMovie[i] = m;
    // suffix keeps ids unique when two characters of one movie draw the same name
    const name = pick(SURNAMES, rand) + pick(GIVEN, rand) + (rand() < 0.5 ? pick(GIVEN, rand) : '') + (i % 7 === 0 ? `·${i}` : '');
    const movieId = `movie/douban/${1_000_000 + m}`;
    charIdx[i] = b.addEntity({ id: `character/${movieId}/${name}#${i}`, kind: 'Character', name, surfaces: [name], aliases: [], movieId });
  }

  const personOrder = shuffled(nPerson, rand);
  const zPerson = zipf(nPerson, 1.0, rand, personOrder);
  const zGenre = zipf(nGenre, 1.1, rand, shuffled(nGenre, rand));
  const stamp = new Int32Array(Math.max(nPerson, nGenre)).fill(-1);
  let budget = nRel;
  let stampId = 0;
  const emit = (k: number, f: number, t: number, m = -1): boolean => {
    if (budget <= 0) return false;
    b.pushIdx(k, f, t, m);
    budget--;
    return true;
  };
  /** `count` distinct draws (by `draw`) among n, through the stamp array. */
  const distinct = (count: number, n: number, draw: () => number, out: (x: number) => void) => {
    stampId++;
    let got = 0;
    for (let tries = 0; got < count && tries < count * 50; tries++) {
      const x = draw();
      if (stamp[x] === stampId) continue;
      stamp[x] = stampId;
      out(x);
      got++;
    }
  };
  // small per-movie relation kinds first (they are a small share of the budget)
  for (let m = 0; m < nMovie && budget > 0; m++) {
    const mi = movieIdx[m];
    distinct(1 + Math.floor(rand() * 3), nPerson, zPerson, (p) => emit(DIRECTED, personIdx[p], mi));
    distinct(1 + Math.floor(rand() * 4), nPerson, zPerson, (p) => emit(WROTE, personIdx[p], mi));
    distinct(1 + Math.floor(rand() * 6), nGenre, zGenre, (g) => emit(HAS_GENRE, mi, genreIdx[g]));
    const nAlias = Math.floor(rand() * 4);
    const seen = new Set<string>([movieNames[m]]);
    for (let a = 0; a < nAlias; a++) {
      // some aliases are another movie's name (collisions), most are "<name> (<year>)"-like variants
      const alias = rand() < 0.1 ? movieNames[Math.floor(rand() * nMovie)] : `${movieNames[m]}${a === 0 ? '：' : ' '}${1950 + Math.floor(rand() * 75)}`;
      if (!seen.has(alias)) {
        seen.add(alias);
        emit(ALIAS, mi, b.aliasIndex(alias));
      }
    }
  }
  for (let c = 0; c < nChar && budget > 0; c++) {
    const ci = charIdx[c], mi = movieIdx[charMovie[c]];
    distinct(1 + (rand() < 0.2 ? 1 : 0), nPerson, zPerson, (p) => emit(PLAYED, personIdx[p], ci, mi));
  }
  // ACTED_IN: the rest, per-movie cast sizes Zipf(0.6) over a shuffled movie order, capped at 80% of people
  const cap = Math.floor(nPerson * 0.8);
  const movieOrder = shuffled(nMovie, rand);
  const w = new Float64Array(nMovie);
  let wsum = 0;
  for (let r = 0; r < nMovie; r++) wsum += w[r] = 1 / Math.pow(r + 1, 0.6);
  const cast = new Int32Array(nMovie);
  let left = Math.min(budget, cap * nMovie);
  const acted = left;
  for (let r = 0; r < nMovie; r++) cast[movieOrder[r]] = Math.min(cap, Math.floor((acted * w[r]) / wsum));
  left -= cast.reduce((a, x) => a + x, 0);
  for (let r = nMovie - 1; left > 0; r = r === 0 ? nMovie - 1 : r - 1) {
    const m = movieOrder[r];
    const add = Math.min(left, cap - cast[m]);
    cast[m] += add;
    left -= add;
  }
  const mixed = () => (rand() < 0.75 ? zPerson() : Math.floor(rand() * nPerson));
  for (let m = 0; m < nMovie && budget > 0; m++) {
    const mi = movieIdx[m];
    const want = cast[m];
    let got = 0;
    distinct(want, nPerson, mixed, (p) => {
      if (emit(ACTED_IN, personIdx[p], mi)) got++;
    });
    // after 50×want tries (never in practice) fill deterministically from the least popular end
    for (let r = nPerson - 1; got < want && r >= 0; r--) {
      const p = personOrder[r];
      if (stamp[p] !== stampId && emit(ACTED_IN, personIdx[p], mi)) {
        stamp[p] = stampId;
        got++;
      }
    }
  }
  return b.build();
}

/** The synthetic KG as plain data (allocates one object per relation: use small sizes). */
export function syntheticKg(opts: SyntheticOptions = {}): KgData {
  return syntheticKgStore(opts).toData();
}
