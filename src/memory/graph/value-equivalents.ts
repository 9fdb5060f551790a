/**
 * The same value said in the other language (decision 0730): a person who writes Chinese and
 * English says "我是护士" one day and "I work as a nurse" the next. The graph matches entities by
 * name, so without this the English job ended the Chinese one ("你的职业是 护士 · 至 12-04"). A
 * small explicit table of jobs and places a person commonly says in both, checked only between a
 * value written in Han characters and one in Latin letters; anything not in it is a new value, as
 * before. English-to-English and Chinese-to-Chinese are never matched here.
 */

/** Jobs: English (lower case) → its Chinese names. */
const JOBS: Readonly<Record<string, readonly string[]>> = {
  nurse: ['护士'],
  doctor: ['医生', '大夫'],
  physician: ['医生'],
  surgeon: ['外科医生'],
  dentist: ['牙医'],
  pharmacist: ['药剂师'],
  midwife: ['助产士'],
  vet: ['兽医'],
  veterinarian: ['兽医'],
  teacher: ['老师', '教师'],
  professor: ['教授'],
  student: ['学生'],
  lawyer: ['律师'],
  accountant: ['会计', '会计师'],
  engineer: ['工程师'],
  'software engineer': ['软件工程师'],
  programmer: ['程序员'],
  developer: ['开发者', '开发人员'],
  designer: ['设计师'],
  architect: ['建筑师'],
  scientist: ['科学家'],
  researcher: ['研究员'],
  journalist: ['记者'],
  reporter: ['记者'],
  writer: ['作家'],
  editor: ['编辑'],
  translator: ['翻译', '译者'],
  photographer: ['摄影师'],
  artist: ['艺术家'],
  musician: ['音乐家'],
  actor: ['演员'],
  chef: ['厨师'],
  cook: ['厨师'],
  driver: ['司机'],
  farmer: ['农民'],
  'police officer': ['警察'],
  policeman: ['警察'],
  firefighter: ['消防员'],
  soldier: ['军人', '士兵'],
  pilot: ['飞行员'],
  manager: ['经理'],
  'product manager': ['产品经理'],
  salesperson: ['销售'],
  secretary: ['秘书'],
  electrician: ['电工'],
  waiter: ['服务员'],
  waitress: ['服务员'],
  cashier: ['收银员'],
  consultant: ['顾问'],
  'civil servant': ['公务员'],
  'data scientist': ['数据科学家'],
  analyst: ['分析师'],
  housewife: ['家庭主妇'],
  'stay-at-home mom': ['全职妈妈'],
};

/** Places: English (lower case) → its Chinese names. */
const PLACES: Readonly<Record<string, readonly string[]>> = {
  beijing: ['北京'],
  shanghai: ['上海'],
  guangzhou: ['广州'],
  shenzhen: ['深圳'],
  hangzhou: ['杭州'],
  chengdu: ['成都'],
  chongqing: ['重庆'],
  nanjing: ['南京'],
  wuhan: ['武汉'],
  "xi'an": ['西安'],
  xian: ['西安'],
  tianjin: ['天津'],
  suzhou: ['苏州'],
  xiamen: ['厦门'],
  qingdao: ['青岛'],
  changsha: ['长沙'],
  kunming: ['昆明'],
  harbin: ['哈尔滨'],
  dalian: ['大连'],
  'hong kong': ['香港'],
  macau: ['澳门'],
  taipei: ['台北'],
  tokyo: ['东京'],
  osaka: ['大阪'],
  seoul: ['首尔'],
  singapore: ['新加坡'],
  'kuala lumpur': ['吉隆坡'],
  bangkok: ['曼谷'],
  sydney: ['悉尼'],
  melbourne: ['墨尔本'],
  london: ['伦敦'],
  paris: ['巴黎'],
  berlin: ['柏林'],
  munich: ['慕尼黑'],
  amsterdam: ['阿姆斯特丹'],
  madrid: ['马德里'],
  barcelona: ['巴塞罗那'],
  lisbon: ['里斯本'],
  porto: ['波尔图'],
  rome: ['罗马'],
  milan: ['米兰'],
  vienna: ['维也纳'],
  zurich: ['苏黎世'],
  moscow: ['莫斯科'],
  'new york': ['纽约'],
  'los angeles': ['洛杉矶'],
  'san francisco': ['旧金山'],
  seattle: ['西雅图'],
  boston: ['波士顿'],
  chicago: ['芝加哥'],
  toronto: ['多伦多'],
  vancouver: ['温哥华'],
  china: ['中国'],
  japan: ['日本'],
  'united states': ['美国'],
  usa: ['美国'],
  canada: ['加拿大'],
  'united kingdom': ['英国'],
  uk: ['英国'],
  germany: ['德国'],
  france: ['法国'],
  australia: ['澳大利亚', '澳洲'],
};

/** The table a predicate's values come from (jobs for `works_as`, places for homes and origins). */
const TABLE_OF: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  works_as: JOBS,
  no_longer_works_as: JOBS,
  lives_in: PLACES,
  no_longer_lives_in: PLACES,
  from: PLACES,
};

const han = (s: string) => /\p{Script=Han}/u.test(s);
const latin = (s: string) => /^[\p{Script=Latin}\s'.-]+$/u.test(s);
/** "a nurse", "The Hague": an English value without its article, lower case, spaces collapsed. */
const english = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ').replace(/^(?:an?|the)\s+/, '').replace(/^(?:the\s+)?city of\s+/, '');
/** 杭州市 is 杭州: a trailing 市 is dropped (only for a place written with it). */
const chinese = (s: string) => s.trim().replace(/市$/, '');

/** True when `a` and `b` are the same job or place said in English and in Chinese (either order). */
export function sameValueAcrossLanguages(predicate: string, a: string, b: string): boolean {
  const table = TABLE_OF[predicate];
  if (!table) return false;
  const [en, zh] = latin(a) && han(b) ? [a, b] : latin(b) && han(a) ? [b, a] : [undefined, undefined];
  if (en === undefined || zh === undefined) return false;
  return (table[english(en)] ?? []).includes(chinese(zh));
}

/** Of `current` (the values that hold now), the one `value` says in the other language, if any. */
export function equivalentOf(predicate: string, value: string, current: readonly string[]): string | undefined {
  return current.find((c) => c !== value && sameValueAcrossLanguages(predicate, c, value));
}
