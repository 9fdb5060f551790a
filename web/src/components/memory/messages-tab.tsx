import { useEffect, useState } from 'react';
import { mm } from '../../api/client';
import { bus } from '../../api/event-stream';
import { useApp, useMemoryEpoch } from '../../app-context';
import { VIEW_KINDS } from '../../lib/view-kinds';
import { useLang, useT } from '../../i18n';
import { useRequest } from '../../lib/use-request';
import { relTime } from '../../lib/format';
import { Icon } from '../icon';
import { shownText } from '../../lib/vocab';
import { ProgressCard } from '../progress-card';
import { Dialog } from '../dialog';
import { SaveMemoryDialog } from '../chat/save-memory-dialog';
import type { Turn } from './types';
import { ForgetDialog } from './forget-dialog';

interface Progress {
  sessionId: string;
  phase: string;
  done: number;
  total: number;
  message: string;
}

type Pick = { turnId: string; role: 'user' | 'assistant' };

/** Messages tab: session picker, turn/step rows, save/pin messages, exclude/restore turns, summarize with progress. */
export function MessagesTab() {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const current = app.route.view === 'chat' ? app.route.sessionId : undefined;
  const [sid, setSid] = useState<string | undefined>(current);
  useEffect(() => {
    if (current) setSid(current);
  }, [current]);
  const sessions = useRequest(() => mm<{ id: string; title: string; updatedAt: number; turns: number }[]>('session.list'), [app.epoch]);
  // A turn excluded or forgotten elsewhere (`waiter memory exclude`); its own turns end below.
  const turnsChanged = useMemoryEpoch(VIEW_KINDS.turns, { withTurns: false });
  const turns = useRequest(() => (sid ? mm<Turn[]>('session.turns', {}, sid) : Promise.resolve([] as Turn[])), [sid, app.epoch, turnsChanged]);
  const [picked, setPicked] = useState<Pick[]>([]);
  const [saving, setSaving] = useState(false);
  const [summarizing, setSummarizing] = useState(false);
  const [progress, setProgress] = useState<Progress | undefined>();
  useEffect(() => setPicked([]), [sid]);
  useEffect(
    () =>
      bus.subscribe((event, payload) => {
        if (event === 'custom:memory-manager.progress') {
          const p = payload as Progress;
          if (p.sessionId === sid) setProgress(p);
        }
        if (event === 'turn_end' && (payload as { sessionId?: string }).sessionId === sid) turns.reload();
      }),
    [sid, turns.reload],
  );

  const list = [...(sessions.data ?? [])].sort((a, b) => b.updatedAt - a.updatedAt);
  const rows = turns.data ?? [];
  const isPicked = (turnId: string, role: Pick['role']) => picked.some((p) => p.turnId === turnId && p.role === role);
  const toggle = (turnId: string, role: Pick['role']) => setPicked((ps) => (isPicked(turnId, role) ? ps.filter((p) => !(p.turnId === turnId && p.role === role)) : [...ps, { turnId, role }]));
  const pickedTexts = () =>
    rows.flatMap((r) =>
      (['user', 'assistant'] as const)
        .filter((role) => isPicked(r.turnId, role))
        .map((role) => ({ role, text: role === 'user' ? r.user : r.assistant, seqs: r.seqs })),
    );

  const [forgetTurn, setForgetTurn] = useState<string | undefined>();
  const exclude = async (r: Turn) => {
    try {
      const res = await mm<{ madeFrom?: number; setAside?: number }>(r.excluded ? 'turn.restore' : 'turn.exclude', { turnId: r.turnId }, sid);
      // What the toggle took along (decision 0440): the memories made from the turn.
      const madeFrom = res?.madeFrom ?? 0;
      const back = madeFrom - (res?.setAside ?? 0);
      const along = !madeFrom ? '' : r.excluded ? (back ? t('messages.memoriesBack', { n: back }) : t('messages.memoriesStillAside', { n: madeFrom })) : t('messages.memoriesSetAside', { n: res?.setAside ?? 0 });
      app.toast((r.excluded ? t('messages.restored') : t('messages.excludedToast')) + along, 'ok');
      turns.reload();
      app.refreshMm();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
  };
  const pin = async () => {
    try {
      for (const p of pickedTexts()) await mm('plan.pin', { role: p.role, text: p.text });
      app.toast(t('messages.pinnedN', { n: picked.length }), 'ok');
      setPicked([]);
      app.refreshMm();
    } catch (e) {
      app.toast((e as Error).message, 'error');
    }
  };

  return (
    <div className="messages-tab" data-testid="messages-tab">
      <div className="row gap">
        <select className="input grow" value={sid ?? ''} onChange={(e) => setSid(e.target.value || undefined)} data-testid="session-picker">
          <option value="">{t('messages.pickSession')}</option>
          {list.map((s) => (
            <option key={s.id} value={s.id}>
              {(s.title || s.id).slice(0, 50)} · {relTime(s.updatedAt, lang)}
            </option>
          ))}
        </select>
        <button className="btn small" disabled={!sid || rows.length === 0} onClick={() => setSummarizing(true)} data-testid="summarize">
          <Icon name="spark" size={14} /> {t('messages.summarize')}
        </button>
      </div>
      {progress && progress.phase !== 'done' && (
        <ProgressCard
          testId="summary-progress"
          label={progress.message || t(`messages.phase.${progress.phase}` as 'messages.phase.turns')}
          figure={`${progress.done}/${progress.total}`}
          fraction={progress.total ? progress.done / progress.total : undefined}
        />
      )}
      {picked.length > 0 && (
        <div className="selection-bar">
          <span>{t('messages.selected', { n: picked.length })}</span>
          <button className="btn small primary" onClick={() => setSaving(true)} data-testid="messages-save">
            {t('chat.saveAsMemory')}
          </button>
          <button className="btn small" onClick={() => void pin()} data-testid="messages-pin">
            {t('chat.pin')}
          </button>
          <button className="btn small" onClick={() => setPicked([])}>
            {t('common.clear')}
          </button>
        </div>
      )}
      {!sid && <div className="empty-state small">{t('messages.noSession')}</div>}
      {turns.error && <div className="error-card compact">{t('common.loadFailed', { error: turns.error.message })}</div>}
      {sid && rows.length === 0 && !turns.loading && !turns.error && <div className="empty-state small">{t('messages.noTurns')}</div>}
      {forgetTurn && <ForgetDialog request={{ turnIds: [forgetTurn] }} onClose={() => setForgetTurn(undefined)} onDone={() => turns.reload()} />}
      <div className="turn-rows" data-testid="turn-rows">
        {rows.map((r) => (
          <div className={`turn-row${r.excluded ? ' excluded' : ''}`} key={r.turnId} data-turn-row={r.turnId}>
            <div className="turn-row-head">
              <span className="badge">#{r.n}</span>
              <span className="muted small grow">{relTime(r.at, lang)}</span>
              {r.excluded && <span className="badge warn">{t('messages.excluded')}</span>}
              {/* Forgotten: nothing is left to exclude, forget again, save or pin. */}
              {r.forgotten ? (
                <span className="badge" data-testid="turn-forgotten">
                  {t('messages.forgotten')}
                </span>
              ) : (
                <>
                  <button className="icon-btn tiny" title={t('messages.locate')} aria-label={t('messages.locate')} onClick={() => app.locate(sid!, r.seqs, r.turnId)}>
                    <Icon name="locate" size={14} />
                  </button>
                  <button className="btn tiny" onClick={() => void exclude(r)} data-testid={r.excluded ? 'restore-turn' : 'exclude-turn'}>
                    {r.excluded ? t('messages.restore') : t('messages.exclude')}
                  </button>
                  <button className="btn tiny danger" onClick={() => setForgetTurn(r.turnId)} data-testid="forget-turn-open">
                    {t('forget.action')}
                  </button>
                </>
              )}
            </div>
            {r.user && (
              <label className="step">
                <input type="checkbox" checked={isPicked(r.turnId, 'user')} onChange={() => toggle(r.turnId, 'user')} />
                <span className="role user">{t('chat.userLabel')}</span>
                <span className="clamp3">{shownText(t, r.user)}</span>
              </label>
            )}
            {r.tools.map((x, i) => (
              <div className="step tool" key={i}>
                <Icon name="tool" size={12} />
                <span className="clamp1 mono small">{x}</span>
              </div>
            ))}
            {r.assistant && (
              <label className="step">
                <input type="checkbox" checked={isPicked(r.turnId, 'assistant')} onChange={() => toggle(r.turnId, 'assistant')} />
                <span className="role assistant">{t('chat.assistantLabel')}</span>
                <span className="clamp3">{shownText(t, r.assistant)}</span>
              </label>
            )}
          </div>
        ))}
      </div>
      {saving && sid && (
        <SaveMemoryDialog
          initial={{
            title: (pickedTexts()[0]?.text ?? '').slice(0, 60),
            snapshot: pickedTexts().map((p) => `${p.role === 'user' ? t('chat.userLabel') : t('chat.assistantLabel')}${t('common.colon')}${p.text}`).join('\n\n'),
          }}
          source={{ sessionId: sid, seqs: [...new Set(pickedTexts().flatMap((p) => p.seqs))].sort((a, b) => a - b) }}
          onClose={(id) => {
            setSaving(false);
            if (id) {
              setPicked([]);
              app.toast(t('memory.saved'), 'ok');
              app.refreshMm();
            }
          }}
        />
      )}
      {summarizing && sid && (
        <SummarizeDialog
          sessionId={sid}
          turns={rows.filter((r) => !r.excluded && !r.forgotten).length}
          onClose={(n) => {
            setSummarizing(false);
            if (n !== undefined) {
              app.toast(t('messages.summarized', { n }), 'ok');
              app.refreshMm();
            }
          }}
          onStart={() => setProgress({ sessionId: sid, phase: 'turns', done: 0, total: 0, message: '' })}
          onEnd={() => setProgress(undefined)}
        />
      )}
    </div>
  );
}

function SummarizeDialog({ sessionId, turns, onClose, onStart, onEnd }: { sessionId: string; turns: number; onClose: (n?: number) => void; onStart: () => void; onEnd: () => void }) {
  const t = useT();
  const [lastN, setLastN] = useState('');
  const [merge, setMerge] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setBusy(true);
    setError(undefined);
    onStart();
    try {
      const n = Number(lastN);
      const r = await mm<{ count: number }>('session.summarize', { lastN: lastN && n > 0 ? Math.trunc(n) : undefined, merge }, sessionId);
      onClose(r.count);
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    } finally {
      onEnd();
    }
  };
  return (
    <Dialog title={t('messages.summarizeTitle')} onClose={() => !busy && onClose()} testId="summarize-dialog">
      <p className="muted small">{t('messages.summarizeHint', { n: turns })}</p>
      <label className="field">
        <span>{t('messages.lastN')}</span>
        <input className="input" type="number" min={1} placeholder={t('messages.allTurns')} value={lastN} onChange={(e) => setLastN(e.target.value)} />
      </label>
      <label className="check">
        <input type="checkbox" checked={merge} onChange={(e) => setMerge(e.target.checked)} /> {t('messages.merge')}
      </label>
      {error && <div className="form-error">{error}</div>}
      <div className="dialog-actions">
        <button className="btn" disabled={busy} onClick={() => onClose()}>
          {t('common.cancel')}
        </button>
        <button className="btn primary" disabled={busy} onClick={() => void start()} data-testid="summarize-start">
          {busy ? t('messages.summarizing') : t('messages.summarize')}
        </button>
      </div>
    </Dialog>
  );
}
