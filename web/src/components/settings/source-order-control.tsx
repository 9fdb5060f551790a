import { api } from '../../api/client';
import { useApp } from '../../app-context';
import { useLang } from '../../i18n';
import { sourceLabel } from '../../lib/builtin-texts';
import { useRequest } from '../../lib/use-request';
import { useConfigEpoch } from '../../lib/use-config-epoch';
import { ListControl } from './list-control';
import type { ProviderStatus } from '../../../../src/spec/index.js';

/**
 * `core.llm.order` in Settings → General: the LLM sources by the names the Providers page gives
 * them ("DeepSeek", "通义千问（阿里云百炼 DashScope）", a person's own source by its label), each
 * with its id beside it — the id is what `waiter providers order` and the setting take. A name
 * typed in the field is taken as the source it names. Until the sources are read (or when the
 * daemon has no provider service) the ids alone, as before.
 */
export function SourceOrderControl({ value, label, save }: { value: readonly string[]; label: string; save: (next: string[]) => Promise<boolean> }) {
  const app = useApp();
  const lang = useLang();
  const changed = useConfigEpoch('core.llm.');
  const sources = useRequest(() => api<{ providers: ProviderStatus[] }>('/api/v1/providers').then((j) => j.providers).catch(() => [] as ProviderStatus[]), [app.epoch, changed]);
  const byId = new Map((sources.data ?? []).map((p) => [p.name, p]));
  const nameOf = (id: string) => {
    const p = byId.get(id);
    return p ? sourceLabel(lang === 'zh' ? 'zh' : 'en', p) : id;
  };
  const itemOf = (typed: string) => {
    const low = typed.toLowerCase();
    const p = (sources.data ?? []).find((x) => x.name.toLowerCase() === low || nameOf(x.name).toLowerCase() === low || (x.label ?? '').toLowerCase() === low);
    return p?.name ?? typed;
  };
  return <ListControl value={value} label={label} split="words" onSave={save} nameOf={nameOf} itemOf={itemOf} />;
}
