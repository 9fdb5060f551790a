import type { SalvageRows, StoreSalvage } from './services.js';

/** What people call the rows of each table a salvage reports (decision 0310); others go by their table name. */
const TABLE_WORDS: Record<string, string> = {
  config: 'settings',
  people: 'people',
  person_ids: 'linked ids',
  private_chats: 'private chats',
  entities: 'entities',
  relations: 'facts',
  relation_sources: 'fact sources',
  merge_decisions: 'merge decisions',
  tombstones: 'forget tombstones',
  exclusions: 'excluded turns',
  history: 'history entries',
  history_subjects: 'history subjects',
};

/**
 * The rows a salvage kept, grouped as people know them (every `config_<plugin>` table's rows are
 * settings too), in the order first met; groups with nothing read are left out.
 */
export function salvageGroups(s: Pick<StoreSalvage, 'tables'>): { what: string; counts: SalvageRows }[] {
  const groups = new Map<string, SalvageRows>();
  for (const [table, c] of Object.entries(s.tables ?? {})) {
    const what = TABLE_WORDS[table.startsWith('config_') ? 'config' : table] ?? table;
    const g = groups.get(what) ?? { read: 0, kept: 0, skipped: 0 };
    groups.set(what, { read: g.read + c.read, kept: g.kept + c.kept, skipped: g.skipped + c.skipped });
  }
  return [...groups].filter(([, c]) => c.read > 0).map(([what, counts]) => ({ what, counts }));
}

/**
 * What a salvage read back, in words for logs, the healthcheck and errors (English; the WebUI has
 * its own in both languages). Never names a value — config's dropped settings by key only.
 */
export function salvageInWords(s: StoreSalvage): string {
  const unread = s.unreadablePages ? `; ${s.unreadablePages} damaged ${s.unreadablePages === 1 ? 'page' : 'pages'} could not be read` : '';
  // Decision 0310: a stale page pointing into free space; its deleted rows are not read back.
  const free = s.freePagesSkipped ? `; ${s.freePagesSkipped} free ${s.freePagesSkipped === 1 ? 'page' : 'pages'} a stale page pointed to skipped (deleted rows stay deleted)` : '';
  const list = s.freelistDamaged ? '; the free-page list could not be read whole' : '';
  const pages = `${unread}${free}${list}`;
  if (s.tombstones !== undefined) {
    const lost = s.tombstonesLostAtMost === 0 ? 'none lost' : s.tombstonesLostAtMost === null || s.tombstonesLostAtMost === undefined ? 'an unknown number could not be read' : `up to ${s.tombstonesLostAtMost} could not be read`;
    return `${s.tombstones} forget tombstones (${lost}), ${s.exclusions ?? 0} excluded turns, ${s.changes ?? 0} history entries${pages}`;
  }
  const groups = salvageGroups(s);
  const what = groups.length ? ` (${groups.map((g) => `${g.counts.kept} ${g.what}`).join(', ')})` : '';
  const skipped = s.skipped ? `; ${s.skipped} left out: invalid, or belonging to a row that was lost` : '';
  const dropped = s.droppedKeys?.length ? `; settings dropped as they no longer fit their key: ${s.droppedKeys.join(', ')}` : '';
  return `${s.kept} of ${s.read} rows${what}${skipped}${dropped}${unread}${s.unreadablePages ? ': what they held is lost' : ''}${free}${list}`;
}
