import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { AppContext, type AppApi } from '../../app-context';
import { I18nContext, translate } from '../../i18n';
import { TurnView } from './turn-view';
import { applyBusEvent } from '../../state/chat-model';

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
    const html = render(<TurnView turn={turn} pinned={false} onTogglePin={() => undefined} />);
    expect(html).toContain('data-testid="setup-card"');
    expect(html).toContain('href="#/settings/providers"');
    expect(html).toContain('OPENAI_API_KEY');
    expect(html).not.toContain('turn-error');
  });

  it('folds the injected memory block and offers save/pin on a finished answer', () => {
    let turns = applyBusEvent(start, S, 'agent_llm_chain', { sessionId: S, turnId: `${S}#1`, round: 1, text: 'Hi!', toolCalls: [], injected: [{ source: 'memory-manager', text: '=== 记忆库上下文 ===\nA' }] });
    turns = applyBusEvent(turns, S, 'turn_end', { sessionId: S, turnId: `${S}#1`, text: 'Hi!', status: 'ok' });
    const html = render(<TurnView turn={turns[0]} pinned={true} onTogglePin={() => undefined} />, 'zh');
    expect(html).toMatch(/<details class="injection"[^>]*>/);
    expect(html).not.toMatch(/<details class="injection"[^>]* open/);
    expect(html).toContain('已注入记忆库');
    expect(html).toContain('保存为记忆');
    expect(html).toContain('取消固定');
  });

  it('shows a live tool call while the turn runs', () => {
    const turns = applyBusEvent(start, S, 'tool_start', { sessionId: S, turnId: `${S}#1`, round: 1, call: { id: 'c', name: 'files_read', arguments: '{}' } });
    const html = render(<TurnView turn={turns[0]} pinned={false} onTogglePin={() => undefined} />);
    expect(html).toContain('tool-live');
    expect(html).toContain('files_read');
    expect(html).not.toContain('data-testid="save-memory"');
  });
});
