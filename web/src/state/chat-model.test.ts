import { describe, expect, it } from 'vitest';
import { applyBusEvent, keepUnchanged, mergeTurns, turnsFromEvents, visibleAnswer, type SessionEventLike } from './chat-model';

const S = 'webui:s1';
const T = `${S}#1`;
const ev = (seq: number, kind: string, text: string, data?: Record<string, unknown>, turnId = T): SessionEventLike => ({ seq, turnId, kind, text, at: 1000 + seq, data });

describe('turnsFromEvents', () => {
  it('rebuilds a turn with injection, reasoning, tool call + result and answer from the kernel log', () => {
    const turns = turnsFromEvents(S, [
      ev(1, 'user', 'read a.txt', { attachments: [{ name: 'a.png', mimeType: 'image/png', bytes: 10 }] }),
      ev(2, 'injection', '=== 记忆库上下文 ===', { source: 'memory-manager' }),
      ev(3, 'reasoning', 'need the file', { round: 1 }),
      ev(4, 'tool_call', 'files_read', { id: 'c1', arguments: '{"path":"a.txt"}' }),
      ev(5, 'tool_result', 'hello', { id: 'c1', name: 'files_read' }),
      ev(6, 'assistant', 'It says hello.', { status: 'ok' }),
    ]);
    expect(turns).toHaveLength(1);
    const t = turns[0];
    expect(t.userText).toBe('read a.txt');
    expect(t.userSeq).toBe(1);
    expect(t.assistantSeq).toBe(6);
    expect(t.attachments[0].name).toBe('a.png');
    expect(t.injected).toEqual([{ source: 'memory-manager', text: '=== 记忆库上下文 ===', title: undefined, sources: [] }]);
    expect(t.rounds[0].reasoning).toBe('need the file');
    expect(t.rounds[0].toolCalls[0]).toMatchObject({ id: 'c1', name: 'files_read', args: '{"path":"a.txt"}', result: 'hello' });
    expect(t.seqs).toEqual([1, 2, 3, 4, 5, 6]);
    expect(t.status).toBe('ok');
  });

  it('keeps the sources of a recall block (why was this recalled), leaving out malformed ones', () => {
    const [t] = turnsFromEvents(S, [
      ev(1, 'user', 'where do I live?'),
      ev(2, 'injection', '- user —lives_in→ 杭州', {
        source: 'recall',
        slot: 'memory_index',
        title: '【记忆索引】',
        sources: [{ tier: 'graph', id: 'relation:3', text: 'user —lives_in→ 杭州', at: 5, sessionId: 'webui:old', turnId: 'webui:old#2', speaker: { id: 'qq:1', name: 'Bo' } }, { tier: 'graph' }, 'junk'],
      }),
      ev(3, 'assistant', '杭州', { status: 'ok' }),
    ]);
    expect(t.injected).toEqual([
      { source: 'recall', text: '- user —lives_in→ 杭州', title: '【记忆索引】', sources: [{ tier: 'graph', id: 'relation:3', text: 'user —lives_in→ 杭州', at: 5, sessionId: 'webui:old', turnId: 'webui:old#2', seq: undefined, speaker: { id: 'qq:1', name: 'Bo' } }] },
    ]);
  });

  it('marks the in-flight turn running, errors with their code, and exclusion markers (last wins)', () => {
    const turns = turnsFromEvents(
      S,
      [
        ev(1, 'user', 'hi'),
        ev(2, 'assistant', 'No LLM source is configured'),
        ev(3, 'error', 'No LLM source is configured', { code: 'NO_PROVIDER_CONFIGURED' }),
        ev(4, 'marker', '[记忆管理] 该轮已被排除', { op: 'exclude', turnId: T, source: 'memory-manager' }),
        ev(5, 'user', 'again', undefined, `${S}#2`),
        ev(6, 'marker', 'x', { op: 'exclude', turnId: `${S}#2` }, `${S}#2`),
        ev(7, 'marker', 'y', { op: 'restore', turnId: `${S}#2` }, `${S}#2`),
      ],
      `${S}#2`,
    );
    expect(turns[0].status).toBe('error');
    expect(turns[0].error?.code).toBe('NO_PROVIDER_CONFIGURED');
    expect(turns[0].excluded).toBe(true);
    expect(turns[1].status).toBe('running');
    const withInterrupt = turnsFromEvents(S, [ev(1, 'user', 'long text please'), ev(2, 'interrupt', '[打断消息] shorter')]);
    expect(withInterrupt[0].interrupts).toEqual(['shorter']);
    expect(turns[1].excluded).toBe(false);
  });
});

