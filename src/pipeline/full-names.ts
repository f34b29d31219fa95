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
 * - a word naming a person or character, or tagged nr… (梁笑笑, 哈利波特/nr), or an unknown word (x) made of
 *   a common surname and the short name (游+天鸣: {@link SURNAMES});
 * - a name joined by a name dot or a space of which the short name is a whole part (约尔•巴瑞斯, Tony Stark).
 * Not a compound of the short name and a neighbour (陈+爱琳 is right, 天鸣+吹 is not: a rule taking any compound of at
 * most two more characters lost in cross-validation; eval/results/film-dev/ANALYSIS.md §9).
 * Among several full forms the one with the highest logit wins (ties: the first). Read from the items'
 * feature vectors (rerank.ts), so the cross-validation applies the same rule (eval/rerank-train.ts).
 */
import { RERANK_FEATURES } from './rerank.js';

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

/**
 * Whether `long` is a full form of the short name `short` (module header): a person or character word,
 * a word tagged as a name, an unknown word (x) that is a common surname plus the short name (游+天鸣; not
 * 手拉凤霞, 对漫威, 木木的: the segmenter's HMM glues neighbours to names), a joined name of which the short
 * name is a whole part (麦克•柯里昂; not 人托尼•斯塔克 for 托尼).
 */
function isFullForm(long: NameItem, short: NameItem): boolean {
  const t = long.text;
  const s = short.text;
  if (t.length <= s.length || !t.includes(s)) return false;
  const x = long.x;
  if (x[PHRASE] !== 1) {
    if (personish(x) || x[POS_NAME] === 1) return true;
    return x[POS_UNKNOWN] === 1 && t.length === s.length + 1 && t.endsWith(s) && SURNAMES.includes(t[0]);
  }
  return x[JOINED] === 1 && t.split(JOINERS).includes(s);
}

/** The joiners of a joined name (phrases.ts `NAME_DOTS`, a space). */
const JOINERS = /[·•・‧∙ \u00a0]/u;

/** Common one-character Chinese surnames (the ~150 most frequent), the prefix of a full name the segmenter left unknown (游天鸣). */
export const SURNAMES =
  '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝';

/**
 * The values with every short name's place given to its best full form (module header), as a new
 * array: the full form gets the larger of the two values, the short name NaN (never selected). The same
 * array when `on` is false.
 */
export function preferFullNames(items: readonly NameItem[], values: readonly number[], on: boolean): readonly number[] {
  if (!on) return values;
  const out = values.slice();
  for (let i = 0; i < items.length; i++) {
    if (Number.isNaN(out[i]) || !isShortName(items[i].x)) continue;
    // a full form that already gave its own place to a longer one is passed over (天明 → 吴天明 → …)
    let best = -1;
    for (let j = 0; j < items.length; j++) {
      if (j === i || Number.isNaN(out[j]) || !isFullForm(items[j], items[i])) continue;
      if (best < 0 || out[j] > out[best]) best = j;
    }
    if (best < 0) continue;
    out[best] = Math.max(out[best], out[i]);
    out[i] = NaN;
  }
  return out;
}
