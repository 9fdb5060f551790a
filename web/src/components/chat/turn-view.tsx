import { memo, useState } from 'react';
import { ForgetDialog } from '../memory/forget-dialog';
import { useApp } from '../../app-context';
import { copyText } from '../../lib/clipboard';
import { Dialog } from '../dialog';
import { useLang, useT } from '../../i18n';
import { errorInWords } from '../../lib/error-words';
import type { DictKey } from '../../i18n-dict';
import { visibleAnswer, type InjectedView, type RoundView, type TurnView as Turn } from '../../state/chat-model';
import { Markdown } from '../../lib/markdown';
import { prettyJson, bytes } from '../../lib/format';
import { Icon } from '../icon';
import { LongText } from './long-text';
import { SetupCard } from './setup-card';
import { NO_MODEL_CODE } from '../../lib/setup-card-turn';
import { SaveMemoryDialog } from './save-memory-dialog';
import { FORGOTTEN_TEXT } from '../../lib/vocab';

/** What the chat does for the actions on a turn's messages (stable across renders). */
export interface TurnActions {
  togglePin(text: string): void;
  /** Deletes the turn, or only its reply. */
  remove(turn: Turn, scope: 'turn' | 'reply'): Promise<void>;
  /** Regenerate (`text` undefined) or edit and resend: the turn and the later ones are replaced. */
  resend(turn: Turn, text?: string): Promise<void>;
  /** Reads the turns shown again from the log (after a forget rewrote it). */
  reload(): void;
}


/** "Notice", or "Notice from a reminder" / "Notice from Telegram" when the log names who sent it. */
function noticeHeading(t: ReturnType<typeof useT>, source: string | undefined): string {
  if (!source || source === 'system' || source === 'kernel') return t('chat.notice');
  const key = `chat.noticeSource.${source}` as DictKey;
  const named = key === 'chat.noticeSource.timer' || key === 'chat.noticeSource.healthcheck' ? t(key) : source;
  return t('chat.noticeFrom', { source: named });
}

type Pending = { kind: 'delete'; scope: 'turn' | 'reply' } | { kind: 'regenerate' } | { kind: 'edit'; text: string };

/**
 * One turn: the user message (with its speaker), the injected memory block (folded), the rounds
 * (expandable), the answer, and the actions on each message — copy, edit and resend, regenerate,
 * delete, save as memory, pin.
 */
