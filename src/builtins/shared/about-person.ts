import type { PluginSDK } from '../../sdk/index.js';
import type { AboutFact, AboutSource, LinkedPerson } from '../../spec/index.js';
import { NotFoundError, OWNER_PERSON_ID, OWNER_SPEAKER_ID } from '../../spec/index.js';

/** A library memory as the about view lists it. */
export interface AboutMemory {
  id: string;
  title: string;
  preview: string;
  tags: string[];
  speaker?: { id: string; name?: string };
  conversation?: string;
  source?: { sessionId: string; seqs: number[] };
  createdAt: string;
  updatedAt: string;
  /** Why it is listed: said by the person, or it names them. */
  why: 'said' | 'mentions';
}

/**
 * A conversation a source turn belongs to, as the chat lists it: its title ("" when it has none)
 * and when it began. Only conversations the chat can still open are named (not a deleted one).
 */
export interface AboutConversation {
  title: string;
  channel: string;
  createdAt: number;
}

/** Everything HomeAgent holds about one person, with sources (issue 12 part 7). */
export interface AboutPerson {
  person: { id?: string; name: string; owner: boolean; ids: string[]; known: boolean };
  /** The names searched for (the person's name; `user` is the owner's graph entity). */
  names: string[];
  facts: AboutFact[];
  memories: AboutMemory[];
  documents: AboutSource[];
  /**
   * The conversations the sources above are turns of, by session id, so a page can say "message 3
   * of “Trip to Lisbon”" instead of `webui:abc#3`. A session missing here is not in the chat.
   */
  conversations: Record<string, AboutConversation>;
  /** Whether the library (memory-manager) answered. */
  library: boolean;
  /**
   * What the daemon offers to correct or forget: `forget` is true when the memory-control service
   * (`/api/v1/memory/forget`) runs; otherwise each item is removed by its tier's own delete.
   */
  capabilities: { forget: boolean; deleteFact: boolean; deleteDocument: boolean; editMemory: boolean };
}

type LibraryItem = Omit<AboutMemory, 'why'> & { impressions?: string[] };

/**
 * Gathers what HomeAgent holds about a person (`waiter memory about [person]`, the WebUI's About
 * page): `ref` is a person of the people registry (id, name, a linked speaker id, `me`), or any
 * other name (then only that name is searched); empty means the owner. Graph facts and turns come
 * from `host.memory`, library memories from the memory-manager's API in process.
 */
export async function gatherAbout(sdk: PluginSDK, ref: string | undefined): Promise<AboutPerson> {
  const memory = sdk.use('host.memory');
  if (!memory) throw new NotFoundError('service', 'host.memory (the memory subsystem is not running)');
  const r = (ref ?? '').trim().slice(0, 200) || 'me';
  const found: LinkedPerson | undefined = sdk.use('host.people')?.find(r);
  const person = found
    ? { id: found.id, name: found.name, owner: found.owner, ids: found.ids, known: true }
    : r === 'me' || r === OWNER_PERSON_ID
      ? { name: 'Owner', owner: true, ids: [], known: false }
      : { name: r, owner: false, ids: [], known: false };
  const names = [...new Set([person.name, ...(person.owner ? [OWNER_SPEAKER_ID] : [])])];
  const speakerIds = person.owner ? [OWNER_SPEAKER_ID, ...person.ids] : person.ids;
  const { facts, documents } = await memory.about({ names, speakerIds });
  const lib = await libraryItems(sdk);
  const low = person.name.toLowerCase();
  const memories: AboutMemory[] = [];
  for (const m of lib ?? []) {
    const said = m.speaker ? speakerIds.includes(m.speaker.id) : person.owner;
    const text = `${m.title}\n${m.preview}\n${(m.impressions ?? []).join(' ')}`.toLowerCase();
    const mentions = person.name !== 'Owner' && text.includes(low);
    if (!said && !mentions) continue;
    const { impressions: _skip, ...rest } = m;
    memories.push({ ...rest, why: said ? 'said' : 'mentions' });
  }
  memories.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return {
    person,
    names,
    facts,
    memories: memories.slice(0, 200),
    documents,
    conversations: await conversationsOf(sdk, [...facts.flatMap((f) => f.sources), ...documents]),
    library: lib !== undefined,
    capabilities: { forget: forgetAvailable(sdk), deleteFact: true, deleteDocument: true, editMemory: lib !== undefined },
  };
}

/**
 * Whether the memory-control service (issue 12 part 2, its `/api/v1/memory/forget` route) runs in
 * this daemon. Looked up by name so this builds without it; the one place that decides.
 */
export function forgetAvailable(sdk: PluginSDK): boolean {
  return (sdk.use as (name: string) => unknown)('host.memory-control') !== undefined;
}

/** The conversations of these sources that the session store still lists (titles, not ids, for the page). */
async function conversationsOf(sdk: PluginSDK, sources: readonly AboutSource[]): Promise<Record<string, AboutConversation>> {
  let store: ReturnType<PluginSDK['sessions']> | undefined;
  try {
    store = sdk.sessions();
  } catch {
    return {};
  }
  if (!store) return {};
  const out: Record<string, AboutConversation> = {};
  for (const id of new Set(sources.map((s) => s.sessionId))) {
    // A source may name something that is no session of the store (an MCP client's save): skipped.
    const info = await store.get(id).catch(() => undefined);
    if (info) out[id] = { title: info.title, channel: info.channel, createdAt: info.createdAt };
  }
  return out;
}

async function libraryItems(sdk: PluginSDK): Promise<LibraryItem[] | undefined> {
  const route = sdk
    .use('host.routes')
    ?.list()
    .find((x) => x.method === 'POST' && x.path === '/api/memory-manager');
  if (!route) return undefined;
  const res = await route.handler(new Request('http://homed.local/api/memory-manager', { method: 'POST', body: JSON.stringify({ op: 'memory.list', args: { limit: 5000 } }), headers: { 'content-type': 'application/json' } }), {});
  const body = (await res.json()) as { ok: boolean; value?: { items?: LibraryItem[] } };
  return body.ok ? (body.value?.items ?? []) : undefined;
}
