/**
 * Mining 饰演 (PLAYED: person → character in a movie) from Douban synopses (issue 2).
 *
 * Source of the method: Douban synopses name a role as `角色（演员 饰）` — e.g. "普通中年男子程勇（徐峥
 * 饰）经营着…" — and, more rarely, as `演员饰演(的)角色`. Both the DouBan-KGQA `summary` and the
 * douban-movies-2065 `summary` fields follow this house style (see ../shared/data/SOURCES.md). The
 * rules below are the project's own heuristics, written against those data and tested on real
 * sentence shapes (test/kg/played.test.ts):
 *
 * 1. Mentions. `X（A 饰）`, `X(A饰)`, `X（A 饰演）`, full- or half-width brackets in any mix; the
 *    bracket may hold one actor, an actor with a Latin name (`蒂姆·罗宾斯 Tim Robbins 饰`,
 *    `吴珊卓/SandraOh饰`), several actors of one character (`宋美曼 & 宋美慧 饰`: each played it) or a
 *    list of actors (`凤小岳、唐嫣、李光洁 饰`) matched in order with an equally long list of characters
 *    before the bracket (otherwise rejected; `…等饰` groups are rejected). `A饰演(的)X` is accepted
 *    only when the actor resolves (see below).
 * 2. Actors are resolved by the caller (`resolveActor`), which maps a name to a person credited on the
 *    film; unresolved mentions are reported, never guessed.
 * 3. Character names ({@link cleanCharacterName}): the text before the bracket back to punctuation;
 *    a quoted name (“黄毛”) is taken as is; otherwise descriptive prefixes are removed — everything up
 *    to the last 的 ("身陷囹圄的李问" → 李问), up to the last function word that cannot end a name
 *    ("不让至尊宝" → 至尊宝), up to the last role noun ("普通中年男子程勇" → 程勇, "副市长郑刚" → 郑刚) as
 *    long as a name of at least two characters is left; a surname plus a title ("曹警官", "刘牧师") is a
 *    name. Middle dots are unified to `·`. What is left must look like a name: 2–6 Han characters, or a
 *    transliteration with `·` up to 14, or Latin letters; pronouns, bare role nouns ("大陆公安队长"),
 *    numbers and long descriptions are rejected with a reason. Last, a relation prefix glued to the
 *    name is stripped ({@link stripRelationPrefix}: 之子霍廷恩 → 霍廷恩, 其女陆永瑜 → 陆永瑜, 副官曹蛮 → 曹蛮),
 *    and the importer reports every such strip (summary `played.stripped`, with examples); a function
 *    word plus a pronoun (与她) is rejected.
 * 4. Fragments of the sentence that the steps above leave (issue 25): a clause word at the start is
 *    stripped like a relation prefix and reported with it ({@link stripClausePrefix}: 还有艾格 → 艾格,
 *    而李允浩 → 李允浩); a verb followed by a kin word or role (携妻 in "马邦德（葛优饰）携妻（刘嘉玲饰）",
 *    携太太, 失恋女, 自称医生) is not a name and is rejected with that reason ({@link isVerbPhrase}).
 */
import { normalizeName } from './model.js';

/** Tunable choices of the miner; every ambiguous decision is one of these. */
export interface PlayedOptions {
  /** Shortest accepted character name (Han characters or Latin letters). @default 2 */
  minLength: number;
  /** Longest accepted Han-only character name without a middle dot. @default 6 */
  maxHanLength: number;
  /** Longest accepted name with a middle dot (transliterations such as 安迪·杜佛兰). @default 14 */
  maxDottedLength: number;
  /** Longest accepted Latin-script character name. @default 24 */
  maxLatinLength: number;
  /** How far back (characters) from the bracket the character name is looked for. @default 24 */
  window: number;
  /** Nouns that introduce a name ("男子程勇"): the prefix up to the last of them is removed. */
  roleNouns: readonly string[];
  /** Characters that cannot end a descriptive prefix's last word but do end it: cut after the last one. */
  cutAfter: readonly string[];
  /** Whole strings that are not names (pronouns, group words). */
  notNames: readonly string[];
  /** Role nouns that may follow a short surname as a form of address (曹警官, 刘牧师, 凯奇少校). */
  titles: readonly string[];
  /**
   * Part-of-speech tagger (jieba style tags) used to cut descriptive prefixes off candidates of at
   * least `taggerMinLength` Han characters ("韩国顶尖主播高惠兰" → 高惠兰): the prefix up to the last
   * descriptive word (common noun, verb, adjective, idiom, place …; two characters or more, not a
   * compound surname) that leaves a name of at least `minLength` characters. null = no tagger.
   * @default null
   */
  tagger: ((text: string) => readonly { word: string; tag: string }[]) | null;
  /** Shortest candidate (Han characters) the tagger is applied to. @default 5 */
  taggerMinLength: number;
}

