import { memo, useState } from 'react';
import { useApp } from '../../app-context';
import { useT } from '../../i18n';
import { visibleAnswer, type RoundView, type TurnView as Turn } from '../../state/chat-model';
import { Markdown } from '../../lib/markdown';
import { prettyJson, bytes } from '../../lib/format';
import { Icon } from '../icon';
import { SaveMemoryDialog } from './save-memory-dialog';

/** One turn: the user message, the injected memory block (folded), the rounds (expandable), the answer and its actions. */
export const TurnView = memo(function TurnView({ turn, pinned, onTogglePin }: { turn: Turn; pinned: boolean; onTogglePin: () => void }) {
  const t = useT();
  const app = useApp();
  const [open, setOpen] = useState(false);
  const [saving, setSaving] = useState(false);
  const running = turn.status === 'running' || turn.status === 'queued';
  const answer = visibleAnswer(turn);
  const toolCount = turn.rounds.reduce((n, r) => n + r.toolCalls.length, 0);
  const activeTool = turn.rounds.flatMap((r) => r.toolCalls).find((c) => c.running);
  const setup = turn.error?.code === 'NO_PROVIDER_CONFIGURED';
  return (
    <section className={`turn${turn.excluded ? ' excluded' : ''}`} data-turn-id={turn.turnId} data-testid="turn">
      {turn.userText || turn.attachments.length ? (
        <div className="msg user" data-seq={turn.userSeq}>
          <div className="bubble">
            {turn.userText && <div className="text">{turn.userText}</div>}
            {turn.attachments.length > 0 && (
              <div className="attachments">
                {turn.attachments.map((a, i) => (
                  <span className="chip" key={i}>
                    <Icon name="clip" size={13} /> {a.name ?? a.mimeType} {a.bytes ? `· ${bytes(a.bytes)}` : ''}
                  </span>
                ))}
              </div>
            )}
          </div>
        </div>
      ) : null}
      {turn.excluded && <div className="excluded-note">{t('chat.turnExcluded')}</div>}
      {turn.injected.length > 0 && (
        <details className="injection" data-testid="injection">
          <summary>
            <Icon name="layers" size={14} /> {t('chat.injected', { n: turn.injected.reduce((n, i) => n + Array.from(i.text).length, 0) })}
          </summary>
          {turn.injected.map((i, k) => (
            <pre key={k} className="injection-text" title={i.source}>
              {i.text}
            </pre>
          ))}
        </details>
      )}
      {turn.interrupts.map((x, i) => (
        <div className="msg user interrupt" key={i}>
          <div className="bubble">
            <span className="badge warn">{t('chat.interrupt')}</span> {x}
          </div>
        </div>
      ))}
      {setup ? (
        <div className="setup-card" data-testid="setup-card">
          <div className="setup-title">
            <Icon name="spark" /> {t('setup.title')}
          </div>
          <p>{t('setup.text')}</p>
          <ul className="setup-list">
            <li>
              <code>DEEPSEEK_API_KEY</code> / <code>OPENAI_API_KEY</code> / <code>ANTHROPIC_API_KEY</code>
            </li>
            <li>{t('setup.ollama')}</li>
          </ul>
          <a className="btn primary" href="#/settings/providers">
            {t('setup.open')}
          </a>
        </div>
      ) : (
        <div className={`msg assistant${running ? ' streaming' : ''}`} data-seq={turn.assistantSeq}>
          <div className="bubble">
            {(turn.rounds.length > 0 || turn.live.reasoning || turn.stageNotes.length > 0) && (
              <button className={`rounds-toggle${open ? ' open' : ''}`} onClick={() => setOpen(!open)} aria-expanded={open} data-testid="rounds-toggle">
                <Icon name="chevron" size={14} />
                {t('chat.rounds', { rounds: turn.rounds.length, tools: toolCount })}
                {activeTool && (
                  <span className="tool-live">
                    <span className="spinner" /> {activeTool.name}
                  </span>
                )}
              </button>
            )}
            {open && <RoundsDetail turn={turn} />}
            {!open && turn.live.reasoning && running && <div className="reasoning-live">{turn.live.reasoning.slice(-300)}</div>}
            {answer ? <Markdown text={answer} /> : running ? <div className="typing"><span /><span /><span /></div> : null}
            {turn.status === 'error' && turn.error && <div className="turn-error">{turn.error.message}</div>}
            {turn.status === 'aborted' && <div className="muted small">{t('chat.aborted')}</div>}
          </div>
          {!running && turn.finalText && turn.status !== 'error' && (
            <div className="msg-actions">
              <button className="action" onClick={() => setSaving(true)} data-testid="save-memory">
                <Icon name="save" size={14} /> {t('chat.saveAsMemory')}
              </button>
              <button className={`action${pinned ? ' on' : ''}`} onClick={onTogglePin} data-testid="pin">
                <Icon name="pin" size={14} /> {pinned ? t('chat.unpin') : t('chat.pin')}
              </button>
            </div>
          )}
        </div>
      )}
      {turn.outputs.map((o, i) => (
        <div className="msg assistant output" key={`o${i}`}>
          <div className="bubble">
            <Markdown text={o} />
          </div>
        </div>
      ))}
      {saving && (
        <SaveMemoryDialog
          initial={{ title: turn.userText.slice(0, 60), snapshot: `${t('chat.userLabel')}：${turn.userText}\n\n${t('chat.assistantLabel')}：${turn.finalText}` }}
          source={{ sessionId: turn.sessionId, seqs: turn.seqs }}
          onClose={(id) => {
            setSaving(false);
            if (id) {
              app.toast(t('memory.saved'), 'ok');
              app.refreshMm();
            }
          }}
        />
      )}
    </section>
  );
});

