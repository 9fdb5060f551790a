import { useEffect, useRef, useState } from 'react';
import { api, fileToBase64 } from '../../api/client';
import { useApp } from '../../app-context';
import { useT } from '../../i18n';
import { bytes } from '../../lib/format';
import { Icon } from '../icon';

interface Attachment {
  name: string;
  mimeType: string;
  data: string;
  size: number;
  preview?: string;
}

const MAX_ATTACHMENT = 15 * 1024 * 1024;
/** The chat route's limit of a message's text (`POST /api/v1/chat`, chat-routes.ts). */
const MAX_TEXT = 200_000;
/** How long a send may wait before the bar says that it waits (and asks the daemon why, again each time). */
const WAIT_HINT_MS = 1500;

/** What a new chat's input bar still held when its first message was taken: the session's bar starts with it. */
let carry: { text: string; files: Attachment[] } | undefined;

/** The input bar: text, attachments, the memory button (shows the mode), send — or interrupt while the agent works. */
export function InputBar({ sessionId, running, onSent }: { sessionId?: string; running: boolean; onSent: (sessionId: string, turnId: string, delivery: string, text: string) => void }) {
  const app = useApp();
  const t = useT();
  // A draft left when the first message of a new chat was taken (the view of its session takes over).
  const [carried] = useState(() => carry);
  useEffect(() => {
    if (carry === carried) carry = undefined;
  }, [carried]);
  const [text, setText] = useState(carried?.text ?? '');
  const [files, setFiles] = useState<Attachment[]>(carried?.files ?? []);
  const now = useRef({ text, files });
  now.current = { text, files };
  const [busy, setBusy] = useState(false);
  /** A send the daemon has not taken after a moment: why it waits (an import being applied), or only that it does. */
  const [waiting, setWaiting] = useState<'slow' | 'import' | undefined>();
  const fileInput = useRef<HTMLInputElement>(null);

  const send = async () => {
    const body = text.trim();
    if ((!body && files.length === 0) || busy) return;
    // The daemon takes at most MAX_TEXT characters of text: said here, with what to do instead.
    if (body.length > MAX_TEXT) {
      app.toast(t('chat.tooLong', { n: body.length.toLocaleString(), max: MAX_TEXT.toLocaleString() }), 'error');
      return;
    }
    setBusy(true);
    // While an import is applied the daemon takes a message only once it is in (decision 0380):
    // the send waits, and the person is told why rather than left to send it again.
    let look: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const ask = () => {
      look = setTimeout(() => {
        setWaiting((w) => w ?? 'slow');
        api<{ agent?: { importing?: boolean } | null }>('/api/v1/status').then(
          (st) => {
            if (done) return;
            setWaiting(st.agent?.importing ? 'import' : 'slow');
            ask();
          },
          () => !done && ask(),
        );
      }, WAIT_HINT_MS);
    };
    ask();
    const sent = files;
    const typed = text;
    try {
      const r = await api<{ sessionId: string; turnId: string; delivery: string }>('/api/v1/chat', {
        method: 'POST',
        json: { sessionId, text: body, attachments: sent.length ? sent.map(({ name, mimeType, data }) => ({ name, mimeType, data })) : undefined },
      });
      // Only what was sent leaves the box: what was typed or attached while it waited stays — also
      // when this was a new chat, whose view gives way to the session's (`carry`).
      const cur = now.current;
      const leftText = cur.text.trim() === body ? '' : cur.text.startsWith(typed) ? cur.text.slice(typed.length).trimStart() : cur.text;
      const leftFiles = cur.files.filter((f) => !sent.includes(f));
      setText(leftText);
      setFiles(leftFiles);
      if (!sessionId && (leftText || leftFiles.length)) carry = { text: leftText, files: leftFiles };
      if (r.delivery === 'interrupt') app.toast(t('chat.interruptSent'), 'info');
      onSent(r.sessionId, r.turnId, r.delivery, body);
    } catch (e) {
      app.toast((e as Error).message, 'error');
    } finally {
      done = true;
      clearTimeout(look);
      setWaiting(undefined);
      setBusy(false);
    }
  };

  const addFiles = async (list: FileList | null) => {
    if (!list) return;
    const out: Attachment[] = [];
    for (const f of Array.from(list)) {
      if (f.size > MAX_ATTACHMENT) {
        app.toast(t('chat.fileTooLarge', { name: f.name, max: bytes(MAX_ATTACHMENT) }), 'error');
        continue;
      }
      const data = await fileToBase64(f);
      out.push({ name: f.name, mimeType: f.type || 'application/octet-stream', data, size: f.size, preview: f.type.startsWith('image/') ? `data:${f.type};base64,${data}` : undefined });
    }
    setFiles((cur) => [...cur, ...out].slice(0, 10));
  };

  const mode = app.mm?.enabled === false ? 'disabled' : app.mm?.mode;
  return (
    <div
      className="input-bar"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        void addFiles(e.dataTransfer.files);
      }}
    >
      {files.length > 0 && (
        <div className="pending-files">
          {files.map((f, i) => (
            <span className="file-chip" key={i}>
              {f.preview ? <img src={f.preview} alt="" /> : <Icon name="clip" size={14} />}
              <span className="name">{f.name}</span>
              <span className="muted small">{bytes(f.size)}</span>
              <button className="icon-btn tiny" aria-label={t('common.remove')} onClick={() => setFiles((c) => c.filter((_, j) => j !== i))}>
                <Icon name="close" size={12} />
              </button>
            </span>
          ))}
        </div>
      )}
      {waiting && (
        <div className={`send-waiting ${waiting}`} role="status" data-testid="send-waiting">
          <span className="spinner" /> {t(waiting === 'import' ? 'chat.waitingImport' : 'chat.waitingSlow')}
        </div>
      )}
      <div className="input-row">
        <button
          className={`mem-btn ${mode ?? 'absent'}`}
          onClick={() => app.setMemoryPanel({ open: !app.memoryPanel.open, tab: 'plan' })}
          title={t('memory.buttonTitle')}
          data-testid="memory-button"
        >
          <Icon name="brain" size={16} />
          <span>{mode === 'on' ? t('memory.modeOn') : mode === 'off' ? t('memory.modeOff') : mode === 'disabled' ? t('memory.modeDisabled') : t('memory.short')}</span>
          {app.mm?.plan && app.mm.plan.memories + app.mm.plan.pinned > 0 && <span className="count">{app.mm.plan.memories + app.mm.plan.pinned}</span>}
        </button>
        <button className="icon-btn" onClick={() => fileInput.current?.click()} title={t('chat.attach')} aria-label={t('chat.attach')} data-testid="attach">
          <Icon name="clip" />
        </button>
        <input ref={fileInput} type="file" multiple hidden onChange={(e) => { void addFiles(e.target.files); e.target.value = ''; }} data-testid="file-input" />
        <textarea
          className="input chat-input"
          rows={1}
          value={text}
          placeholder={running ? t('chat.placeholderRunning') : t('chat.placeholder')}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
          data-testid="chat-input"
        />
        <button className={`btn ${running ? 'warn' : 'primary'} send`} disabled={busy || (!text.trim() && files.length === 0)} onClick={() => void send()} data-testid="send">
          <Icon name={running ? 'stop' : 'send'} size={16} />
          <span className="label">{running ? t('chat.interrupt') : t('chat.send')}</span>
        </button>
      </div>
    </div>
  );
}
