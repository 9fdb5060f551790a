import { useEffect, useState } from 'react';
import { api, pickList } from '../../api/client';
import { useApp } from '../../app-context';
import { useLang, useT } from '../../i18n';
import { channelSentence, retryPhrase, type ChannelWords } from '../../lib/channel-words';
import { useNow } from '../../lib/use-now';
import { proxyInWords } from '../../lib/error-words';
import { useRequest } from '../../lib/use-request';
import { useConfigEpoch } from '../../lib/use-config-epoch';
import { notificationState, requestNotifications } from '../../lib/browser-notify';
import type { PersonView } from './people-section';
import { SchemaField, type ConfigKeyInfo } from './schema-field';

interface ChannelList {
  preferred: string;
  effective?: string;
  channels: { name: string; caps: number; push: boolean; plugin: string; description: string }[];
}

interface ChannelStatus {
  status: string;
  /** The daemon's English (shown for a code this page does not know). */
  detail?: string;
  /** The detail as a code and parameters, worded here in the page's language (decision 0680). */
  words?: ChannelWords;
  /** When the next attempt is due (status `retrying`): the page counts down to it. */
  retryAt?: number;
  bot?: { username?: string; name?: string };
  selfId?: string;
  nickname?: string;
  url?: string;
  /** Where notices go when this channel is the default one (decision 0650). */
  notices?: { to: string | null; by: 'setting' | 'owner' | 'none' };
}

interface TestResult {
  ok: boolean;
  latencyMs?: number;
  bot?: { username?: string; name?: string };
  selfId?: string;
  nickname?: string;
  error?: { code: string; message: string; words?: ChannelWords };
}

const GOOD = new Set(['running', 'connected']);
/** The settings a person sets up first come first; the rest keep the server's order. */
const FIRST = ['mode', 'bot_token', 'access_token', 'allowed_user_ids', 'allowed_group_ids', 'ws_url', 'reverse_host', 'reverse_port', 'reverse_path', 'notify_chat_id', 'notify_target'];
const rank = (k: ConfigKeyInfo) => {
  const i = FIRST.indexOf(k.key.split('.').slice(2).join('.'));
  return i < 0 ? FIRST.length : i;
};
const WAITING = new Set(['connecting', 'listening', 'retrying']);
/** Statuses of a registered channel that cannot deliver now. */
const FAILING = new Set(['error', 'retrying']);

/** A channel as people call it: the WebUI in the page's words, the chat apps by their names, another as it is registered. */
function channelName(t: ReturnType<typeof useT>, name: string): string {
  return name === 'webui' ? t('channels.name.webui') : name === 'telegram' ? 'Telegram' : name === 'qq' ? 'QQ' : name;
}

/**
 * Chat channels: where proactive messages go (with the browser-notification
 * switch), then one card per channel — its status, its settings (secrets masked, generated from
 * their schemas) and a "test connection" button that asks the daemon to reach the platform.
 */
