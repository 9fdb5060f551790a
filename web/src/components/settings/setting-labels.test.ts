import { describe, expect, it } from 'vitest';
import { choiceLabel, settingLabel } from './setting-labels';

// That every core key the daemon has is labelled is checked in test/setting-labels.test.ts (the
// WebUI's own code and tests import nothing of the daemon's but spec types).
describe('setting labels', () => {
  it('give the memory tier sizes Chinese labels', () => {
    expect(settingLabel('core.memory.archive_batch', 'x', 'zh').label).toBe('每次归档条数');
    expect(settingLabel('core.memory.warm_max_docs', 'x', 'zh').label).toBe('温层文档上限');
  });

  it("say a setting's fixed choices in words, keeping the stored value (QQ's mode showed off/forward/reverse)", () => {
    expect(choiceLabel('plugin.qq.mode', 'forward', 'zh')).toBe('正向：HomeAgent 连接它');
    expect(choiceLabel('plugin.qq.mode', 'off', 'zh')).toBe('关闭');
    expect(choiceLabel('core.log.level', 'warn', 'zh')).toBe('警告和错误');
    expect(choiceLabel('core.log.level', 'info', 'en')).toBe('info');
    expect(choiceLabel('core.some.other', 'x', 'zh')).toBe('x');
    expect(settingLabel('plugin.qq.mode', 'x', 'zh').help).not.toMatch(/forward|reverse|\boff\b/);
  });
});