describe('applyBusEvent', () => {
  it('streams deltas, records rounds from agent_llm_chain, tool start/end, and finishes on turn_end', () => {
    let turns = applyBusEvent([], S, 'turn_start', { sessionId: S, turnId: T, input: { text: 'weather?' } });
    turns = applyBusEvent(turns, S, 'turn_delta', { sessionId: S, turnId: T, round: 0, kind: 'text', text: 'Let me ' });
    turns = applyBusEvent(turns, S, 'turn_delta', { sessionId: S, turnId: T, round: 0, kind: 'text', text: 'check.' });
    expect(visibleAnswer(turns[0])).toBe('Let me check.');
    turns = applyBusEvent(turns, S, 'agent_llm_chain', { sessionId: S, turnId: T, round: 1, text: 'Let me check.', reasoning: 'r', toolCalls: [{ id: 'c1', name: 'weather', arguments: '{}' }], provider: 'fake', model: 'm', usage: { inputTokens: 3, outputTokens: 2 }, latencyMs: 5, injected: [{ source: 'memory-manager', text: 'BLOCK' }, { source: 'recall', slot: 'memory_index', title: '【记忆索引】', text: '- user —lives_in→ 杭州', sources: [{ tier: 'graph', id: 'relation:7', text: 'user —lives_in→ 杭州', turnId: 'webui:old#2' }, { tier: 42 }] }] });
    expect(turns[0].live.text).toBe('');
    // The recall blocks arrive live with their sources (malformed ones left out).
    expect(turns[0].injected).toEqual([
      { source: 'memory-manager', text: 'BLOCK', title: undefined, sources: [] },
      { source: 'recall', text: '- user —lives_in→ 杭州', title: '【记忆索引】', sources: [expect.objectContaining({ tier: 'graph', id: 'relation:7', turnId: 'webui:old#2' })] },
    ]);
    turns = applyBusEvent(turns, S, 'tool_start', { sessionId: S, turnId: T, round: 1, call: { id: 'c1', name: 'weather', arguments: '{}' } });
    expect(turns[0].rounds[0].toolCalls[0].running).toBe(true);
    turns = applyBusEvent(turns, S, 'tool_end', { sessionId: S, turnId: T, round: 1, call: { id: 'c1', name: 'weather', arguments: '{}' }, result: 'sunny', durationMs: 4 });
    expect(turns[0].rounds[0].toolCalls[0]).toMatchObject({ running: false, result: 'sunny', durationMs: 4 });
    turns = applyBusEvent(turns, S, 'interrupt', { sessionId: S, text: 'faster', delivery: 'abort+queue' });
    expect(turns[0].interrupts).toEqual(['faster']);
    turns = applyBusEvent(turns, S, 'turn_delta', { sessionId: S, turnId: T, round: 1, kind: 'text', text: 'Sunny.' });
    expect(visibleAnswer(turns[0])).toBe('Let me check.\n\nSunny.');
    turns = applyBusEvent(turns, S, 'turn_end', { sessionId: S, turnId: T, text: 'Sunny.', status: 'ok', rounds: 2 });
    expect(turns[0].status).toBe('ok');
    expect(visibleAnswer(turns[0])).toBe('Sunny.');
  });

  it('ignores other sessions and keeps the array identity', () => {
    const turns = applyBusEvent([], S, 'turn_start', { sessionId: S, turnId: T, input: { text: 'x' } });
    expect(applyBusEvent(turns, S, 'turn_delta', { sessionId: 'cli:1', turnId: 'cli:1#1', kind: 'text', text: 'y' })).toBe(turns);
  });

  it('keeps the NO_PROVIDER_CONFIGURED code on turn_end', () => {
    let turns = applyBusEvent([], S, 'turn_start', { sessionId: S, turnId: T, input: { text: 'x' } });
    turns = applyBusEvent(turns, S, 'turn_end', { sessionId: S, turnId: T, text: 'configure', status: 'error', error: { code: 'NO_PROVIDER_CONFIGURED', message: 'configure' } });
    expect(turns[0].error?.code).toBe('NO_PROVIDER_CONFIGURED');
  });
});

