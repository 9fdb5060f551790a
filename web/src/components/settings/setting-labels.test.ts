import { describe, expect, it } from 'vitest';
import { coreConfigDefaults } from '../../../../src/config/core-defaults';
import { knownSetting, settingLabel } from './setting-labels';

describe('setting labels', () => {
  it('label every core key the daemon has (a missing one shows its English key name in the Chinese UI)', () => {
    const missing = Object.keys(coreConfigDefaults()).filter((k) => !knownSetting(k));
    expect(missing).toEqual([]);
  });

  it('give the memory tier sizes Chinese labels', () => {
    expect(settingLabel('core.memory.archive_batch', 'x', 'zh').label).toBe('每次归档条数');
    expect(settingLabel('core.memory.warm_max_docs', 'x', 'zh').label).toBe('温层文档上限');
  });
});
