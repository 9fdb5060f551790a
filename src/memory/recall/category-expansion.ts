import type { Bm25Stats } from '../embedder/index.js';
import type { RecallCorpus } from './recall-corpus.js';

/**
 * Category words of a query and the kinds of thing they stand for: "What activities does she do?"
 * is answered by turns that say "pottery", "camping", "painting" — none of which shares a word with
 * the question; "我有什么爱好" by 徒步 or 画画. A fixed, hand-written lexicon of the categories a
 * personal agent is asked about (hobbies, sports, pets, books, music, food, games, films, places
 * travelled, family, writing, art, causes, allergies, collections), in English and Chinese, written
 * from general knowledge (decision 0130 says what was read before it was written). With
 * `RankOptions.categoryWeight` > 0 recall adds the members of the categories a set question asks
 * about as extra query terms at that weight, counted only in the statements of the people the query
 * names when it names any; off by default (its held-out gain on LoCoMo is inside noise).
 */

/** One category: the words that name it (English singular/plural forms, Chinese words) and its members. */
interface Category {
  /** English words naming the category (lower case; a plural is matched through `singular`). */
  en: readonly string[];
  /** Chinese words naming the category (matched as substrings). */
  zh: readonly string[];
  /** Kinds of thing in the category, English and Chinese (tokenised like any query text). */
  members: string;
}

const CATEGORIES: readonly Category[] = [
  {
    en: ['activity', 'hobby', 'pastime', 'interest', 'leisure'],
    zh: ['爱好', '兴趣', '活动', '消遣', '业余'],
    members:
      'hiking camping painting drawing pottery swimming running jogging cycling biking yoga dancing singing reading writing cooking baking gardening fishing photography knitting climbing skiing surfing kayaking volunteering travelling gaming chess guitar piano ' +
      '徒步 爬山 露营 画画 绘画 陶艺 游泳 跑步 骑车 瑜伽 跳舞 唱歌 看书 写作 做饭 烘焙 园艺 钓鱼 摄影 编织 攀岩 滑雪 冲浪 志愿 旅行 下棋',
  },
  {
    en: ['sport', 'exercise', 'workout', 'fitness', 'training'],
    zh: ['运动', '体育', '锻炼', '健身'],
    members:
      'basketball football soccer baseball tennis volleyball golf hockey boxing swimming running jogging cycling surfing skiing yoga pilates gym weights cardio marathon ' +
      '篮球 足球 棒球 网球 排球 高尔夫 拳击 游泳 跑步 骑行 滑雪 瑜伽 健身房 举重 马拉松 羽毛球 乒乓球',
  },
  {
    en: ['martial'],
    zh: ['武术', '功夫'],
    members: 'karate kickboxing taekwondo judo kung boxing aikido jiu jitsu wrestling 太极 跆拳道 空手道 柔道 拳击 散打',
  },
  {
    en: ['pet', 'animal'],
    zh: ['宠物', '动物'],
    members: 'dog puppy cat kitten turtle tortoise fish bird parrot hamster rabbit bunny horse snake lizard 狗 小狗 猫 猫咪 乌龟 鱼 鸟 鹦鹉 仓鼠 兔子 马 蛇',
  },
  {
    en: ['book', 'novel', 'author'],
    zh: ['书', '小说', '作者'],
    members: 'novel book read reading author series memoir fantasy chapter 小说 读 看书 作者 系列',
  },
  {
    en: ['instrument', 'music', 'band', 'artist', 'concert'],
    zh: ['乐器', '音乐', '乐队', '演唱会'],
    members: 'guitar piano violin drums cello flute saxophone ukulele trumpet concert band festival gig song album 吉他 钢琴 小提琴 鼓 大提琴 长笛 萨克斯 演唱会 音乐节 乐队 歌',
  },
  {
    en: ['movie', 'film', 'show', 'series'],
    zh: ['电影', '电视剧', '节目', '剧'],
    members: 'movie film watched watching cinema series episode show trilogy documentary 电影 电视剧 影院 纪录片 追剧',
  },
  {
    en: ['food', 'dish', 'recipe', 'dessert', 'meal', 'snack', 'cuisine'],
    zh: ['食物', '菜', '甜点', '食谱', '美食', '零食'],
    members: 'recipe cook cooking bake baking cake cookies pie ice cream pasta soup salad curry chocolate dessert 蛋糕 饼干 冰淇淋 面条 汤 沙拉 甜点 做饭 烤',
  },
  {
    en: ['game'],
    zh: ['游戏'],
    members: 'game games console xbox playstation nintendo switch tournament chess poker 游戏 主机 比赛 象棋',
  },
  {
    en: ['city', 'country', 'state', 'place', 'location', 'trip', 'travel', 'destination'],
    zh: ['城市', '国家', '地方', '旅行', '旅游', '去过'],
    members: 'trip travel traveled travelled visited visit vacation flew tour road 旅行 旅游 去过 度假 出差',
  },
  {
    en: ['child', 'kid', 'family', 'children'],
    zh: ['孩子', '家人', '儿女'],
    members: 'son daughter kids child baby family 儿子 女儿 孩子 宝宝 家人',
  },
  {
    en: ['art', 'artwork', 'painting', 'craft'],
    zh: ['艺术', '作品', '手工'],
    members: 'painting paint drawing sketch sculpture pottery canvas portrait mural 画 素描 雕塑 陶艺',
  },
  {
    en: ['writing', 'story'],
    zh: ['写作', '写的'],
    members: 'poem poetry story stories novel screenplay script blog journal essay article 诗 故事 小说 剧本 博客 日记 文章',
  },
  {
    en: ['cause', 'charity', 'volunteering'],
    zh: ['公益', '慈善', '志愿'],
    members: 'volunteer volunteering shelter fundraiser donate charity nonprofit 志愿 捐 慈善 义工',
  },
  {
    en: ['allergy', 'allergic'],
    zh: ['过敏'],
    members: 'allergic allergy allergies sneeze pollen peanut dairy gluten 过敏 花粉 花生',
  },
  {
    en: ['collection', 'collectible', 'collect', 'item'],
    zh: ['收藏'],
    members: 'collection collect signed memorabilia card jersey figurine stamp coin 收藏 球衣 卡片 邮票 硬币',
  },
];

