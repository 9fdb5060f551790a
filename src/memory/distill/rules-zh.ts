import type { FactRule } from './fact-rule.js';
import { age, splitList, wrap } from './fact-rule.js';

/** Characters that end a Chinese object. */
const ZH_STOP = /[，。！？,.!?；;：:、\n（）()“”"]/;
const ZH_PARTICLE = /(?:了|啦|呢|哦|呀|啊|吧|哈|嘛|的)+$/;
/** Words that end a Chinese capture even without punctuation (我叫张三今年30岁). */
const ZH_CUT = /(今年|现在|目前|我|但是|但|而且|并且|因为|所以|住在|喜欢|是一名|很多年|多年|好多年|在.{1,10}工作)/;
/** Question words and pronouns: an object holding one is not a fact (我住在哪里, 我喜欢它). */
const ZH_NOT_OBJECT = /什么|哪|谁|啥|几|多少|吗|呢|来着|怎么|么|^(?:它|他|她|你|您|这|那|这个|那个|这些|那些|这样|那样|这里|那里|这儿|那儿|自己|大家)$/;
/** Where one works that is not an employer (我在家工作, 我在上海工作). */
const ZH_NOT_EMPLOYER = /^(?:家|家里|这里|那里|这儿|那儿|外地|国外|本地|老家|附近)$|(?:市|省|县|区)$|^(?:北京|上海|天津|重庆|广州|深圳|杭州|南京|苏州|成都|武汉|西安|长沙|郑州|青岛|厦门|宁波|大连|沈阳|哈尔滨|济南|合肥|福州|昆明|南宁|贵阳|南昌|太原|石家庄|兰州|乌鲁木齐|拉萨|呼和浩特|银川|西宁|海口|三亚|香港|澳门|台北|东北|广东|浙江|江苏|四川|湖南|湖北|山东|河南|河北|福建|安徽|江西|云南|广西|贵州|陕西|山西|甘肃|海南|新疆|西藏|内蒙古|宁夏|青海|吉林|辽宁|黑龙江|美国|日本|英国|德国|法国|韩国|新加坡|加拿大|澳大利亚)$/;
/** Occupations (and their endings) for 我是X / 我是一个X / 我当了X. */
const ZH_OCCUPATION = /(?:师|员|生|家|工|手|官|医|匠|长|总|会计|护士|老板|司机|主播|编辑|记者|翻译|律师|医生|学生|警察|厨师|保安|销售|设计|模特|演员|歌手|主持人|导游|农民|保姆|店主|创业者|自由职业者)$/;

/** Cleans a Chinese capture into an object, or undefined when it is not one. */
export function zhObject(rest: string, max = 20): string | undefined {
  let s = rest.split(ZH_STOP)[0] ?? '';
  const cut = s.search(ZH_CUT);
  if (cut > 0) s = s.slice(0, cut);
  s = s.replace(ZH_PARTICLE, '').trim();
  if (!s || [...s].length > max || ZH_NOT_OBJECT.test(s)) return undefined;
  return s;
}

/**
 * Where one stays that is not a home (酒店, 民宿), and states one lives in (生活在恐惧中, 活在当下, …之中).
 * A state ending in 中 is a closed list: 台中, 汉中, 晋中, 城中 are places.
 */
const ZH_NOT_HOME = /酒店|宾馆|旅馆|旅店|民宿|招待所|青旅|客栈|帐篷|^(?:恐惧|痛苦|阴影|幸福|回忆|过去|梦|梦里|梦中|希望|焦虑|压力|谎言|当下|黑暗|孤独|自己的世界)|之中$|^(?:不安|担忧|担心|恐慌|绝望|迷茫|悲伤|煎熬|自责|愧疚|后悔|内疚|纠结|幻想|想象|梦境|期待|等待|水深火热|病痛|贫困|债务|沉默|寂寞|忙碌)中$/;

const home = (s: string | undefined) => (s && !ZH_NOT_HOME.test(s) ? s : undefined);
const employer = (s: string | undefined) => (s && !ZH_NOT_EMPLOYER.test(s) ? s : undefined);
const occupation = (s: string | undefined) => (s && ZH_OCCUPATION.test(s) ? s : undefined);

/**
 * Chinese rules (T-9). Each pattern starts at 我 (or the clause the subject carries over to,
 * 我叫王磊，住在杭州 → 我住在杭州), so other people's facts (我妈妈住在成都) never match.
 */
export const ZH_RULES: FactRule[] = [
  { predicate: 'name', re: /(?:我叫|我的名字(?:是|叫)|我名叫|本人叫|我的姓名是|大家都叫我|大家叫我)\s*(.+)/, object: (m) => wrap(zhObject(m[1], 12)) },
  // 我是陈静: a name only when it looks like one (a common surname first) and is all the clause says.
  { predicate: 'name', re: /^(?:你好|大家好|嗨|哈喽)?[，,]?\s*我是([\u4e00-\u9fff]{2,3})$/, object: (m, x) => wrap(x.looksLikeName(m[1]) && !ZH_OCCUPATION.test(m[1]) ? m[1] : undefined) },
  { predicate: 'lives_in', re: /我(?:们一家|们全家|们|家)?(?:现在|目前|一直|平时)?(?:住在|居住在|家住在?|生活在|定居在|住(?![院宿手嘴口过]))\s*(.+)/, object: (m) => wrap(home(zhObject(m[1]))) },
  { predicate: 'lives_in', re: /我家在\s*(.+)/, object: (m) => wrap(home(zhObject(m[1]))) },
  { predicate: 'lives_in', re: /我(?:现在|目前|一直)?在\s*([^，。！？,.!?\s]{1,12}?)\s*生活/, object: (m) => wrap(home(zhObject(m[1]))) },
  { predicate: 'lives_in', re: /我(?:去年|前年|今年|上个月|上周|最近|刚刚?|已经)?(?:搬到|搬去|搬来)了?\s*(.+)/, object: (m) => wrap(home(zhObject(m[1]))), move: true },
  { predicate: 'lives_in', re: /我(?:们|家)?(?:去年|前年|今年|上个月|上周|最近|刚刚?|已经)?从\s*[^，。！？,.!?]{1,12}?\s*(?:搬到|搬去|搬来)了?\s*(.+)/, object: (m) => wrap(home(zhObject(m[1]))), move: true },
  // A home that ended (我不再住在北京, 我已经不住在北京了, 我搬离了北京, 我从北京搬走了): it ends that home
  // (supersede.ts). A bare 我不住在北京 is a negation, no fact.
  { predicate: 'no_longer_lives_in', re: /我(?:们|家)?(?:现在|已经|早就|早已)?(?:不再|再也不)(?:住在|居住在|生活在|住)\s*(.+)/, object: (m) => wrap(home(zhObject(m[1]))) },
  { predicate: 'no_longer_lives_in', re: /我(?:们|家)?(?:现在|已经|早就|早已)(?:不|没)(?:住在|居住在|生活在|住)\s*(.+)/, object: (m) => wrap(home(zhObject(m[1]))) },
  { predicate: 'no_longer_lives_in', re: /我(?:们|家)?(?:不|没)(?:住在|居住在|生活在|住)\s*([^，。！？,.!?]+?)了/, object: (m) => wrap(home(zhObject(m[1]))) },
  { predicate: 'no_longer_lives_in', re: /我(?:们|家)?(?:去年|前年|今年|上个月|上周|最近|刚刚?|已经)?(?:搬离|搬出)了?\s*(.+)/, object: (m) => wrap(home(zhObject(m[1]))) },
  { predicate: 'no_longer_lives_in', re: /我(?:们|家)?(?:去年|前年|今年|上个月|上周|最近|刚刚?|已经)?从\s*([^，。！？,.!?]{1,12}?)\s*搬(?:走|出来|出去|离开?)了?/, object: (m) => wrap(home(zhObject(m[1]))) },
  { predicate: 'from', re: /我(?:来自|是从)\s*(.+?)(?:来的)?$/, object: (m) => wrap(zhObject(m[1])) },
  { predicate: 'from', re: /我(?:的)?老家(?:是|在)\s*(.+?)(?:的)?$/, object: (m) => wrap(zhObject(m[1])) },
  { predicate: 'from', re: /我(?:是)?(?:出生在|出生于|生在)\s*(.+)/, object: (m) => wrap(zhObject(m[1])) },
  { predicate: 'from', re: /我是在\s*(.+?)\s*长大的/, object: (m) => wrap(zhObject(m[1])) },
  { predicate: 'from', re: /我是([\u4e00-\u9fff]{2,4})人$/, object: (m) => wrap(/^(?:成年|老年|年轻|普通|正常|外地|本地|有钱|穷|好|坏|一个|个)/.test(m[1]) ? undefined : zhObject(m[1])) },
  {
    predicate: 'dislikes',
    // 我不再喜欢X / 再也不喜欢X: a change of taste (the earlier liking ends, see supersede.ts).
    re: /我(?:很|非常|特别|最|真的|已经|早就)?(?:不喜欢|讨厌|不爱|受不了|烦|不再喜欢|不再爱|再也不喜欢|再也不爱)\s*(.+)/,
    object: (m) => splitList(zhObject(m[1], 30), /[和与跟及]|、/),
  },
  {
    predicate: 'likes',
    re: /我(?:也|还|很|非常|特别|最|超|真的|一直|平时|挺)*(?:喜欢|热爱|喜爱|爱(?!人)|超爱)\s*(.+)/,
    object: (m) => splitList(zhObject(m[1], 30), /[和与跟及]|、/),
  },
  { predicate: 'likes', re: /我的(?:爱好|兴趣爱好|兴趣)是\s*(.+)/, object: (m) => splitList(zhObject(m[1], 30), /[和与跟及]|、/) },
  { predicate: 'likes', re: /我对\s*(.+?)\s*(?:很|非常|特别|挺)?感兴趣/, object: (m) => wrap(zhObject(m[1])) },
  // A habit is a liking: 我每周都去打羽毛球, 周末我经常打网球.
  { predicate: 'likes', re: /我(?:经常|常常|每周|每天|每晚|周末|每个周末)(?:都|也|会)*(?:去)?((?:打|踢|玩|弹|练|下|跳)[\u4e00-\u9fff]{1,5})/, object: (m) => wrap(zhObject(m[1])) },
  {
    predicate: 'age',
    re: /我(?:今年|现在|已经|已|刚满|刚|满)*\s*([0-9]{1,3}|[零一二两三四五六七八九十百]{1,5})\s*(?:周)?岁/,
    object: (m) => age(m[1]),
  },
  {
    // 我叫张三今年30岁: the age continues a clause that introduces the speaker.
    predicate: 'age',
    re: /^我(?:叫|是|的名字|名叫)[^。，]*?(?:今年|现在)\s*([0-9]{1,3}|[零一二两三四五六七八九十百]{1,5})\s*(?:周)?岁/,
    object: (m) => age(m[1]),
  },
  { predicate: 'works_as', re: /我的(?:工作|职业)是\s*(?:一名|一个|一位)?\s*(.+)/, object: (m) => wrap(zhObject(m[1])) },
  { predicate: 'works_as', re: /我(?:也|同时也?)?是(?:一名|一位|名)\s*(.+)/, object: (m) => wrap(zhObject(m[1])) },
  { predicate: 'works_as', re: /我是(?:一个|个)?\s*(?!一名|一位|名)([\u4e00-\u9fff]{2,8})$/, object: (m) => wrap(occupation(zhObject(m[1]))) },
  { predicate: 'works_as', re: /我是做(.+?)(?:工作)?的/, object: (m) => wrap(zhObject(m[1])) },
  { predicate: 'works_as', re: /我(?:已经)?当了?(?:[一二两三四五六七八九十几多]+年(?:的)?)?\s*([\u4e00-\u9fff]{2,6})/, object: (m) => wrap(occupation(zhObject(m[1]))) },
  { predicate: 'works_as', re: /我在[^，。]{1,12}?当\s*([\u4e00-\u9fff]{2,6})/, object: (m) => wrap(occupation(zhObject(m[1]))) },
  // A job that ended: 我已经不在腾讯工作了, 我不再在腾讯上班, 我从腾讯离职了.
  { predicate: 'no_longer_works_at', re: /我(?:现在|已经|早就|早已)?(?:不再|已经不|不)在\s*([^，。！？,.!?\s]{1,20}?)\s*(?:工作|上班|任职)了/, object: (m) => wrap(employer(zhObject(m[1]))) },
  { predicate: 'no_longer_works_at', re: /我(?:现在|已经|早就|早已)?不再在\s*([^，。！？,.!?\s]{1,20}?)\s*(?:工作|上班|任职)/, object: (m) => wrap(employer(zhObject(m[1]))) },
  { predicate: 'no_longer_works_at', re: /我(?:去年|前年|今年|上个月|上周|最近|刚刚?|已经)?从\s*([^，。！？,.!?\s]{1,20}?)\s*(?:离职|辞职)了?/, object: (m) => wrap(employer(zhObject(m[1]))) },
  // Work one no longer does: 我已经不是护士了, 我不再是一名护士, 我不当老师了, 我不再做会计.
  { predicate: 'no_longer_works_as', re: /我(?:现在|已经|早就|早已)?不再是(?:一名|一位|名|一个|个)?\s*([\u4e00-\u9fff]{2,8}?)(?:了|$)/, object: (m) => wrap(occupation(zhObject(m[1]))) },
  { predicate: 'no_longer_works_as', re: /我(?:现在|早就|早已)?(?:已经)?不是(?:一名|一位|名|一个|个)?\s*([\u4e00-\u9fff]{2,8}?)了/, object: (m) => wrap(occupation(zhObject(m[1]))) },
  { predicate: 'no_longer_works_as', re: /我(?:现在|已经|早就|早已)?(?:不再|不)(?:当|做|干)\s*([\u4e00-\u9fff]{2,6}?)了/, object: (m) => wrap(occupation(zhObject(m[1]))) },
  { predicate: 'no_longer_works_as', re: /我(?:现在|已经|早就|早已)?不再(?:当|做|干)\s*([\u4e00-\u9fff]{2,6})$/, object: (m) => wrap(occupation(zhObject(m[1]))) },
  { predicate: 'works_at', re: /我(?:现在|目前)?在\s*([^，。！？,.!?\s]{1,20}?)\s*(?:工作|上班|任职)/, object: (m) => wrap(employer(zhObject(m[1]))) },
];

/** Clause openers that continue the previous clause's subject 我 (我叫王磊，住在杭州，是一名工程师). */
const CARRIES = /^(?:住在|住|生活在|是一名|是一位|是一个|是个|是做|在|今年|现在|目前|来自|喜欢|很喜欢|也喜欢|最喜欢|热爱|当了?)/;
/** A clause that names another subject does not inherit 我. */
const OTHER_SUBJECT = /^(?:他|她|它|你|您|我们|他们|她们|大家)/;

/**
 * The clauses of a Chinese sentence as the rules read them: a clause that continues the
 * subject 我 of the one before gets it back.
 */
export function zhClauses(sentence: string): string[] {
  const out: string[] = [];
  let me = false;
  for (const raw of sentence.split(/[，,；;]/)) {
    const c = raw.trim().replace(/^(?:你好|大家好|嗨|哈喽)$/, '');
    if (!c) continue;
    if (/^(?:[^，。]{0,6})?我(?!们|的?(?:朋友|同事|家人|妈|爸|父|母|哥|姐|弟|妹|孩子|女儿|儿子|老婆|老公|爷|奶|外公|外婆|老板|室友|男朋友|女朋友|邻居|同学))/.test(c) && !/^[^我]{0,6}(?:他|她|你)/.test(c)) {
      me = true;
      out.push(c);
    } else if (me && CARRIES.test(c) && !OTHER_SUBJECT.test(c)) out.push(`我${c}`);
    else {
      me = false;
      out.push(c);
    }
  }
  return out;
}
