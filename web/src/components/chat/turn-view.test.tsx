import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { AppContext, type AppApi } from '../../app-context';
import { I18nContext, translate } from '../../i18n';
import { TurnView, type TurnActions } from './turn-view';
import { applyBusEvent, turnsFromEvents } from '../../state/chat-model';

const actions: TurnActions = { togglePin: () => undefined, remove: async () => undefined, resend: async () => undefined, reload: () => undefined };

const app = { toast: () => undefined, refreshMm: () => undefined } as unknown as AppApi;

function render(el: React.ReactElement, lang: 'zh' | 'en' = 'en') {
  return renderToStaticMarkup(
    <I18nContext.Provider value={{ lang, t: (k, v) => translate(lang, k, v) }}>
      <AppContext.Provider value={app}>{el}</AppContext.Provider>
    </I18nContext.Provider>,
  );
}

const S = 'webui:s';
const start = applyBusEvent([], S, 'turn_start', { sessionId: S, turnId: `${S}#1`, input: { text: 'hello' } });

describe('TurnView', () => {
  it('shows a setup card linking to the provider settings when no provider is configured (not an error)', () => {
    const [turn] = applyBusEvent(start, S, 'turn_end', { sessionId: S, turnId: `${S}#1`, text: 'No LLM', status: 'error', error: { code: 'NO_PROVIDER_CONFIGURED', message: 'No LLM' } });
    const html = render(<TurnView turn={turn} pinned={false} isLast sessionBusy={false} actions={actions} />);
    expect(html).toContain('data-testid="setup-card"');
    expect(html).toContain('href="#/settings/providers"');
    expect(html).toContain('OPENAI_API_KEY');
    expect(html).not.toContain('turn-error');
  });

  it('a turn that found no model, when a newer one says it in full, says it in one line that opens to the card (decision 0690)', () => {
    const [turn] = applyBusEvent(start, S, 'turn_end', { sessionId: S, turnId: `${S}#1`, text: 'No LLM', status: 'error', error: { code: 'NO_PROVIDER_CONFIGURED', message: 'No LLM' } });
    const html = render(<TurnView turn={turn} pinned={false} isLast={false} sessionBusy={false} actions={actions} setupCompact />);
    expect(html).toContain('data-testid="setup-card-compact"');
    expect(html).toContain('No model connected');
    expect(html).not.toContain('OPENAI_API_KEY');
    expect(render(<TurnView turn={turn} pinned={false} isLast={false} sessionBusy={false} actions={actions} setupCompact />, 'zh')).toContain('未连接模型');
  });

  it('folds the injected memory block and offers save/pin on a finished answer', () => {
    let turns = applyBusEvent(start, S, 'agent_llm_chain', { sessionId: S, turnId: `${S}#1`, round: 1, text: 'Hi!', toolCalls: [], injected: [{ source: 'memory-manager', text: '=== 记忆库上下文 ===\nA' }] });
    turns = applyBusEvent(turns, S, 'turn_end', { sessionId: S, turnId: `${S}#1`, text: 'Hi!', status: 'ok' });
    const html = render(<TurnView turn={turns[0]} pinned={true} isLast sessionBusy={false} actions={actions} />, 'zh');
    expect(html).toMatch(/<details class="injection"[^>]*>/);
    expect(html).not.toMatch(/<details class="injection"[^>]* open/);
    expect(html).toContain('已注入记忆');
    expect(html).toContain('保存为记忆');
    expect(html).toContain('取消固定');
  });

  it('shows a live tool call while the turn runs', () => {
    const turns = applyBusEvent(start, S, 'tool_start', { sessionId: S, turnId: `${S}#1`, round: 1, call: { id: 'c', name: 'files_read', arguments: '{}' } });
    const html = render(<TurnView turn={turns[0]} pinned={false} isLast sessionBusy={false} actions={actions} />);
    expect(html).toContain('tool-live');
    expect(html).toContain('files_read');
    expect(html).not.toContain('data-testid="save-memory"');
  });

  it('a turn read back from the log: speaker, "1 LLM round" in the singular, copy / edit / regenerate / delete', () => {
    const [turn] = turnsFromEvents(S, [
      { seq: 1, turnId: `${S}#1`, kind: 'user', at: 1, text: 'dinner?', data: { speaker: { id: 'qq:1', name: 'Alice', platform: 'qq' } } },
      { seq: 2, turnId: `${S}#1`, kind: 'reasoning', at: 2, text: 'they asked about food', data: { round: 1 } },
      { seq: 3, turnId: `${S}#1`, kind: 'assistant', at: 3, text: 'Noodles.', data: { status: 'ok', rounds: 1 } },
    ]);
    const html = render(<TurnView turn={turn} pinned={false} isLast sessionBusy={false} actions={actions} />);
    expect(html).toContain('data-testid="speaker"');
    expect(html).toContain('Alice');
    expect(html).toContain('1 LLM round<');
    expect(html).not.toContain('tool call');
    for (const id of ['copy-user', 'edit', 'delete-turn', 'copy-answer', 'regenerate', 'delete-reply', 'save-memory']) expect(html).toContain(`data-testid="${id}"`);
  });

  it('a plain one-round answer read back from the log has no rounds toggle (nothing more to show)', () => {
    const [turn] = turnsFromEvents(S, [
      { seq: 1, turnId: `${S}#1`, kind: 'user', at: 1, text: 'hi' },
      { seq: 2, turnId: `${S}#1`, kind: 'assistant', at: 2, text: 'hello', data: { status: 'ok', rounds: 1 } },
    ]);
    expect(render(<TurnView turn={turn} pinned={false} isLast sessionBusy={false} actions={actions} />)).not.toContain('rounds-toggle');
  });

  it('a forgotten turn reads as forgotten in the person\'s language, not the log\'s "[forgotten]"', () => {
    const [turn] = turnsFromEvents(S, [
      { seq: 1, turnId: `${S}#1`, kind: 'user', at: 1, text: '[forgotten]', data: { redacted: true } },
      { seq: 2, turnId: `${S}#1`, kind: 'assistant', at: 2, text: '[forgotten]', data: { redacted: true } },
    ]);
    const html = render(<TurnView turn={turn} pinned={false} isLast sessionBusy={false} actions={actions} />, 'zh');
    expect(html).not.toContain('[forgotten]');
    expect(html.match(/data-testid="forgotten-text"/g)?.length).toBe(2);
    expect(html).toContain(translate('zh', 'chat.forgottenText'));
    // Nothing is left to copy, edit, regenerate, save, pin or forget again; it can still be deleted.
    for (const id of ['copy-user', 'edit', 'forget-chat-turn', 'copy-answer', 'regenerate', 'save-memory', 'pin']) expect(html).not.toContain(`data-testid="${id}"`);
    expect(html).toContain('data-testid="delete-turn"');
  });

  it('a failed reply read back from the log shows its error once (the reply is the error message)', () => {
    const [turn] = turnsFromEvents(S, [
      { seq: 1, turnId: `${S}#1`, kind: 'user', at: 1, text: 'hi' },
      { seq: 2, turnId: `${S}#1`, kind: 'assistant', at: 2, text: 'The provider timed out', data: { status: 'error' } },
      { seq: 3, turnId: `${S}#1`, kind: 'error', at: 3, text: 'The provider timed out', data: { code: 'LLM_TIMEOUT' } },
    ]);
    const html = render(<TurnView turn={turn} pinned={false} isLast sessionBusy={false} actions={actions} />);
    expect(html.split('The provider timed out').length - 1).toBe(1);
    expect(html).toContain('turn-error');
  });
});
