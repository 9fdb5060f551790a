import { describe, expect, it } from 'vitest';
import { translate } from '../i18n';
import { actorLabel, changeBadge, pluginKindLabel, shownText, tierLabel } from './vocab';

const zh = (k: Parameters<typeof translate>[1], v?: Record<string, string | number>) => translate('zh', k, v);
const en = (k: Parameters<typeof translate>[1], v?: Record<string, string | number>) => translate('en', k, v);

describe('fixed vocabularies in the person\'s language', () => {
  it('history badges, actors, tiers, plugin kinds and the forgotten placeholder in Chinese', () => {
    expect(changeBadge(zh, 'relation', 'create')).toBe('事实 · 新建');
    expect(changeBadge(zh, 'forget', 'forget')).toBe('遗忘');
    // A fact that replaced an earlier value (GraphDB.commit, K-4): not the raw op "supersede".
    expect(changeBadge(zh, 'relation', 'supersede')).toBe('事实 · 取代旧值');
    expect(changeBadge(zh, 'plan', 'addMemory')).toBe('注入计划 · 加入记忆');
    expect(actorLabel(zh, 'user')).toBe('你');
    expect(tierLabel(zh, 'session-log')).toBe('会话日志');
    expect(tierLabel(zh, 'context')).toBe('上下文');
    expect(pluginKindLabel(zh, 'builtin')).toBe('内置');
    expect(shownText(zh, '[forgotten]')).toBe('（已遗忘）');
  });

  it('English words too, and a word the dictionary does not know stays as the daemon sent it', () => {
    expect(changeBadge(en, 'relation', 'create')).toBe('fact · created');
    expect(actorLabel(en, 'user')).toBe('you');
    expect(changeBadge(zh, 'relation', 'rename')).toBe('事实 · rename');
    expect(tierLabel(zh, 'somewhere-new')).toBe('somewhere-new');
    expect(shownText(zh, 'hello')).toBe('hello');
  });
});