describe('output channel messages', () => {
  it('attach to their turn, or stand alone when no turn is shown', () => {
    let turns = applyBusEvent([], S, 'turn_start', { sessionId: S, turnId: T, input: { text: 'remind me' } });
    turns = applyBusEvent(turns, S, 'output', { sessionId: S, turnId: T, payload: 'Reminder set', type: 'text', meta: {} });
    expect(turns[0].outputs).toEqual(['Reminder set']);
    turns = applyBusEvent(turns, S, 'output', { sessionId: S, payload: 'Time to stretch!', type: 'text', meta: {} });
    expect(turns).toHaveLength(2);
    expect(turns[1].finalText).toBe('Time to stretch!');
    expect(applyBusEvent(turns, S, 'output', { sessionId: 'other', payload: 'x' })).toBe(turns);
  });

  it('skip the final reply the kernel also delivers to the channel', () => {
    let turns = applyBusEvent([], S, 'turn_start', { sessionId: S, turnId: T, input: { text: 'hi' } });
    turns = applyBusEvent(turns, S, 'agent_llm_chain', { sessionId: S, turnId: T, round: 1, text: 'Hello there, friend.', toolCalls: [] });
    expect(applyBusEvent(turns, S, 'output', { sessionId: S, turnId: T, payload: 'Hello there, friend.', kind: 'reply', meta: { status: 'ok' } })).toBe(turns);
    expect(applyBusEvent(turns, S, 'output', { sessionId: S, turnId: T, payload: 'friend.', meta: {} })).toBe(turns);
  });
});

describe('mergeTurns', () => {
  it('prefers live data for a running turn but keeps seqs and user text from the log', () => {
    const history = turnsFromEvents(S, [ev(1, 'user', 'hello')], T);
    const live = applyBusEvent([], S, 'turn_delta', { sessionId: S, turnId: T, kind: 'text', text: 'Hi' });
    const merged = mergeTurns(history, live);
    expect(merged).toHaveLength(1);
    expect(merged[0].userText).toBe('hello');
    expect(merged[0].userSeq).toBe(1);
    expect(merged[0].live.text).toBe('Hi');
  });

  it('takes the log when it says the turn ended, even if this view only saw it start', () => {
    // E.g. a first turn that fails at once (no provider): turn_start arrived, turn_end did not.
    const live = applyBusEvent([], S, 'turn_start', { sessionId: S, turnId: T });
    expect(live[0].status).toBe('running');
    const history = turnsFromEvents(S, [ev(1, 'user', 'hello'), ev(2, 'error', 'no LLM provider is configured', { code: 'NO_PROVIDER_CONFIGURED' })], null);
    const merged = mergeTurns(history, live);
    expect(merged).toHaveLength(1);
    expect(merged[0].status).toBe('error');
  });
});