/**
 * Words that start a clause, never a name (还有, 包括, 而, 随后 …): left at the start of a mined name when the
 * text before the bracket runs on from the previous clause ("……还有艾格（…饰）").
 */
const CLAUSE_WORDS = ['虽然', '虽有', '还有', '包括', '转眼', '随后', '于是', '并且', '然而', '率领', '带领', '借助', '派出', '更名为', '更名', '而', '遂'];

/** Verbs of "taking along" that make a kin word a phrase (携妻, 偕妻, 带女). */
const TAKE_VERBS = ['携', '偕', '带', '领', '率'];

/** Kin words (and their usual modifiers) that end such a phrase: 携妻, 携新妻, 携妻儿, 失踪幼女. */
const KIN_TAILS = ['妻', '夫', '子', '女', '儿', '妻儿', '妻子', '子女', '儿女', '家人', '家眷', '新妻', '娇妻', '爱妻', '幼女', '幼子', '太太', '夫人', '老婆', '丈夫', '全家'];

/** Tags (jieba) of verbs. */
const VERB_TAGS = new Set(['v', 'vd', 'vi', 'vn', 'vg']);

const ROLE_NOUNS = [
  // people by age / sex
  '男子', '女子', '男人', '女人', '男孩', '女孩', '男生', '女生', '少年', '少女', '青年', '老人', '老头', '老太太', '老太',
  '老妇', '老汉', '大叔', '大妈', '大爷', '大婶', '阿姨', '小伙', '小伙子', '姑娘', '孩子', '小孩', '婴儿', '美女', '女郎', '单身汉',
  // family and relations
  '妻子', '丈夫', '老婆', '老公', '未婚妻', '未婚夫', '女友', '男友', '女朋友', '男朋友', '前妻', '前夫', '前女友', '前男友',
  '恋人', '情人', '爱人', '初恋', '儿子', '女儿', '养子', '养女', '继子', '继女', '父亲', '母亲', '爸爸', '妈妈', '养父', '养母',
  '继父', '继母', '爷爷', '奶奶', '外公', '外婆', '祖父', '祖母', '哥哥', '姐姐', '弟弟', '妹妹', '表哥', '表姐', '表弟', '表妹',
  '堂哥', '堂姐', '堂弟', '堂妹', '孙女', '孙子', '外孙', '侄子', '侄女', '舅舅', '叔叔', '姑姑', '小姨', '岳父', '岳母', '公公',
  '婆婆', '儿媳', '女婿', '兄弟', '姐妹', '兄长', '双胞胎', '遗孀', '孤儿', '亲戚',
  '朋友', '好友', '老友', '挚友', '发小', '闺蜜', '死党', '同学', '同桌', '校友', '同事', '搭档', '伙伴', '战友', '室友', '邻居',
  '笔友', '网友', '对手', '仇人', '宿敌', '情敌', '知己',
  // occupations, ranks, titles
  '助手', '助理', '秘书', '上司', '下属', '手下', '老板', '老板娘', '店主', '店员', '经理', '总裁', '董事长', '富商', '富豪', '商人',
  '投资人', '警官', '警察', '警探', '探长', '督察', '侦探', '刑警', '队长', '局长', '市长', '副市长', '县长', '村长', '厂长', '校长',
  '老师', '教授', '博士', '硕士', '医生', '军医', '护士', '律师', '法官', '记者', '作家', '画家', '歌手', '演员', '明星', '导演',
  '司机', '杀手', '特工', '间谍', '士兵', '将军', '军官', '皇帝', '皇后', '公主', '王子', '国王', '女王', '太子', '格格', '师父',
  '师傅', '师兄', '师弟', '师妹', '师姐', '徒弟', '主人公', '男主角', '女主角', '主角', '村花', '班花', '校花', '学霸', '工人',
  '学生', '大学生', '新生', '房东', '客户', '头目', '首领', '老大', '保安', '保镖', '管家', '女佣', '保姆', '厨师', '服务员',
  '科学家', '学家', '专家', '工程师', '设计师', '程序员', '演说家', '制片人', '经纪人', '代理人', '策划人', '主持人', '机长',
  '船长', '舰长', '团长', '营长', '连长', '排长', '班长', '司令', '指挥官', '大都护', '巡捕', '捕快', '大盗', '毒枭', '土匪',
  '小偷', '骗子', '混混', '黑帮', '流氓', '囚犯', '犯人', '嫌犯', '凶手', '神父', '牧师', '修女', '和尚', '道士', '剑客', '侠客',
  '艺人', '模特', '舞女', '妓女', '更夫', '渔夫', '农民', '村民', '少爷', '小姐', '千金', '大小姐', '公子', '掌门', '掌柜',
  '不速之客', '新人', '主播', '帅哥', '美女', '辣妈', '白领', '丽人', '侍应生', '高中生', '初中生', '中学生', '小学生', '研究生',
  '孤女', '义子', '义女', '情妇', '卧底', '副总', '枭雄', '宗师', '军阀', '绅士', '门房', '患者', '病人', '铁匠', '大臣', '社长',
  '老伴', '同性恋', '暴徒', '妖妃', '同伴', '同乡', '同行', '教练', '前台', '少帅', '长子', '长女', '次子', '次女', '幼子', '故交', '拿督', '高手', '部长', '课长', '处长', '科长', '所长',
  '院长', '会长', '组长', '店长', '酋长', '学长', '学姐', '学弟', '学妹', '前辈', '后辈', '冷血', '大哥', '大姐',
  '太太', '夫人', '先生', '大兵', '老千', '保长', '乡长', '镇长', '戏子', '故事', 
  '兽医', '合伙人', '警花', '社员', '职员', '员工', '队员', '成员', '组员', '会员', '总监', '主管', '大师', '制作人', '理发师', '安检员', '警卫员', '运动员', '少校', '上校', '中尉', '上尉', '中士', '下士', '探员', '检察官', '议员', '总统', '首相', '市民',
];