export function ChannelsSection() {
  const app = useApp();
  const t = useT();
  const changed = useConfigEpoch('');
  const settings = useRequest(async () => pickList<ConfigKeyInfo>(await api('/api/v1/settings'), 'keys', 'settings'), [app.epoch, changed]);
  const list = useRequest(() => api<{ value: ChannelList }>('/api/v1/channels').then((r) => r.value), [app.epoch]);
  const [perm, setPerm] = useState(notificationState());
  // The owner's ids linked under People count as theirs as much as the list above (decision 0090):
  // said here, so the two places do not seem to disagree.
  const people = useRequest(() => api<{ people: PersonView[] }>('/api/v1/people').then((j) => j.people), [app.epoch, changed]);
  const owner = people.data?.find((p) => p.owner);
  const linked = owner ? owner.ids.filter((id) => !(owner.configIds ?? []).includes(id)) : [];
  const save = async (key: string, value: unknown) => {
    const j = await api<{ value?: ConfigKeyInfo }>(`/api/v1/settings/${encodeURIComponent(key)}`, { method: 'PUT', json: { value } });
    settings.setData((d) => d?.map((k) => (k.key === key && j.value ? j.value : k)));
    list.reload();
  };
  const keys = (prefix: string) => (settings.data ?? []).filter((k) => k.key.startsWith(prefix));
  // Only channels that can reach the owner unasked (chat apps) and the WebUI make sense here; an
  // API client's channel (openai) or the CLI would swallow the message.
  const names = [...new Set(['webui', 'telegram', 'qq', ...(list.data?.channels ?? []).filter((c) => c.push).map((c) => c.name)])];
  const registered = new Set((list.data?.channels ?? []).map((c) => c.name));
  const preferred = list.data?.preferred ?? 'webui';
  // A registered chat channel can still be failing (a rejected token, an unreachable server): its
  // option says so, and the hint says where messages go meanwhile (they fall back to the WebUI).
  const states = useRequest(async () => {
    const out: Record<string, string> = {};
    for (const n of ['telegram', 'qq']) {
      try {
        out[n] = (await api<{ value: ChannelStatus }>(`/api/v1/channels/${n}`)).value.status;
      } catch {}
    }
    return out;
  }, [app.epoch, changed]);
  const failing = (n: string) => registered.has(n) && FAILING.has(states.data?.[n] ?? '');
  const optionLabel = (n: string) =>
    !registered.has(n) ? t('channels.notConnected', { name: channelName(t, n) }) : failing(n) ? t('channels.optionState', { name: channelName(t, n), state: t(`channels.status.${states.data![n]}` as 'channels.status.off') }) : channelName(t, n);
  if (settings.error) return <div className="error-card compact">{t('common.loadFailed', { error: settings.error.message })}</div>;
  return (
    <div className="channels" data-testid="channels">
      <p className="muted">{t('channels.hint')}</p>
      <details className="card setup-help" data-testid="channels-setup">
        <summary>{t('channels.setupTitle')}</summary>
        <ul className="muted small">
          <li>{t('channels.setupTelegram')}</li>
          <li>{t('channels.setupQq')}</li>
        </ul>
        <p className="muted small">{t('channels.setupMore')}</p>
      </details>
      <section className="card" data-testid="channel-default">
        <div className="card-head">
          <span>{t('channels.default')}</span>
        </div>
        <div className="muted small">{t('channels.defaultHint')}</div>
        <div className="row gap wrap">
          <select className="input" value={preferred} data-testid="notify-channel" onChange={(e) => void save('core.notify.channel', e.target.value).catch((err) => app.toast((err as Error).message, 'error'))}>
            {names.map((n) => (
              <option key={n} value={n}>
                {optionLabel(n)}
              </option>
            ))}
          </select>
          {list.data?.effective && list.data.effective !== preferred && <span className="badge warn">{t('channels.fallsBack', { name: channelName(t, list.data.effective) })}</span>}
          {list.data?.effective === preferred && failing(preferred) && (
            <span className="badge warn" data-testid="notify-channel-failing">
              {t('channels.failingGoesTo', { name: channelName(t, preferred), to: channelName(t, 'webui') })}
            </span>
          )}
        </div>
        <div className="row gap wrap" style={{ marginTop: 8 }}>
          <span className={`badge ${perm === 'granted' ? 'ok' : ''}`} data-testid="notify-permission">
            {t(`channels.notify.${perm}`)}
          </span>
          {perm === 'denied' && (
            // Only the browser can undo a block; where, said for any browser (decision 0690).
            <span className="muted small" data-testid="notify-unblock">
              {t('channels.notify.unblock')}
            </span>
          )}
          {perm === 'default' && (
            <button className="btn small" data-testid="notify-enable" onClick={() => void requestNotifications().then(setPerm)}>
              {t('channels.notify.enable')}
            </button>
          )}
        </div>
        {keys('core.identity.').map((k) => (
          <SchemaField key={k.key} info={k} onSave={(v) => save(k.key, v)} />
        ))}
        {linked.length > 0 && (
          <p className="muted small" data-testid="owner-linked-ids">
            {t('channels.linkedIds', { ids: linked.join(', ') })}{' '}
            <a href="#/settings/people">{t('channels.openPeople')}</a>
          </p>
        )}
      </section>
      <ChannelCard name="telegram" title="Telegram" keys={keys('plugin.telegram.')} save={save} />
      <ChannelCard name="qq" title="QQ (OneBot v11)" keys={keys('plugin.qq.')} save={save} />
    </div>
  );
}

