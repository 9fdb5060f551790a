import { describe, expect, it } from 'vitest';
import { settingLabel } from './setting-labels';

// That every core key the daemon has is labelled is checked in test/setting-labels.test.ts (the
// WebUI's own code and tests import nothing of the daemon's but spec types).
describe('setting labels', () => {
  it('give the memory tier sizes Chinese labels', () => {
    expect(settingLabel('core.memory.archive_batch', 'x', 'zh').label).toBe('每次归档条数');
    expect(settingLabel('core.memory.warm_max_docs', 'x', 'zh').label).toBe('温层文档上限');
  });
});