/** Function words that end a descriptive prefix (…让|至尊宝, …遭|师兄朱潜龙); never the first character kept. */
const CUT_AFTER = ['的', '让', '被', '把', '与', '和', '跟', '及', '遭', '对', '向', '给', '叫', '是', '为', '由', '使', '请', '得', '在', '到', '了', '着', '过', '从', '将', '找', '见', '遇', '当', '替', '帮', '救', '杀', '爱', '嫁', '娶', '识', '逢', '随'];

const TITLES = [
  '太太', '夫人', '先生', '大哥', '大姐', '警官', '牧师', '博士', '老师', '师傅', '师父', '医生', '律师', '教授', '老板', '老板娘', '队长', '探长', '督察', '局长', '市长',
  '县长', '村长', '厂长', '校长', '经理', '总裁', '少校', '上校', '中尉', '上尉', '将军', '司令', '船长', '机长', '神父', '修女',
  '小姐', '少爷', '公子', '公主', '王子', '格格', '掌柜', '大叔', '大爷', '大妈', '阿姨', '姑娘', '刑警', '侦探', '探员',
];

/** Compound surnames: never cut as a descriptive word (上官娣娣, 欧阳锋). */
const COMPOUND_SURNAMES = [
  '上官', '欧阳', '司马', '诸葛', '慕容', '东方', '西门', '令狐', '皇甫', '独孤', '南宫', '公孙', '长孙', '宇文', '司徒', '夏侯',
  '端木', '轩辕', '尉迟', '澹台', '淳于', '呼延', '申屠', '太史', '万俟', '闻人', '百里', '东郭', '钟离', '纳兰',
];

/** Tags (jieba) of words that describe rather than name. */
const DESCRIPTIVE_TAGS = new Set(['n', 'vn', 'v', 'vd', 'a', 'ad', 'an', 'b', 'd', 'i', 'l', 'm', 'mq', 'ns', 'nt', 's', 't', 'f', 'q', 'r', 'c', 'p', 'u', 'uj', 'ul', 'z']);

const NOT_NAMES = [
  '他', '她', '它', '他们', '她们', '我', '我们', '你', '你们', '自己', '众人', '两人', '二人', '三人', '一家', '大家', '所有人',
  '某人', '其', '此人', '对方', '本人', '主人', '角色', '一角', '客串',
];

