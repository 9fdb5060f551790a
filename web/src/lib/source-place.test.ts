import { describe, expect, it } from 'vitest';
import { translate } from '../i18n';
import { conversationName, sourcePlace, turnNumber } from './source-place';

const en = (k: Parameters<typeof translate>[1], v?: Record<string, string | number>) => translate('en', k, v);
const zh = (k: Parameters<typeof translate>[1], v?: Record<string, string | number>) => translate('zh', k, v);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dec1 = Date.UTC(2026, 11, 1, 9);

describe('where a remembered thing was said, in words', () => {
  it('names the conversation by its title and the message by its number, never the turn id', () => {
    const s = { sessionId: 'webui:abc', turnId: 'webui:abc#3' };
    expect(sourcePlace(en, s, { title: 'Trip to Lisbon', createdAt: dec1 }, day)).toEqual({ text: 'message 3 of “Trip to Lisbon”', open: true });
    expect(sourcePlace(zh, s, { title: '去里斯本', createdAt: dec1 }, day)).toEqual({ text: '“去里斯本”的第 3 条消息', open: true });
  });

  it('a conversation without a title is the one of its day', () => {
    const s = { sessionId: 'telegram:42', turnId: 'telegram:42#12' };
    expect(sourcePlace(en, s, { title: ' ', createdAt: dec1 }, day).text).toBe('message 12 of a conversation on 2026-12-01');
    expect(sourcePlace(zh, s, { title: '', createdAt: dec1 }, day).text).toBe('2026-12-01 的一次对话的第 12 条消息');
  });

  it('without a turn number, the conversation alone; one the chat no longer lists, without a link', () => {
    expect(sourcePlace(en, { sessionId: 'webui:abc' }, { title: 'Tea', createdAt: dec1 }, day)).toEqual({ text: '“Tea”', open: true });
    const gone = sourcePlace(en, { sessionId: 'webui:gone', turnId: 'webui:gone#2' }, undefined, day);
    expect(gone).toEqual({ text: 'a conversation no longer in the chat', open: false });
    expect(gone.text).not.toContain('webui:gone');
  });

  it('a conversation alone (a toast about another one) by its title, its day, or as the notices', () => {
    expect(conversationName(en, { title: 'Trip to Lisbon', channel: 'webui', createdAt: dec1 }, day)).toBe('“Trip to Lisbon”');
    expect(conversationName(en, { title: '', channel: 'telegram', createdAt: dec1 }, day)).toBe('a conversation on 2026-12-01');
    expect(conversationName(zh, { title: '', channel: 'system', createdAt: dec1 }, day)).toBe('提醒与通知');
  });

  it('reads the number only from a turn id of that conversation', () => {
    expect(turnNumber('webui:a', 'webui:a#7')).toBe(7);
    expect(turnNumber('webui:a', 'webui:b#7')).toBeUndefined();
    expect(turnNumber('webui:a', 'webui:a#x')).toBeUndefined();
    expect(turnNumber('webui:a', undefined)).toBeUndefined();
  });
});