function ChannelCard({ name, title, keys, save }: { name: string; title: string; keys: ConfigKeyInfo[]; save: (key: string, value: unknown) => Promise<void> }) {
  const app = useApp();
  const t = useT();
  const lang = useLang();
  const status = useRequest(() => api<{ value: ChannelStatus }>(`/api/v1/channels/${name}`).then((r) => r.value), [app.epoch]);
  const [result, setResult] = useState<TestResult | 'running' | undefined>();
  const test = async () => {
    setResult('running');
    try {
      setResult((await api<{ value: TestResult }>(`/api/v1/channels/${name}/test`, { method: 'POST', json: {} })).value);
    } catch (e) {
      setResult({ ok: false, error: { code: 'REQUEST_FAILED', message: (e as Error).message } });
    }
    status.reload();
  };
  const st = status.data;
  const retryAt = st?.status === 'retrying' && typeof st.retryAt === 'number' ? st.retryAt : undefined;
  const now = useNow(retryAt !== undefined);
  // Once the attempt is due, read the status again (a second after, when a refused connection has
  // answered): once per retryAt, so an attempt still under way says "retrying now…" until it ends.
  useEffect(() => {
    if (retryAt === undefined) return;
    const timer = setTimeout(status.reload, Math.max(0, retryAt - Date.now()) + 1000);
    return () => clearTimeout(timer);
  }, [retryAt, status.reload]);
  const who = st?.bot?.username ? `@${st.bot.username}` : st?.nickname ? `${st.nickname} (${st.selfId})` : st?.selfId;
  return (
    <section className="card" data-testid={`channel-${name}`}>
      <div className="card-head">
        <span>{title}</span>
        {status.error ? (
          <span className="badge">{t('channels.pluginOff')}</span>
        ) : (
          st && (
            <span className={`badge ${GOOD.has(st.status) ? 'ok' : WAITING.has(st.status) ? 'warn' : st.status === 'error' ? 'state-failed' : ''}`} data-testid={`channel-${name}-status`}>
              {t(`channels.status.${st.status}` as 'channels.status.off')}
              {who ? ` · ${who}` : ''}
            </span>
          )
        )}
      </div>
      {(st?.detail || st?.words) && (
        <div className="muted small" data-testid={`channel-${name}-detail`}>
          {channelSentence(lang, st.words, st.detail ?? '')}
        </div>
      )}
      {retryAt !== undefined && (
        <div className="muted small" data-testid={`channel-${name}-retry`}>
          {retryPhrase(lang, retryAt, now)}
        </div>
      )}
      {st?.notices && (
        <div className="small" data-testid={`channel-${name}-notices`}>
          {st.notices.to === null ? t('channels.noticesNone', { app: title }) : t(st.notices.by === 'owner' ? 'channels.noticesOwner' : 'channels.noticesSet', { to: st.notices.to })}
        </div>
      )}
      <div className="muted small">{t(`channels.${name}.setup` as 'channels.telegram.setup')}</div>
      {[...keys].sort((a, b) => rank(a) - rank(b)).map((k) => (
        <SchemaField key={k.key} info={k} onSave={async (v) => {
          await save(k.key, v);
          setTimeout(status.reload, 300);
        }} />
      ))}
      <div className="row gap" style={{ marginTop: 8 }}>
        <button className="btn small" data-testid={`channel-${name}-test`} disabled={result === 'running'} onClick={() => void test()}>
          {result === 'running' ? t('channels.testing') : t('channels.test')}
        </button>
        <button className="btn small" onClick={status.reload}>
          {t('channels.refresh')}
        </button>
      </div>
      {result && result !== 'running' && (
        <div className={`test-result ${result.ok ? 'ok' : 'bad'}`} data-testid={`channel-${name}-result`}>
          {result.ok
            ? t('channels.testOk', { who: result.bot?.username ? `@${result.bot.username}` : `${result.nickname ?? ''} (${result.selfId ?? ''})`, ms: result.latencyMs ?? 0 })
            : result.error?.words
              ? channelSentence(lang, result.error.words, `${result.error.code}: ${result.error.message}`)
              : (lang === 'zh' && proxyInWords(result.error?.message ?? '')) || `${result.error?.code}: ${result.error?.message}`}
        </div>
      )}
    </section>
  );
}