export const PLAYED_DEFAULTS: Readonly<PlayedOptions> = Object.freeze({
  minLength: 2,
  maxHanLength: 6,
  maxDottedLength: 14,
  maxLatinLength: 24,
  window: 24,
  roleNouns: Object.freeze([...ROLE_NOUNS].sort((a, b) => b.length - a.length)),
  cutAfter: Object.freeze(CUT_AFTER),
  notNames: Object.freeze(NOT_NAMES),
  titles: Object.freeze(TITLES),
  tagger: null,
  taggerMinLength: 5,
});

/** A mined mention: a character (cleaned) played by an actor (as written), in one synopsis. */
export interface PlayedMention {
  /** Cleaned character name (surface form, not yet normalised). */
  character: string;
  /** Actor name as written in the bracket / before 饰演. */
  actor: string;
  /** Offset of the mention in the text. */
  index: number;
  /** The relation prefix stripped off the character name ({@link stripRelationPrefix}), if any. */
  stripped?: string;
}

export interface PlayedRejection {
  /** The text looked at (short). */
  text: string;
  reason: string;
  index: number;
}

/** A cleaned name, with the relation prefix that was stripped off it (之子霍廷恩 → 霍廷恩, stripped 之子), if any. */
export type CharacterResult = { name: string; stripped?: string } | { reject: string };

/**
 * Relation prefixes that synopses glue to a name ("霍元甲之子霍廷恩（…饰）", "其女陆永瑜", "副官曹蛮"): 之 or
 * 其 plus a kin word, or a subordinate's rank. The segment before the bracket then starts with them.
 */
const RELATION_KIN = [
  '长子', '次子', '幼子', '养子', '养女', '长女', '次女', '独子', '爱女', '遗孀', '妻子', '丈夫', '儿子', '女儿', '孙女', '侄女',
  '子', '女', '妻', '夫', '母', '父', '弟', '兄', '妹', '姐', '孙', '侄',
];
/** Words that, after 之/其, make a longer relation than a kin character (其女友X is "his girlfriend X", not 其女 + 友X). */
const RELATION_LONGER = ['女友', '男友', '女朋友', '男朋友', '未婚妻', '未婚夫', '前妻', '前夫', '好友', '朋友', '手下', '部下', '弟子', '徒弟', '师父', '师傅', '母亲', '父亲'];
const RELATION_PREFIX = new RegExp(
  `(?:[之其](?:${[...RELATION_LONGER, ...RELATION_KIN].sort((a, b) => b.length - a.length).join('|')})|副官|部下|属下|手下|随从|侍卫|家丁)`,
  'gu',
);

/**
 * Strip everything up to a relation word ({@link RELATION_PREFIX}) off a mined character name when a
 * name of at least `minLength` characters is left (之子霍廷恩 → 霍廷恩, 霍元甲之子霍廷恩 → 霍廷恩; 之子
 * alone stays and is rejected later).
 * @returns the name and the text removed ('' when none)
 */
export function stripRelationPrefix(name: string, minLength: number = PLAYED_DEFAULTS.minLength): { name: string; stripped: string } {
  // the last relation word that leaves a name of minLength characters (霍元甲之子霍廷恩 → 霍廷恩)
  let best: { name: string; stripped: string } = { name, stripped: '' };
  for (const m of name.matchAll(RELATION_PREFIX)) {
    const rest = name.slice(m.index! + m[0].length);
    if ([...rest].length >= minLength) best = { name: rest, stripped: name.slice(0, m.index! + m[0].length) };
  }
  return best;
}

/** A clause word ({@link CLAUSE_WORDS}) stripped off the start of a mined name when a name of `minLength` characters is left. */
export function stripClausePrefix(name: string, minLength: number = PLAYED_DEFAULTS.minLength): { name: string; stripped: string } {
  for (const w of CLAUSE_WORDS) {
    if (name.startsWith(w) && [...name.slice(w.length)].length >= minLength) return { name: name.slice(w.length), stripped: w };
  }
  return { name, stripped: '' };
}

/**
 * A verb followed by a kin word or a role noun, not a name: a taking-along verb and a kin word (携妻,
 * 偕妻, 携太太, 携新妻), or — with a tagger — a verb of two or more characters and a kin word or role
 * noun (失恋女, 失踪幼女, 自称医生). A single-character verb before a title (查老板, 查 a surname) is a name.
 */