function RoundsDetail({ turn }: { turn: Turn }) {
  const t = useT();
  return (
    <div className="rounds" data-testid="rounds">
      {turn.rounds.map((r) => (
        <Round key={r.round} r={r} />
      ))}
      {(turn.live.text || turn.live.reasoning) && (
        <div className="round live">
          <div className="round-head">
            <span className="spinner" /> {t('chat.roundLive')}
          </div>
          {turn.live.reasoning && <div className="reasoning">{turn.live.reasoning}</div>}
          {turn.live.text && <div className="round-text">{turn.live.text}</div>}
        </div>
      )}
      {turn.stageNotes.length > 0 && (
        <div className="stage-notes">
          {turn.stageNotes.map((n, i) => (
            <div key={i} className="stage-note">
              {n}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

function Round({ r }: { r: RoundView }) {
  const t = useT();
  return (
    <div className="round">
      <div className="round-head">
        <span className="badge">{t('chat.round', { n: r.round })}</span>
        {r.provider && (
          <span className="muted small">
            {r.provider}
            {r.model ? ` · ${r.model}` : ''}
            {r.latencyMs !== undefined ? ` · ${r.latencyMs} ms` : ''}
            {r.usage ? ` · ${r.usage.inputTokens}↑ ${r.usage.outputTokens}↓` : ''}
          </span>
        )}
      </div>
      {r.reasoning && (
        <details className="reasoning">
          <summary>{t('chat.reasoning')}</summary>
          <div>{r.reasoning}</div>
        </details>
      )}
      {r.text && <div className="round-text">{r.text}</div>}
      {r.toolCalls.map((c) => (
        <div className={`tool-call${c.error || c.rejected ? ' failed' : ''}`} key={c.id} data-testid="tool-call">
          <div className="tool-head">
            <Icon name="tool" size={14} /> <strong>{c.name}</strong>
            {c.running ? <span className="spinner" /> : c.durationMs !== undefined && <span className="muted small">{c.durationMs} ms</span>}
            {c.rejected && <span className="badge warn">{t('chat.rejected')}</span>}
          </div>
          <div className="tool-body">
            <div className="tool-label">{t('chat.args')}</div>
            <pre>{prettyJson(c.args)}</pre>
            {c.result !== undefined && (
              <>
                <div className="tool-label">{c.error ? t('chat.error') : t('chat.result')}</div>
                <pre className="tool-result">{c.error ?? c.rejected ?? c.result}</pre>
              </>
            )}
          </div>
        </div>
      ))}
    </div>
  );
}