/** English category word → indexes of its categories (singular forms). */
const BY_WORD = new Map<string, number[]>();
CATEGORIES.forEach((c, i) => {
  for (const w of c.en) BY_WORD.set(w, [...(BY_WORD.get(w) ?? []), i]);
});

/** "activities" → "activity", "hobbies" → "hobby", "books" → "book"; a word that is no plural stays. */
function singular(w: string): string {
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('es') && /(?:ch|sh|x|ss)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !w.endsWith('ss') && w.length > 3) return w.slice(0, -1);
  return w;
}

/** Longest query head read for category words (characters): a pasted text is not a question. */
const MAX_CHARS = 300;

/** Words that ask for a kind of thing right before a category word ("what sports", "which kind of books", "favourite food"). */
const ASKS_KIND = new Set(['what', 'which', 'favorite', 'favourite', 'kind', 'kinds', 'type', 'types', 'sort', 'sorts', 'other', 'any', 'many', 'all']);
/** Chinese words that ask which things: 什么 / 哪些 / 哪几 / 啥 / 几种 / 几个. */
const ASKS_KIND_ZH = /什么|哪些|哪几|啥|几种|几个|多少/u;

/**
 * The member words of every category a question asks about as a set or a kind (space-separated
 * text, to be tokenised like the query), or '' when it asks about none. A category word counts when
 * it is plural ("activities", "pets"), or one of the three words before it asks for a kind ("what
 * sport", "which kind of book", "favourite food"); in Chinese when the query also asks which (什么,
 * 哪些…): "the activities fair" or "her art show" are no set questions. Cost: one pass over the
 * query's words and a substring test per Chinese category word.
 */
export function categoryMembers(query: string): string {
  const q = query.length > MAX_CHARS ? query.slice(0, MAX_CHARS) : query;
  const hit = new Set<number>();
  const words = [...q.toLowerCase().matchAll(/[a-z]+/g)].map((m) => m[0]);
  words.forEach((w, i) => {
    const one = singular(w);
    const cats = BY_WORD.get(w) ?? BY_WORD.get(one);
    if (!cats) return;
    const plural = one !== w && !BY_WORD.has(w);
    if (!plural && !words.slice(Math.max(0, i - 3), i).some((x) => ASKS_KIND.has(x))) return;
    for (const c of cats) hit.add(c);
  });
  if (/[\u4e00-\u9fff]/.test(q) && ASKS_KIND_ZH.test(q)) {
    CATEGORIES.forEach((c, i) => {
      if (c.zh.some((w) => q.includes(w))) hit.add(i);
    });
  }
  return [...hit]
    .sort((a, b) => a - b)
    .map((i) => CATEGORIES[i].members)
    .join(' ');
}

/**
 * The words of `members` (text from `categoryMembers`) that are not query terms already, each at
 * `weight` (a query term counts 1 per occurrence); undefined when there are none.
 */
export function memberTermsOf(terms: ReadonlyMap<string, number>, members: string, tokenize: (text: string) => string[], weight: number): Map<string, number> | undefined {
  if (!members || weight <= 0) return undefined;
  const out = new Map<string, number>();
  for (const t of tokenize(members)) if (!terms.has(t)) out.set(t, weight);
  return out.size ? out : undefined;
}

/**
 * Adds the member terms' BM25 score (same statistics; BM25 sums over terms, so this is the score the
 * members would add as query terms) to the lexical scores of the documents `mine` accepts — the
 * statements of the people the query names, or every document when it names nobody. A document
 * found only through its members joins the candidates. `owner` records which corpus answered.
 */
export function addMemberScores(
  lex: Map<string, number>,
  members: Map<string, number>,
  corpora: readonly RecallCorpus[],
  needDf: (terms: Iterable<string>) => void,
  stats: Bm25Stats,
  owner: Map<string, number>,
  maxCandidates: number,
  mine?: (id: string) => boolean,
): void {
  needDf(members.keys());
  const seen = new Set<string>();
  corpora.forEach((c, i) => {
    for (const [id, s] of c.lexical(members, stats, maxCandidates)) {
      if (seen.has(id) || (owner.has(id) && owner.get(id) !== i)) continue;
      seen.add(id);
      if (!owner.has(id)) owner.set(id, i);
      if (mine && !mine(id)) continue;
      lex.set(id, (lex.get(id) ?? 0) + s);
    }
  });
}
