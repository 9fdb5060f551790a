import { useRef, useState } from 'react';
import { api, token, ApiError } from '../../api/client';
import { useApp } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { dict, type DictKey } from '../../i18n-dict';
import { bytes, localDay } from '../../lib/format';
import { importNoteInWords } from '../../lib/import-note-words';
import { useAgentTimeZone } from '../../lib/use-agent-time-zone';
import type { TransferJobView, TransferMode, TransferReport } from '../../../../src/spec/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls a transfer job until it leaves `running`, reporting each view. */
async function follow(id: string, onView: (j: TransferJobView) => void): Promise<TransferJobView> {
  for (;;) {
    const j = (await api<{ job: TransferJobView }>(`/api/v1/transfer/jobs/${id}`)).job;
    onView(j);
    if (j.state !== 'running') return j;
    await sleep(250);
  }
}

/** Uploads the archive as application/octet-stream with upload progress (fetch has none). */
function upload(file: File, onProgress: (done: number, total: number) => void): Promise<TransferJobView> {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open('POST', '/api/v1/transfer/import');
    x.setRequestHeader('content-type', 'application/octet-stream');
    const tk = token();
    if (tk) x.setRequestHeader('authorization', `Bearer ${tk}`);
    x.upload.onprogress = (e) => onProgress(e.loaded, e.total || file.size);
    x.onload = () => {
      let j: { ok?: boolean; job?: TransferJobView; error?: { code: string; message: string } } = {};
      try {
        j = JSON.parse(x.responseText) as typeof j;
      } catch {
        // not JSON: reported below
      }
      if (x.status >= 200 && x.status < 300 && j.job) resolve(j.job);
      else reject(new ApiError(j.error?.message ?? `HTTP ${x.status}`, j.error?.code ?? `HTTP_${x.status}`, x.status));
    };
    x.onerror = () => reject(new ApiError('network error', 'NETWORK', 0));
    x.send(file);
  });
}

function Progress({ job, label }: { job?: TransferJobView; label?: string }) {
  const t = useT();
  if (!job && !label) return null;
  const p = job?.progress;
  const pct = p && p.total > 0 ? Math.min(100, Math.floor((100 * p.done) / p.total)) : undefined;
  return (
    <div className="progress-card" data-testid="transfer-progress">
      <div className="small">{label ?? t(`data.phase.${p?.phase ?? 'start'}` as 'data.phase.start')}{pct !== undefined ? ` · ${pct}%` : ''}</div>
      <progress max={100} value={pct ?? (job?.state === 'done' ? 100 : undefined)} style={{ width: '100%' }} />
    </div>
  );
}

/**
 * What an import report says was held back (decision 0350): what would reach every session (the
 * library's and the persona's `heldForApproval`) and settings only the person sets
 * (`settings.privilegedLeftOut`).
 */
export function heldBack(report: TransferReport | undefined): { injected: string[]; privileged: string[] } {
  const p = report?.parts;
  return {
    injected: [...(p?.library?.heldForApproval ?? []), ...(p?.persona?.heldForApproval ?? [])],
    privileged: [...(p?.settings?.privilegedLeftOut ?? [])],
  };
}

/** One held item in words: the plan, the one-shot queue, the persona, a library memory; else its path. */
function HeldItem({ path }: { path: string }) {
  const t = useT();
  const memory = /^memories\/(.+)\.md$/.exec(path);
  const text =
    path === 'pinned/plan.json' ? t('data.held.plan') : path === 'pinned/once.json' ? t('data.held.once') : path === 'persona.md' ? t('data.held.persona') : memory ? t('data.held.memory', { id: memory[1] }) : path;
  return <li>{text}</li>;
}

/**
 * The person's yes to what the checked archive holds back (decision 0350), unticked by default and
 * shown only for what the report names: what would reach every conversation (`approveInjected`),
 * and privileged settings (`privilegedSettings`, in a warning tone: they name programs, paths and
 * addresses).
 */