describe('rounds, speakers and stable turns', () => {
  it('a turn with two model requests has two rounds when read back from the log; live turn_end says so too', () => {
    const [t] = turnsFromEvents(S, [
      ev(1, 'user', 'weather?'),
      ev(2, 'tool_call', 'weather_lookup', { id: 'c1', arguments: '{}', round: 1 }),
      ev(3, 'tool_result', '21°C', { id: 'c1', round: 1 }),
      ev(4, 'assistant', 'It is 21°C.', { status: 'ok', rounds: 2 }),
    ]);
    expect(t.rounds.map((r) => r.round)).toEqual([1, 2]);
    expect(t.rounds[1].text).toBe('It is 21°C.');
    const [one] = turnsFromEvents(S, [ev(1, 'user', 'hi'), ev(2, 'assistant', 'hello', { status: 'ok', rounds: 1 })]);
    expect(one.rounds).toHaveLength(1);
    let live = applyBusEvent([], S, 'turn_start', { sessionId: S, turnId: T, input: { text: 'x' } });
    live = applyBusEvent(live, S, 'turn_end', { sessionId: S, turnId: T, text: 'done', status: 'ok', rounds: 2 });
    expect(live[0].rounds).toHaveLength(2);
  });

  it('keeps the speaker a chat channel set on the message', () => {
    const [t] = turnsFromEvents(S, [ev(1, 'user', 'dinner?', { speaker: { id: 'qq:1', name: 'Alice', platform: 'qq' } })]);
    expect(t.speaker).toEqual({ id: 'qq:1', name: 'Alice', platform: 'qq' });
    expect(turnsFromEvents(S, [ev(1, 'user', 'x', { speaker: 'bogus' })])[0].speaker).toBeUndefined();
    const live = applyBusEvent([], S, 'turn_start', { sessionId: S, turnId: T, input: { text: 'x', speaker: { id: 'telegram:7', name: 'Bob' } } });
    expect(live[0].speaker?.name).toBe('Bob');
  });

  it('keepUnchanged reuses the objects of turns that did not change (a page added before them)', () => {
    const page2 = turnsFromEvents(S, [ev(3, 'user', 'b', undefined, `${S}#2`), ev(4, 'assistant', 'B', undefined, `${S}#2`)]);
    const both = turnsFromEvents(S, [ev(1, 'user', 'a'), ev(2, 'assistant', 'A'), ev(3, 'user', 'b', undefined, `${S}#2`), ev(4, 'assistant', 'B', undefined, `${S}#2`)]);
    const kept = keepUnchanged(page2, both);
    expect(kept[1]).toBe(page2[0]);
    expect(kept[0]).toBe(both[0]);
    expect(keepUnchanged(kept, turnsFromEvents(S, [ev(1, 'user', 'a'), ev(2, 'assistant', 'A'), ev(3, 'user', 'b', undefined, `${S}#2`), ev(4, 'assistant', 'B', undefined, `${S}#2`)]))).toBe(kept);
  });
});

describe('notices (system events)', () => {
  const N = 'system:notices';
  it('reads a system event of the log as a notice of its turn', () => {
    const turns = turnsFromEvents(N, [ev(1, 'system', 'Someone new wrote on Telegram', { source: 'telegram', notice: true }, `${N}#1`), ev(2, 'system', 'Timer done', { source: 'timer', notice: true }, `${N}#2`)]);
    expect(turns.map((t) => t.notices)).toEqual([[{ text: 'Someone new wrote on Telegram', source: 'telegram', seq: 1 }], [{ text: 'Timer done', source: 'timer', seq: 2 }]]);
    expect(turns.every((t) => t.status === 'ok' && !t.userText && !t.finalText)).toBe(true);
  });
  it('shows a notice that arrives as an output as a notice, once', () => {
    const out = { sessionId: N, turnId: `${N}#3`, payload: 'Backup finished', kind: 'message', meta: { notice: true, source: 'timer' } };
    const one = applyBusEvent([], N, 'output', out);
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ turnId: `${N}#3`, finalText: '', notices: [{ text: 'Backup finished', source: 'timer' }] });
    expect(applyBusEvent(one, N, 'output', out)).toBe(one);
  });
});
