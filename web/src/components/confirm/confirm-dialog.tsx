import { useCallback, useEffect, useState } from 'react';
import { api } from '../../api/client';
import { bus } from '../../api/event-stream';
import { useLang, useT } from '../../i18n';
import { confirmDetailInWords, confirmTitleInWords } from '../../lib/confirm-words';
import { Dialog } from '../dialog';
import type { PendingConfirm } from '../../../../src/spec/index.js';

/** A `host.confirm` question (server: src/builtins/webui/confirm-broker.ts) with its local deadline. */
interface Pending extends PendingConfirm {
  /** Local deadline (ms), from the time it arrived + timeoutMs. */
  deadline: number;
}

/**
 * Asks the user to approve or deny what a plugin wants to do (e.g. `cmd` running a command
 * outside its allowlist): one dialog at a time with the command and its args and a countdown;
 * the daemon counts no answer as "denied". Closed when any tab answers or it times out.
 */
export function ConfirmDialog({ epoch }: { epoch: number }) {
  const t = useT();
  const lang = useLang();
  const [queue, setQueue] = useState<Pending[]>([]);
  const [now, setNow] = useState(() => Date.now());
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    api<{ pending: Omit<Pending, 'deadline'>[] }>('/api/v1/confirm').then(
      (j) => live && setQueue(j.pending.map((p) => ({ ...p, deadline: Date.now() + Math.max(0, p.expiresAt - Date.now()) }))),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [epoch]);
  useEffect(
    () =>
      bus.subscribe((event, payload) => {
        if (event === 'confirm_request') {
          const p = payload as Omit<Pending, 'deadline'>;
          setQueue((q) => (q.some((x) => x.id === p.id) ? q : [...q, { ...p, deadline: Date.now() + p.timeoutMs }]));
        }
        if (event === 'confirm_resolved') {
          const id = (payload as { id: string }).id;
          setQueue((q) => q.filter((x) => x.id !== id));
        }
      }),
    [],
  );
  const cur = queue[0];
  useEffect(() => {
    if (!cur) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [cur]);

  const answer = useCallback(
    async (approved: boolean) => {
      if (!cur) return;
      setBusy(true);
      try {
        await api(`/api/v1/confirm/${encodeURIComponent(cur.id)}`, { method: 'POST', json: { approved } });
      } catch {
        // Already answered elsewhere or timed out: the daemon decided; drop it here too.
      } finally {
        setBusy(false);
        setQueue((q) => q.filter((x) => x.id !== cur.id));
      }
    },
    [cur],
  );

  if (!cur) return null;
  const left = Math.min(Math.ceil(cur.timeoutMs / 1000), Math.max(0, Math.ceil((cur.deadline - now) / 1000)));
  return (
    // One dialog per request (key): the next one in the queue starts with the focus on the dialog,
    // not on the button the person had reached in the one before.
    <Dialog key={cur.id} title={t('confirm.title')} onClose={() => void answer(false)} testId="confirm-dialog">
      <p className="confirm-ask">
        <strong>{confirmTitleInWords(cur.title, cur.plugin, lang)}</strong>
      </p>
      <p className="muted small">{cur.sessionId ? t('confirm.from', { plugin: cur.plugin, session: cur.sessionId }) : t('confirm.fromPlugin', { plugin: cur.plugin })}</p>
      <pre className="confirm-detail" data-testid="confirm-detail">
        {confirmDetailInWords(cur.detail, cur.plugin, lang)}
      </pre>
      <p className="muted small" data-testid="confirm-countdown">
        {t('confirm.countdown', { s: left })}
      </p>
      <div className="dialog-actions">
        <button className="btn" disabled={busy} onClick={() => void answer(false)} data-testid="confirm-deny">
          {t('confirm.deny')}
        </button>
        <button className="btn primary" disabled={busy} onClick={() => void answer(true)} data-testid="confirm-approve">
          {t('confirm.approve')}
        </button>
      </div>
    </Dialog>
  );
}
