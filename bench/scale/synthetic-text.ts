/** Deterministic synthetic text for the scale benchmarks (no dataset text is used). */
import { rng } from '../stats.js';

const SYL = ['ka', 'lo', 'mi', 'ra', 'tu', 'ne', 'so', 'vi', 'de', 'pa', 'zu', 'ri', 'go', 'be', 'ta', 'mo'];

/** Common Chinese words: a Chinese turn is a run of them without spaces (jieba segments it back). */
const ZH_WORDS =
  '今天 明天 昨天 周末 早上 晚上 时间 工作 公司 同事 朋友 家人 妈妈 爸爸 孩子 学校 老师 学生 医院 医生 天气 下雨 阳光 咖啡 茶 火锅 米饭 面条 水果 苹果 旅行 飞机 火车 地铁 公园 电影 音乐 书 小说 运动 跑步 游泳 网球 篮球 足球 爬山 摄影 画画 做饭 厨房 客厅 房子 城市 杭州 上海 北京 成都 广州 深圳 西湖 手机 电脑 软件 程序 项目 会议 报告 计划 预算 价格 商店 超市 衣服 鞋子 生日 礼物 聚会 婚礼 假期 春节 中秋 猫 狗 宠物 花园 植物 花 树 海边 山 河 湖 朋友圈 消息 邮件 电话 照片 视频 新闻 历史 文化 语言 英语 中文 考试 作业 健康 睡觉 梦 心情 开心 难过 担心 希望 喜欢 讨厌 记得 忘记 需要 想要 准备 开始 结束 继续'.split(
    ' ',
  );

function zipfPicker<T>(vocab: readonly T[], r: () => number, skip = 0): () => T {
  const cdf: number[] = [];
  let sum = 0;
  for (let i = 0; i < vocab.length; i++) cdf.push((sum += 1 / (i + 1)));
  const low = skip > 0 ? cdf[skip - 1] : 0;
  return () => {
    const u = low + r() * (sum - low);
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo];
  };
}

/**
 * A vocabulary of 20k pseudo-words drawn with a Zipf distribution (s = 1). Ranks below 100 play
 * the part of stop-words: real text loses them at tokenisation, so they are not generated at all
 * (otherwise every query would hit 90 % of the corpus).
 */
export function makeText(seed: number): (words: number) => string {
  const vocab: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    let w = '';
    let x = i + 1;
    while (x > 0) {
      w += SYL[x % SYL.length];
      x = Math.floor(x / SYL.length);
    }
    vocab.push(`${w}x`);
  }
  const pick = zipfPicker(vocab, rng(seed), 100);
  return (n) => Array.from({ length: n }, pick).join(' ');
}

/** Chinese turns: common words in Zipf order, joined without spaces as people write. */
export function makeChinese(seed: number): (words: number) => string {
  const pick = zipfPicker(ZH_WORDS, rng(seed));
  return (n) => Array.from({ length: n }, pick).join('');
}
