/**
 * zod's own messages ("Too small: expected number to be >=1000") in the page's language and in
 * words a person reads. The daemon's own reasons ("a Telegram user id is a number …") are kept as
 * they are; only these fixed forms are recognised, anywhere in the text.
 */
type Lang = 'en' | 'zh';

const KIND_ZH: Record<string, string> = { number: '数字', int: '整数', string: '文本', boolean: '开关值（true/false）', array: '列表', object: '对象' };
const KIND_EN: Record<string, string> = { number: 'a number', int: 'a whole number', string: 'text', boolean: 'true or false', array: 'a list', object: 'an object' };

const FORMS: { re: RegExp; en: (m: RegExpExecArray) => string; zh: (m: RegExpExecArray) => string }[] = [
  { re: /Too small: expected (?:number|int|bigint) to be >=?(-?[\d.]+)/g, en: (m) => `too small: at least ${m[1]}`, zh: (m) => `太小：至少为 ${m[1]}` },
  { re: /Too big: expected (?:number|int|bigint) to be <=?(-?[\d.]+)/g, en: (m) => `too big: at most ${m[1]}`, zh: (m) => `太大：至多为 ${m[1]}` },
  { re: /Too small: expected string to have >=?(\d+) characters?/g, en: (m) => `too short: at least ${m[1]} character${m[1] === '1' ? '' : 's'}`, zh: (m) => `太短：至少 ${m[1]} 个字符` },
  { re: /Too big: expected string to have <=?(\d+) characters?/g, en: (m) => `too long: at most ${m[1]} characters`, zh: (m) => `太长：最多 ${m[1]} 个字符` },
  { re: /Too small: expected array to have >=?(\d+) items?/g, en: (m) => `too few: at least ${m[1]}`, zh: (m) => `太少：至少 ${m[1]} 项` },
  { re: /Too big: expected array to have <=?(\d+) items?/g, en: (m) => `too many: at most ${m[1]}`, zh: (m) => `太多：最多 ${m[1]} 项` },
  { re: /Invalid input: expected (\w+), received \w+/g, en: (m) => `${KIND_EN[m[1]] ?? m[1]} is expected here`, zh: (m) => `这里应为${KIND_ZH[m[1]] ?? m[1]}` },
];

export function zodInWords(text: string, lang: Lang): string {
  let out = text;
  for (const f of FORMS) out = out.replace(f.re, (...args) => (lang === 'zh' ? f.zh : f.en)(args as unknown as RegExpExecArray));
  return out;
}