export function isVerbPhrase(name: string, opts: Partial<PlayedOptions> = {}): boolean {
  const o: PlayedOptions = { ...PLAYED_DEFAULTS, ...opts };
  const tails = [...KIN_TAILS, ...o.roleNouns].filter((t) => name.endsWith(t) && name.length > t.length);
  for (const t of tails) {
    const head = name.slice(0, -t.length);
    if (KIN_TAILS.includes(t) && TAKE_VERBS.includes(head)) return true;
    if (!o.tagger || [...head].length < 2 || !HAN_ALL.test(head)) continue;
    const tokens = o.tagger(head);
    if (tokens.length === 1 && VERB_TAGS.has(tokens[0].tag)) return true;
  }
  return false;
}

const HAN = /\p{Script=Han}/u;
const HAN_ALL = /^[\p{Script=Han}·]+$/u;
const LATIN_NAME = /^[A-Za-z][A-Za-z .'\-·]*$/;
/** Punctuation and brackets that end the text before a mention. */
const BOUNDARY = /[，。；：、！？,;:!?…—\n\r\t（）()《》【】「」『』“”"<>［］\[\]|/]/u;
const DOTS = /[\u00B7\u2022\u2027\u30FB\uFF65\u0387\u2219\u22C5]/gu;
const QUOTE_CLOSE = /[”"’'」』]$/u;
const QUOTE_OPEN_FOR: Record<string, RegExp> = { '”': /“/g, '"': /"/g, '’': /‘/g, "'": /'/g, '」': /「/g, '』': /『/g };

/** Unifies middle dots (•, ‧, ・, ･ …) to `·` and normalises (NFKC, spaces). */
export function unifyDots(s: string): string {
  return normalizeName(s.replace(DOTS, '·'));
}

function lengthCheck(name: string, o: PlayedOptions): string | null {
  if (name === '') return 'empty';
  if (o.notNames.includes(name)) return 'pronoun or group word';
  if (/^[\d\s·.]+$/u.test(name)) return 'a number';
  if (HAN.test(name)) {
    if (!HAN_ALL.test(name)) {
      // mixed scripts: allow Han + Latin/digits such as 李Sir, 小K, 1900号 — but not sentences
      if (/[\s]/u.test(name) || name.length > o.maxHanLength + 2) return 'mixed text, not a name';
    }
    const han = [...name].filter((c) => c !== '·').length;
    if (han < o.minLength) return 'too short';
    if (name.includes('·')) {
      if (han > o.maxDottedLength) return 'too long for a name';
      if (/^·|·$|··/u.test(name)) return 'stray dot';
    } else if (han > o.maxHanLength) return 'too long for a name (a description?)';
    return null;
  }
  if (LATIN_NAME.test(name)) {
    if (name.replace(/[^A-Za-z]/g, '').length < o.minLength) return 'too short';
    if (name.length > o.maxLatinLength) return 'too long for a name';
    return null;
  }
  return 'not a name (script)';
}

/**
 * Cleans the text before a `（A 饰）` bracket into a character name, or says why it is not one.
 * `before` is the text immediately preceding the bracket (any length; only the tail is used).
 */
export function cleanCharacterName(before: string, opts: Partial<PlayedOptions> = {}): CharacterResult {
  const o: PlayedOptions = { ...PLAYED_DEFAULTS, ...opts };
  let s = before.slice(-o.window).replace(/\s+$/u, '');
  // a quoted name right before the bracket: “黄毛”（章宇 饰）
  const q = QUOTE_CLOSE.exec(s);
  if (q) {
    const close = q[0];
    const open = QUOTE_OPEN_FOR[close];
    const body = s.slice(0, -1);
    let start = -1;
    for (const m of body.matchAll(open)) start = m.index!;
    if (start < 0) return { reject: 'unbalanced quote' };
    const name = unifyDots(body.slice(start + 1));
    const bad = lengthCheck(name, o);
    return bad ? { reject: bad } : { name };
  }
  // back to the last boundary (punctuation, brackets); a space ends it unless between Latin letters
  const parts = s.split(BOUNDARY);
  s = parts[parts.length - 1];
  const words = s.split(/[\s\u3000]+/u).filter(Boolean);
  if (words.length > 1) {
    // keep a trailing run of Latin words ("Kit Harington"), otherwise the last word
    const latin = /^[A-Za-z.'\-]+$/;
    let k = words.length - 1;
    while (k > 0 && latin.test(words[k]) && latin.test(words[k - 1])) k--;
    s = words.slice(k).join(' ');
  } else s = words[0] ?? '';
  s = s.replace(/^[“"‘'「『]+/u, '');
  s = unifyDots(s);
  if (s === '') return { reject: 'no name before the bracket' };
  // a name introduced by 名为/叫做/叫/名叫/取名
  const named = /(?:名为|名叫|叫做|取名为?|化名|绰号|外号|人称)([^的]+)$/u.exec(s);
  if (named) {
    s = named[1];
    if (/^\d{2,}$/u.test(s)) return { name: s }; // 取名1900
  }
  // a Latin name after a Han description: 卧底联络人QSir, 木匠Bass先生, 冷血杀手Chigurh
  const latinTail = /^[\p{Script=Han}]{2,}?([A-Za-z][A-Za-z.'\-]*(?:先生|小姐|太太|夫人)?)$/u.exec(s);
  if (latinTail && latinTail[1].replace(/[^A-Za-z]/g, '').length >= o.minLength) return { name: latinTail[1] };
  // 1. up to the last 的, a role noun, then a function word (keeping at least two characters): role
  //    nouns first so that 同事玛茜 / 同学晴依 lose 同事 / 同学, not only 同
  const de = s.lastIndexOf('的');
  if (de >= 0) s = s.slice(de + 1);
  s = stripRole(s, o);
  s = cutAfterLast(s, o);
  // 2. up to the last role noun, when a name of ≥ 2 characters follows it; nationality (美国人约翰·米勒)
  s = stripRole(s, o);
  s = s.replace(/^[\p{Script=Han}]{1,4}?(?:国人|族人)(?=[\p{Script=Han}A-Za-z]{2})/u, '');
  // 男/女 before a short name (男陈锋, 女主播 is a role noun already)
  s = s.replace(/^[男女](?=\p{Script=Han}{2,3}$)/u, '');
  // 3. with a tagger: up to the last descriptive word of a long candidate
  if (o.tagger) {
    const cut = tagCut(s, o);
    if (cut !== s) s = stripRole(cut, o);
  }
  // 4. a relation prefix glued to the name (之子霍廷恩, 其女陆永瑜, 副官曹蛮), or a clause word (还有艾格); reported by the importer
  const relation = stripRelationPrefix(s, o.minLength);
  s = relation.name;
  const clause = stripClausePrefix(s, o.minLength);
  if (clause.stripped) {
    s = clause.name;
    relation.stripped += clause.stripped;
  }
  // a function word plus a pronoun (与她, 和他) is not a name
  if (o.cutAfter.includes(s[0]) && o.notNames.includes(s.slice(1))) return { reject: 'a pronoun, not a name' };
  const bad = lengthCheck(s, o);
  if (bad) return { reject: bad };
  if (o.roleNouns.includes(s)) return { reject: 'a role noun, not a name' };
  if (roleInside(s, o)) return { reject: 'a description with a role noun' };
  if (isVerbPhrase(s, o)) return { reject: 'a verb and a kin word or role (携妻), not a name' };
  return relation.stripped ? { name: s, stripped: relation.stripped } : { name: s };
}

function cutAfterLast(s: string, o: PlayedOptions): string {
  // everything up to the last 的 is a description ("身陷囹圄的李问"), whatever is left
  const de = s.lastIndexOf('的');
  if (de >= 0) s = s.slice(de + 1);
  // function words are looked for only before a middle dot (彼得·奎尔 keeps its 得)
  const dot = s.indexOf('·');
  const head = [...(dot >= 0 ? s.slice(0, dot) : s)];
  const tail = dot >= 0 ? s.slice(dot) : '';
  const keep = dot >= 0 ? o.minLength : o.minLength;
  for (let i = head.length - 1 - keep; i >= 0; i--) {
    const c = head[i];
    if (!o.cutAfter.includes(c)) continue;
    if (c === '令' && head[i + 1] === '狐') continue;
    // a short name may start with 向, which is also a surname (向警予)
    if (i === 0 && c === '向' && head.length <= 3) continue;
    return head.slice(i + 1).join('') + tail;
  }
  return s;
}

/** Han characters of the part of `s` before its first middle dot (the part descriptions sit in). */
function tagCut(s: string, o: PlayedOptions): string {
  const dot = s.indexOf('·');
  const head = dot >= 0 ? s.slice(0, dot) : s;
  const tail = dot >= 0 ? s.slice(dot) : '';
  const hanCount = [...head].filter((c) => HAN.test(c)).length;
  if (hanCount < (dot >= 0 ? o.minLength + 2 : o.taggerMinLength)) return s;
  const tokens = o.tagger!(head);
  let pos = 0;
  let cutAt = -1;
  for (const t of tokens) {
    const end = pos + t.word.length;
    const rest = [...head.slice(end)].length;
    // "X人" (霍比特人, 美国人) ends a description too
    const descriptive =
      (DESCRIPTIVE_TAGS.has(t.tag) && [...t.word].length >= 2 && !COMPOUND_SURNAMES.includes(t.word)) || (t.word === '人' && pos > 0);
    if (descriptive && rest >= o.minLength) cutAt = end;
    pos = end;
  }
  return cutAt > 0 ? head.slice(cutAt) + tail : s;
}

/** A role noun left inside the name: allowed only as a title after a short surname (曹警官, 凯奇少校). */
function roleInside(s: string, o: PlayedOptions): boolean {
  for (const r of o.roleNouns) {
    const at = s.indexOf(r);
    if (at < 0) continue;
    if (at + r.length === s.length && at > 0 && at <= 2 && o.titles.includes(r)) continue;
    return true;
  }
  return false;
}

function stripRole(s: string, o: PlayedOptions): string {
  let best = -1;
  let bestLen = 0;
  for (const r of o.roleNouns) {
    let at = s.lastIndexOf(r);
    while (at >= 0) {
      const rest = s.slice(at + r.length);
      if ([...rest].length >= o.minLength) {
        if (at + r.length > best + bestLen) {
          best = at;
          bestLen = r.length;
        }
        break;
      }
      at = at > 0 ? s.lastIndexOf(r, at - 1) : -1;
    }
  }
  if (best < 0) return s;
  const rest = s.slice(best + bestLen);
  // "老板娘X": prefer the longest role ending at the same place (roleNouns is sorted longest first)
  return rest;
}

/** Splits the actor part of a bracket: `A & B`, `A、B、C`, `A/Latin`. */
function splitActors(inner: string): { actors: string[][]; group: boolean } {
  const s = inner.trim();
  const group = /等\s*$/u.test(s);
  const body = s.replace(/等\s*$/u, '');
  const items = body
    .split(/\s*[、&＆,，;；]\s*/u)
    .map((x) => x.trim())
    .filter(Boolean);
  // each item may hold alternatives: Chinese/Latin (吴珊卓/SandraOh, 蒂姆·罗宾斯 Tim Robbins)
  const actors = items.map((it) => actorVariants(it));
  return { actors, group };
}

/** Name variants of one actor as written: the whole, the Han part, the Latin part, `/` alternatives. */
export function actorVariants(raw: string): string[] {
  const out: string[] = [];
  const add = (x: string) => {
    const v = unifyDots(x);
    if (v !== '' && !out.includes(v)) out.push(v);
  };
  for (const alt of raw.split(/\s*[/／]\s*/u)) {
    add(alt);
    const m = /^([\p{Script=Han}·•‧・]+)\s*([A-Za-z].*)$/u.exec(alt.trim());
    if (m) {
      add(m[1]);
      add(m[2]);
    }
  }
  return out;
}

/** Character list before a multi-actor bracket: `A、B和C` → [A, B, C] (raw, uncleaned). */
function splitCharacters(before: string, n: number, o: PlayedOptions): string[] | null {
  const tail = before.slice(-o.window * n);
  const stop = tail.split(/[，。；：！？,;:!?…—\n（）()《》【】]/u);
  const seg = stop[stop.length - 1];
  const items = seg.split(/、|和|与|及|以及/u);
  if (items.length < n) return null;
  return items.slice(-n);
}

/**
 * Finds PLAYED mentions in one synopsis. `resolveActor(variants)` returns a key for the first variant
 * naming a person credited on the film, or undefined; only resolved actors are returned. Everything
 * else becomes a rejection with a reason.
 */
export function minePlayed(
  text: string,
  resolveActor: (variants: string[]) => string | undefined,
  opts: Partial<PlayedOptions> = {},
): { mentions: (PlayedMention & { person: string })[]; rejected: PlayedRejection[] } {
  const o: PlayedOptions = { ...PLAYED_DEFAULTS, ...opts };
  const mentions: (PlayedMention & { person: string })[] = [];
  const rejected: PlayedRejection[] = [];
  const bracket = /[（(]([^（()）\n]{1,60}?)\s*饰(?:演)?\s*[)）]/gu;
  for (const m of text.matchAll(bracket)) {
    const index = m.index!;
    const inner = m[1];
    const before = text.slice(0, index);
    const { actors, group } = splitActors(inner);
    const short = text.slice(Math.max(0, index - 12), index + m[0].length);
    if (actors.length === 0) {
      rejected.push({ text: short, reason: 'no actor in the bracket', index });
      continue;
    }
    if (group) {
      rejected.push({ text: short, reason: 'a group of actors (…等饰)', index });
      continue;
    }
    if (actors.length === 1 || /[&＆]/u.test(inner)) {
      // one character, one or several actors (twins, ages)
      const c = cleanCharacterName(before, o);
      if ('reject' in c) {
        rejected.push({ text: short, reason: `character: ${c.reject}`, index });
        continue;
      }
      for (const variants of actors) {
        const person = resolveActor(variants);
        if (person === undefined) rejected.push({ text: short, reason: 'actor not credited on the film', index });
        else mentions.push({ character: c.name, actor: variants[0], index, person, ...(c.stripped ? { stripped: c.stripped } : {}) });
      }
      continue;
    }
    // A、B、C（x、y、z 饰）: pair in order
    const chars = splitCharacters(before, actors.length, o);
    if (!chars) {
      rejected.push({ text: short, reason: 'several actors, characters not listed alike', index });
      continue;
    }
    chars.forEach((raw, i) => {
      const c = cleanCharacterName(raw, o);
      if ('reject' in c) {
        rejected.push({ text: short, reason: `character: ${c.reject}`, index });
        return;
      }
      const person = resolveActor(actors[i]);
      if (person === undefined) rejected.push({ text: short, reason: 'actor not credited on the film', index });
      else mentions.push({ character: c.name, actor: actors[i][0], index, person, ...(c.stripped ? { stripped: c.stripped } : {}) });
    });
  }
  // A饰演(的)X — the actor must be a credited person (longest match ending right before 饰演)
  const verb = /饰演(的)?/gu;
  for (const m of text.matchAll(verb)) {
    const index = m.index!;
    if (/^[\s]*[)）]/u.test(text.slice(index + m[0].length))) continue; // （A 饰演）handled above
    const head = text.slice(Math.max(0, index - 16), index);
    const segs = head.split(BOUNDARY);
    const seg = segs[segs.length - 1].replace(/\s+$/u, '');
    let person: string | undefined;
    let actor = '';
    const chars = [...seg];
    for (let k = Math.max(0, chars.length - 14); k <= chars.length - 2 && person === undefined; k++) {
      const cand = chars.slice(k).join('').replace(/^(?:由|则|将|还|也|会|并|她|他|在剧中|剧中)/u, '');
      if (cand.length < 2) continue;
      person = resolveActor(actorVariants(cand));
      if (person !== undefined) actor = cand;
    }
    if (person === undefined) continue; // not a credited actor: not a mention (饰演 is also used in prose)
    const after = text.slice(index + m[0].length, index + m[0].length + o.window);
    const stop = after.search(/[，。；：、！？,;:!?…—\n（）()《》【】]|一角|这一角色|这个角色|的角色/u);
    const raw = stop >= 0 ? after.slice(0, stop) : '';
    const short = text.slice(Math.max(0, index - 8), index + m[0].length + Math.min(after.length, 12));
    if (raw === '') {
      rejected.push({ text: short, reason: 'character: no end of the name after 饰演', index });
      continue;
    }
    // after 饰演 the name comes first and must end right there: only a role noun may precede it
    const name = stripRole(unifyDots(raw.replace(/^[“"‘'「『]+|[”"’'」』]+$/gu, '')), o);
    const bad = lengthCheck(name, o) ?? ([...name].length > 4 && !name.includes('·') && HAN.test(name) ? 'too long after 饰演 (a clause, not a name?)' : null);
    if (bad) {
      rejected.push({ text: short, reason: `character: ${bad}`, index });
      continue;
    }
    if (o.roleNouns.includes(name) || roleInside(name, o)) {
      rejected.push({ text: short, reason: 'character: a role noun, not a name', index });
      continue;
    }
    mentions.push({ character: name, actor, index, person });
  }
  return { mentions, rejected };
}