function HeldChoices({ held, approve, setApprove, privileged, setPrivileged }: { held: { injected: string[]; privileged: string[] }; approve: boolean; setApprove: (v: boolean) => void; privileged: boolean; setPrivileged: (v: boolean) => void }) {
  const t = useT();
  if (held.injected.length === 0 && held.privileged.length === 0) return null;
  return (
    <div className="held-choices" data-testid="import-held">
      {held.injected.length > 0 && (
        <div className="held-choice" data-testid="import-held-injected">
          <label className="check">
            <input type="checkbox" checked={approve} onChange={(e) => setApprove(e.target.checked)} data-testid="import-approve-injected" />
            <span>{t('data.approveInjected')}</span>
          </label>
          <p className="muted small">{t('data.approveInjectedHint')}</p>
          <ul className="small">
            {held.injected.map((x) => (
              <HeldItem key={x} path={x} />
            ))}
          </ul>
        </div>
      )}
      {held.privileged.length > 0 && (
        <div className="held-choice warn" data-testid="import-held-privileged">
          <label className="check">
            <input type="checkbox" checked={privileged} onChange={(e) => setPrivileged(e.target.checked)} data-testid="import-privileged-settings" />
            <span>{t('data.privilegedSettings')}</span>
          </label>
          <p className="small warn-text">{t('data.privilegedHint')}</p>
          <ul className="small">
            {held.privileged.map((k) => (
              <li key={k}>
                <code>{k}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/** Conflicts kept as they are here: the rest of a part's conflicts were taken or kept both. */
export function keptOf(p: { conflicts: number; overwritten: number; keptBoth: number; skipped: number }): number {
  return Math.min(p.skipped, Math.max(0, p.conflicts - p.overwritten - p.keptBoth));
}

/** A part of an archive as the person names it ("Library (memories and the plan)"; the part's key on hover). */
function partLabel(t: ReturnType<typeof useT>, part: string): string {
  const key = `data.part.${part}`;
  return key in dict.en ? t(key as DictKey) : part;
}

function ReportTable({ report }: { report: TransferReport }) {
  const t = useT();
  const lang = useLang();
  const rows = Object.entries(report.parts);
  return (
    <div data-testid="transfer-report">
      <table className="small">
        <thead>
          <tr>
            <th />
            <th>{t('data.col.added')}</th>
            <th>{t('data.col.same')}</th>
            <th>{t('data.col.conflicts')}</th>
            <th>{t('data.col.leftOut')}</th>
            <th>{t('data.col.forgotten')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([part, p]) => (
            <tr key={part}>
              <td title={part}>{partLabel(t, part)}</td>
              <td>{p?.added ?? 0}</td>
              <td>{p?.same ?? 0}</td>
              {/* `skipped` counts kept conflicts and things left out (a setting not known here, a secret, one held for the person): apart. */}
              <td>{p ? `${p.conflicts} (${keptOf(p)}/${p.overwritten}/${p.keptBoth})` : 0}</td>
              <td>{p ? Math.max(0, p.skipped - keptOf(p)) : 0}</td>
              <td>{p?.forgotten ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {report.notes.length > 0 && (
        <ul className="muted small">
          {report.notes.map((n) => (
            <li key={n}>{importNoteInWords(n, lang)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * Settings → Data (K-5): export the whole memory into one archive (optionally encrypted with a
 * passphrase) and import one, with a check first and a progress bar for each job.
 */
export function DataSection() {
  const zone = useAgentTimeZone();
  const app = useApp();
  const t = useT();
  const [exPass, setExPass] = useState('');
  const [exJob, setExJob] = useState<TransferJobView>();
  const [exBusy, setExBusy] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  /** An archive is chosen: Check and Import have something to work on. */
  const [hasFile, setHasFile] = useState(false);
  const [imJob, setImJob] = useState<TransferJobView>();
  const [uploadLabel, setUploadLabel] = useState<string>();
  const [mode, setMode] = useState<TransferMode>('skip');
  const [imPass, setImPass] = useState('');
  /** The person's yes to what the checked report held back (decision 0350); unticked until they tick it. */
  const [approveInjected, setApproveInjected] = useState(false);
  const [privilegedSettings, setPrivilegedSettings] = useState(false);
  /** The last export or import failure: its message is shown, its code is kept for the tooltip. */
  const [error, setError] = useState<{ op: 'export' | 'import'; code?: string; message: string }>();
  const [busy, setBusy] = useState(false);

  const runExport = async () => {
    setExBusy(true);
    setError(undefined);
    try {
      const started = (await api<{ job: TransferJobView }>('/api/v1/transfer/export', { method: 'POST', json: exPass ? { passphrase: exPass } : {} })).job;
      const job = await follow(started.id, setExJob);
      if (job.state !== 'done') throw new ApiError(job.error?.message ?? 'export failed', job.error?.code ?? 'ERROR', 500);
      // The download needs the token: fetched, then handed to the browser as a file.
      const res = await fetch(`/api/v1/transfer/jobs/${job.id}/download`, { headers: { authorization: `Bearer ${token()}` } });
      if (!res.ok) throw new ApiError(`download failed (HTTP ${res.status})`, `HTTP_${res.status}`, res.status);
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement('a');
      a.href = url;
      a.download = job.file?.name ?? 'homeagent-export.zip';
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      app.toast(t('data.exported', { size: bytes(job.file?.bytes) }), 'ok');
    } catch (e) {
      setError({ op: 'export', code: (e as ApiError).code, message: (e as Error).message });
    } finally {
      setExBusy(false);
    }
  };

  const stage = async (): Promise<TransferJobView | undefined> => {
    const file = fileRef.current?.files?.[0];
    if (!file) return undefined;
    if (imJob && imJob.state === 'staged') return imJob;
    const job = await upload(file, (d, total) => setUploadLabel(t('data.uploading', { pct: String(Math.floor((100 * d) / Math.max(1, total))) })));
    setUploadLabel(undefined);
    setImJob(job);
    // A new upload has had no report yet: no earlier yes carries over to it.
    setApproveInjected(false);
    setPrivilegedSettings(false);
    return job;
  };

  const check = async (apply: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      const staged = await stage();
      if (!staged) return;
      const opts = { mode, ...(imPass ? { passphrase: imPass } : {}) };
      if (!apply) {
        // The check never passes the yes: its report names what is held back without it.
        setImJob((await api<{ job: TransferJobView }>(`/api/v1/transfer/jobs/${staged.id}/inspect`, { method: 'POST', json: opts })).job);
        return;
      }
      // A yes counts only for what the checked report showed (the boxes are there only then).
      const held = heldBack(staged.state === 'staged' ? staged.report : undefined);
      const yes = { ...(approveInjected && held.injected.length > 0 ? { approveInjected: true } : {}), ...(privilegedSettings && held.privileged.length > 0 ? { privilegedSettings: true } : {}) };
      await api(`/api/v1/transfer/jobs/${staged.id}/apply`, { method: 'POST', json: { ...opts, ...yes } });
      const job = await follow(staged.id, setImJob);
      if (job.state === 'done') {
        app.toast(t('data.imported'), 'ok');
        app.refreshMm();
      } else if (job.error) setError({ op: 'import', code: job.error.code, message: job.error.message });
    } catch (e) {
      setError({ op: 'import', code: (e as ApiError).code, message: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const reset = () => {
    if (imJob && imJob.state !== 'running') void api(`/api/v1/transfer/jobs/${imJob.id}`, { method: 'DELETE' }).catch(() => {});
    setImJob(undefined);
    setError(undefined);
    setApproveInjected(false);
    setPrivilegedSettings(false);
  };
  const held = heldBack(imJob?.report);

  return (
    <div className="data-section" data-testid="data-section">
      <h3>{t('data.export')}</h3>
      <p className="muted">{t('data.exportHint')}</p>
      <div className="row gap wrap">
        <input type="password" className="input passphrase" placeholder={t('data.passphraseOptional')} value={exPass} onChange={(e) => setExPass(e.target.value)} data-testid="export-passphrase" autoComplete="new-password" />
        <button className="btn primary" disabled={exBusy} onClick={() => void runExport()} data-testid="export-start">
          {t('data.exportButton')}
        </button>
      </div>
      {exBusy && <Progress job={exJob} />}
      {exJob?.state === 'done' && exJob.file && (
        <p className="muted small" data-testid="export-done">
          {exJob.file.name} · {bytes(exJob.file.bytes)} · sha256 {exJob.file.sha256.slice(0, 16)}…
        </p>
      )}
      {exJob?.state === 'done' &&
        exJob.leftOut?.map((l) => (
          <p className="warn-text small" role="alert" key={l.part} data-testid="export-left-out">
            {t('data.leftOut', { file: l.file, error: l.error, recover: t(`data.recover.${l.part}` as DictKey) })}
          </p>
        ))}

      <h3>{t('data.import')}</h3>
      <p className="muted">{t('data.importHint')}</p>
      <div className="row gap wrap">
        <input type="file" ref={fileRef} onChange={(e) => { reset(); setHasFile(!!e.target.files?.length); }} data-testid="import-file" />
        <select className="input" value={mode} onChange={(e) => setMode(e.target.value as TransferMode)} data-testid="import-mode">
          <option value="skip">{t('data.mode.skip')}</option>
          <option value="overwrite">{t('data.mode.overwrite')}</option>
          <option value="keep-both">{t('data.mode.keepBoth')}</option>
        </select>
        <input type="password" className="input passphrase" placeholder={t('data.passphraseIfEncrypted')} value={imPass} onChange={(e) => setImPass(e.target.value)} data-testid="import-passphrase" autoComplete="off" />
      </div>
      <div className="row gap wrap data-actions">
        <button className="btn" disabled={busy || !hasFile} title={hasFile ? undefined : t('data.chooseFirst')} onClick={() => void check(false)} data-testid="import-check">
          {t('data.check')}
        </button>
        <button className="btn primary" disabled={busy || !hasFile} title={hasFile ? undefined : t('data.chooseFirst')} onClick={() => void check(true)} data-testid="import-start">
          {t('data.importButton')}
        </button>
      </div>
      {(busy || uploadLabel) && <Progress job={imJob?.state === 'running' ? imJob : undefined} label={uploadLabel ?? (imJob?.state === 'running' ? undefined : t('data.checking'))} />}
      {imJob?.manifest && (
        <p className="muted small" data-testid="import-manifest">
          {t('data.archiveOf', { version: imJob.manifest.homeagentVersion, date: localDay(Date.parse(imJob.manifest.createdAt), zone) || imJob.manifest.createdAt.slice(0, 10), size: bytes(imJob.manifest.bytes) })}
        </p>
      )}
      {imJob?.report && (
        <>
          <p className="small">{imJob.state === 'done' ? t('data.done') : t('data.wouldDo')}</p>
          <ReportTable report={imJob.report} />
          {imJob.state === 'staged' ? (
            <HeldChoices held={held} approve={approveInjected} setApprove={setApproveInjected} privileged={privilegedSettings} setPrivileged={setPrivilegedSettings} />
          ) : imJob.state === 'done' && held.injected.length + held.privileged.length > 0 ? (
            <div className="muted small" data-testid="import-held-done">
              {t('data.heldDone')}
              <ul>
                {held.injected.map((x) => (
                  <HeldItem key={x} path={x} />
                ))}
                {held.privileged.map((k) => (
                  <li key={k}>
                    <code>{k}</code>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </>
      )}
      {error && (
        <div className="error-card compact" role="alert" title={error.code} data-testid="transfer-error">
          <span className="error-title">{t(error.op === 'export' ? 'data.exportFailed' : 'data.importFailed')}</span>
          <span>{error.message}</span>
        </div>
      )}
    </div>
  );
}