export const TurnView = memo(function TurnView({ turn, pinned, isLast, sessionBusy, actions, setupCompact = false }: {
  turn: Turn;
  pinned: boolean;
  isLast: boolean;
  sessionBusy: boolean;
  actions: TurnActions;
  /** A turn that found no model says so in one line (a newer one says it in full; decision 0690). */
  setupCompact?: boolean;
}) {
  const t = useT();
  const lang = useLang();
  const app = useApp();
  const [open, setOpen] = useState(false);
  const [saving, setSaving] = useState(false);
  const [editing, setEditing] = useState<string | undefined>();
  const [confirm, setConfirm] = useState<Pending | undefined>();
  const [forgetting, setForgetting] = useState(false);
  const running = turn.status === 'running' || turn.status === 'queued';
  const logged = turn.userSeq !== undefined || turn.assistantSeq !== undefined;
  // The rounds are worth a toggle when there is more in them than the answer shown below.
  const hasDetail = turn.rounds.length > 1 || turn.rounds.some((r) => r.toolCalls.length > 0 || r.reasoning || r.provider) || !!turn.live.reasoning || turn.stageNotes.length > 0;
  const copy = (text: string) =>
    copyText(text).then(
      () => app.toast(t('chat.copied'), 'ok'),
      (e: Error) => app.toast(e.message, 'error'),
    );
  const run = async (p: Pending) => {
    setConfirm(undefined);
    if (p.kind === 'delete') await actions.remove(turn, p.scope);
    else if (p.kind === 'regenerate') await actions.resend(turn);
    else {
      setEditing(undefined);
      await actions.resend(turn, p.text);
    }
  };
  // Regenerating or resending an earlier message replaces the later turns too: ask first.
  const ask = (p: Pending) => (p.kind !== 'delete' && isLast ? void run(p) : setConfirm(p));
  // A forgotten text is shown as such, in the person's language (not the log's `[forgotten]`).
  const isForgotten = (text: string) => !!turn.forgotten && text === FORGOTTEN_TEXT;
  const forgottenNote = <span className="forgotten-text" data-testid="forgotten-text">{t('chat.forgottenText')}</span>;
  // A failed reply is the error message itself (the kernel logs it as "Sorry, this turn failed: …"
  // for the channels that only show text): shown once, as the error.
  const failedReply = (text: string) => !!turn.error && (text === turn.error.message || text === `Sorry, this turn failed: ${turn.error.message}`);
  const answer = turn.status === 'error' && failedReply(visibleAnswer(turn)) ? '' : visibleAnswer(turn);
  const providersFailed = turn.error?.code === 'ALL_PROVIDERS_FAILED';
  const toolCount = turn.rounds.reduce((n, r) => n + r.toolCalls.length, 0);
  const activeTool = turn.rounds.flatMap((r) => r.toolCalls).find((c) => c.running);
  const setup = turn.error?.code === NO_MODEL_CODE;
  return (
    <section className={`turn${turn.excluded ? ' excluded' : ''}`} data-turn-id={turn.turnId} data-testid="turn">
      {turn.notices.map((n, i) => (
        <div className="notice-card" key={`n${i}`} data-seq={n.seq} data-testid="notice-card">
          <div className="notice-head">
            <Icon name="bell" size={14} /> {noticeHeading(t, n.source)}
          </div>
          <Markdown text={n.text} />
        </div>
      ))}
      {turn.userText || turn.attachments.length ? (
        <div className="msg user" data-seq={turn.userSeq}>
          {turn.speaker && (
            <div className="speaker" data-testid="speaker" title={turn.speaker.id}>
              <Icon name="user" size={12} /> {turn.speaker.name ?? turn.speaker.id}
              {turn.speaker.platform && <span className="muted"> · {turn.speaker.platform}</span>}
            </div>
          )}
          {editing !== undefined ? (
            <div className="edit-box">
              <textarea className="input" autoFocus rows={Math.min(10, editing.split('\n').length + 1)} value={editing} onChange={(e) => setEditing(e.target.value)} data-testid="edit-text" aria-label={t('chat.edit')} />
              {!isLast && <div className="muted small">{t('chat.laterGo')}</div>}
              <div className="row gap end">
                <button className="btn small" onClick={() => setEditing(undefined)}>
                  {t('common.cancel')}
                </button>
                <button className="btn small primary" disabled={!editing.trim() || sessionBusy} onClick={() => ask({ kind: 'edit', text: editing })} data-testid="edit-send">
                  {t('chat.editSend')}
                </button>
              </div>
            </div>
          ) : (
          <div className="bubble">
            {turn.userText && (isForgotten(turn.userText) ? <div className="text">{forgottenNote}</div> : <LongText text={turn.userText} />)}
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
          )}
          {editing === undefined && !running && logged && (
            <div className="msg-actions user-actions">
              {/* A forgotten message has nothing to copy, edit or forget again; it can still be deleted. */}
              {!isForgotten(turn.userText) && (
                <>
                  <button className="action icon" onClick={() => void copy(turn.userText)} title={t('chat.copy')} aria-label={t('chat.copy')} data-testid="copy-user">
                    <Icon name="copy" size={14} />
                  </button>
                  <button className="action icon" disabled={sessionBusy} onClick={() => setEditing(turn.userText)} title={t('chat.edit')} aria-label={t('chat.edit')} data-testid="edit">
                    <Icon name="edit" size={14} />
                  </button>
                </>
              )}
              <button className="action icon" disabled={sessionBusy} onClick={() => setConfirm({ kind: 'delete', scope: 'turn' })} title={t('chat.deleteTurn')} aria-label={t('chat.deleteTurn')} data-testid="delete-turn">
                <Icon name="trash" size={14} />
              </button>
              {!isForgotten(turn.userText) && (
                <button className="action icon danger" onClick={() => setForgetting(true)} title={t('forget.action')} aria-label={t('forget.action')} data-testid="forget-chat-turn">
                  <Icon name="forget" size={14} />
                </button>
              )}
            </div>
          )}
        </div>
      ) : null}
      {turn.excluded && <div className="excluded-note">{t('chat.turnExcluded')}</div>}
      {turn.injected.length > 0 && (
        <details className="injection" data-testid="injection">
          <summary>
            <Icon name="layers" size={14} /> {t('chat.injected', { n: turn.injected.reduce((n, i) => n + Array.from(i.text).length, 0) })}
          </summary>
          {turn.injected.map((i, k) => (
            <InjectedBlock key={k} block={i} />
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
        <SetupCard compact={setupCompact} />
      ) : !running && !answer && !turn.error && turn.status !== 'aborted' && !hasDetail ? null : (
        <div className={`msg assistant${running ? ' streaming' : ''}`} data-seq={turn.assistantSeq}>
          <div className="bubble">
            {hasDetail && (
              <button className={`rounds-toggle${open ? ' open' : ''}`} onClick={() => setOpen(!open)} aria-expanded={open} data-testid="rounds-toggle">
                <Icon name="chevron" size={14} />
                {t('chat.llmRounds', { n: turn.rounds.length })}
                {toolCount > 0 && ` · ${t('chat.toolCalls', { n: toolCount })}`}
                {activeTool && (
                  <span className="tool-live">
                    <span className="spinner" /> {activeTool.name}
                  </span>
                )}
              </button>
            )}
            {open && <RoundsDetail turn={turn} />}
            {!open && turn.live.reasoning && running && <div className="reasoning-live">{turn.live.reasoning.slice(-300)}</div>}
            {answer ? isForgotten(answer) ? forgottenNote : <Markdown text={answer} /> : running ? <div className="typing"><span /><span /><span /></div> : null}
            {turn.status === 'error' && turn.error && (
              <div className="turn-error" data-testid="turn-error">
                {isForgotten(turn.error.message) ? (
                  forgottenNote
                ) : (
                  <>
                    <b>{t('chat.turnFailed')}</b> {errorInWords(turn.error, lang)}
                  </>
                )}
                {providersFailed && (
                  <div>
                    <a href="#/settings/providers" data-testid="turn-error-providers">
                      {t('chat.checkProviders')}
                    </a>
                  </div>
                )}
              </div>
            )}
            {turn.status === 'aborted' && <div className="muted small">{t('chat.aborted')}</div>}
          </div>
          {!running && (turn.finalText || turn.status === 'error') && (
            <div className="msg-actions">
              {turn.finalText && !isForgotten(turn.finalText) && (
                <button className="action icon" onClick={() => void copy(turn.finalText)} title={t('chat.copy')} aria-label={t('chat.copy')} data-testid="copy-answer">
                  <Icon name="copy" size={14} />
                </button>
              )}
              {logged && turn.userSeq !== undefined && !isForgotten(turn.userText) && (
                <button className="action icon" disabled={sessionBusy} onClick={() => ask({ kind: 'regenerate' })} title={t('chat.regenerate')} aria-label={t('chat.regenerate')} data-testid="regenerate">
                  <Icon name="regen" size={14} />
                </button>
              )}
              {logged && (
                <button className="action icon" disabled={sessionBusy} onClick={() => setConfirm({ kind: 'delete', scope: turn.userSeq !== undefined ? 'reply' : 'turn' })} title={t('chat.deleteReply')} aria-label={t('chat.deleteReply')} data-testid="delete-reply">
                  <Icon name="trash" size={14} />
                </button>
              )}
              {turn.finalText && turn.status !== 'error' && !isForgotten(turn.finalText) && (
                <>
                  <button className="action" onClick={() => setSaving(true)} data-testid="save-memory">
                    <Icon name="save" size={14} /> {t('chat.saveAsMemory')}
                  </button>
                  <button className={`action${pinned ? ' on' : ''}`} onClick={() => actions.togglePin(turn.finalText)} data-testid="pin">
                    <Icon name="pin" size={14} /> {pinned ? t('chat.unpin') : t('chat.pin')}
                  </button>
                </>
              )}
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
      {confirm && (
        <Dialog title={confirm.kind === 'delete' ? (confirm.scope === 'reply' ? t('chat.deleteReply') : t('chat.deleteTurn')) : confirm.kind === 'regenerate' ? t('chat.regenerate') : t('chat.editSend')} onClose={() => setConfirm(undefined)} testId="turn-confirm">
          <p>{confirm.kind === 'delete' ? (confirm.scope === 'reply' ? t('chat.deleteReplyText') : t('chat.deleteTurnText')) : t('chat.laterGoText')}</p>
          {confirm.kind === 'delete' && (
            <p className="muted small">
              {t('chat.deleteMemoryNote')}{' '}
              <button
                className="link-btn"
                onClick={() => {
                  setConfirm(undefined);
                  setForgetting(true);
                }}
              >
                {t('forget.action')}
              </button>
            </p>
          )}
          <div className="dialog-actions">
            <button className="btn" onClick={() => setConfirm(undefined)}>
              {t('common.cancel')}
            </button>
            <button className={`btn ${confirm.kind === 'delete' ? 'danger' : 'primary'}`} onClick={() => void run(confirm)} data-testid="turn-confirm-ok">
              {confirm.kind === 'delete' ? t('common.delete') : t('chat.continue')}
            </button>
          </div>
        </Dialog>
      )}
      {forgetting && <ForgetDialog request={{ turnIds: [turn.turnId] }} onClose={() => setForgetting(false)} onDone={() => {
        actions.reload();
        app.refreshMm();
      }} />}
      {saving && (
        <SaveMemoryDialog
          initial={{ title: turn.userText.slice(0, 60), snapshot: `${t('chat.userLabel')}${t('common.colon')}${turn.userText}\n\n${t('chat.assistantLabel')}${t('common.colon')}${turn.finalText}` }}
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

/**
 * One injected block opened into its sources (issue 12 part 6, "why was this recalled"): each item
 * with its tier, date and speaker, and a way to the turn it came from; the raw text below.
 */
const TIERS = new Set(['context', 'document', 'archive', 'graph', 'library', 'knowledge']);

function InjectedBlock({ block }: { block: InjectedView }) {
  const t = useT();
  const app = useApp();
  const heading = block.title || (block.source === 'memory-manager' ? t('chat.injectedLibrary') : block.source);
  return (
    <div className="injected-block" data-testid="injected-block">
      <div className="injected-title">{heading}</div>
      {block.sources.length > 0 && (
        <ul className="injected-sources" data-testid="injected-sources">
          {block.sources.map((s, k) => {
            const canJump = !!s.sessionId && (!!s.turnId || s.seq !== undefined);
            return (
              <li key={k} className="injected-source" data-testid="injected-source" data-tier={s.tier} data-id={s.id}>
                <span className="badge">{TIERS.has(s.tier) ? t(`chat.tier.${s.tier}` as DictKey) : s.tier}</span>
                {s.at ? <span className="muted small"> {new Date(s.at).toLocaleString()}</span> : null}
                {s.speaker && s.speaker.id !== 'user' ? <span className="muted small"> · {s.speaker.name ?? s.speaker.id}</span> : null}
                <span className="injected-source-text"> {s.text}</span>
                {canJump && (
                  <button
                    className="icon-btn tiny"
                    title={t('chat.openSource')}
                    aria-label={t('chat.openSource')}
                    data-testid="open-source"
                    onClick={() => app.locate(s.sessionId!, s.seq !== undefined && !s.turnId ? [s.seq] : [], s.turnId)}
                  >
                    <Icon name="locate" size={14} />
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <details className="injected-raw">
        <summary className="muted small">{t('chat.injectedText')}</summary>
        <pre className="injection-text" title={block.source}>
          {block.text}
        </pre>
      </details>
    </div>
  );
}
