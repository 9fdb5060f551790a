import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ConflictError, HomeAgentError, NotFoundError, OWNER_PERSON_ID, OWNER_SPEAKER_ID, speakerIdProblem, ValidationError } from '../spec/index.js';
import type { Conversation, PeopleDirectory, LinkedPerson, Speaker } from '../spec/index.js';

/** A channel speaker id: `<platform>:<user id>` (the same rule as `core.identity.owner_ids`). */
export const SPEAKER_ID_RE = /^[A-Za-z0-9_-]{1,64}:[^\s]{1,100}$/;
/** A person's id: the owner's, or `p-` and hex. */
export const PERSON_ID_RE = /^(owner|p-[0-9a-f]{8,32})$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Raised when an id comes from `core.identity.owner_ids` and so cannot be unlinked here. */
export class PersonIdFromConfigError extends HomeAgentError {
  constructor(speakerId: string) {
    super('PEOPLE_ID_FROM_CONFIG', `${speakerId} is one of the owner's ids in core.identity.owner_ids; remove it from that setting`, { details: { speakerId } });
  }
}

export interface PeopleRegistryOptions {
  /** The config database (undefined while closed). */
  db: () => Database.Database | undefined;
  /** `core.identity.owner_ids` as it is now. */
  configOwnerIds: () => readonly string[];
  now?: () => number;
}

type Row = { id: string; name: string; created_at: number; updated_at: number };

/**
 * The people registry (decision 0090), in the config database: who is who across channels. The
 * owner (`owner`) always exists; their ids are the linked ones plus `core.identity.owner_ids`.
 * Reads are served from a cache rebuilt after each write (the daemon is the only writer).
 * Writes are privileged: the WebUI, `waiter people` and the local API call them — no tool does.
 */
export class PeopleRegistry implements PeopleDirectory {
  private cache: { byId: Map<string, string>; people: Map<string, Row>; chats: Map<string, string>; chatsOf: Map<string, string[]> } | undefined;
  private readonly now: () => number;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly opts: PeopleRegistryOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Listens to every write (link, unlink, rename): views of people read again (decision 0260). */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  private changed(): void {
    this.cache = undefined;
    for (const fn of [...this.listeners]) {
      try {
        fn();
      } catch {
        // a listener's failure is its own; the write stands
      }
    }
  }

  /** Every person, the owner first, then by name. */
  list(): LinkedPerson[] {
    const c = this.load();
    const out = [...c.people.values()].map((r) => this.person(r.id)!);
    return out.sort((a, b) => (a.owner ? -1 : b.owner ? 1 : a.name.localeCompare(b.name) || a.id.localeCompare(b.id)));
  }

  /** One person by id, or NotFoundError. */
  get(personId: string): LinkedPerson {
    const p = PERSON_ID_RE.test(personId) ? this.person(personId) : undefined;
    if (!p) throw new NotFoundError('person', personId);
    return p;
  }

  /** The person a speaker id is linked to; the owner for `user` and the config's owner ids. */
  personOf(speakerId: string): LinkedPerson | undefined {
    if (speakerId === OWNER_SPEAKER_ID || this.configIds().includes(speakerId)) return this.person(OWNER_PERSON_ID);
    const pid = this.load().byId.get(speakerId);
    return pid ? this.person(pid) : undefined;
  }

  /** Finds a person by id or (case-insensitively) by name; `me`/`owner` is the owner. */
  find(ref: string): LinkedPerson | undefined {
    const r = ref.trim();
    if (!r) return undefined;
    if (r === 'me' || r === OWNER_PERSON_ID) return this.person(OWNER_PERSON_ID);
    if (PERSON_ID_RE.test(r)) return this.person(r);
    if (SPEAKER_ID_RE.test(r)) return this.personOf(r);
    const low = r.toLowerCase();
    return this.list().find((p) => p.name.toLowerCase() === low);
  }

  scopeOf(speaker: Speaker | undefined, conversation: Conversation | undefined): readonly string[] | undefined {
    if (!conversation) return undefined;
    const person = speaker ? this.personOf(speaker.id) : this.person(OWNER_PERSON_ID);
    if (person?.owner && conversation.kind === 'private') return undefined;
    if (conversation.kind === 'group' || !speaker || !person) return [conversation.id];
    const c = this.load();
    const chats = new Set([conversation.id]);
    for (const id of person.ids) for (const conv of c.chatsOf.get(id) ?? []) chats.add(conv);
    return [...chats];
  }

  notePrivateChat(speakerId: string, conversationId: string): boolean {
    const c = this.load();
    if (c.chats.has(conversationId)) return false;
    const db = this.opts.db();
    if (!db) return false;
    const r = db.prepare('INSERT OR IGNORE INTO private_chats (conversation_id, speaker_id, first_seen) VALUES (?, ?, ?)').run(conversationId, speakerId, this.now());
    this.cache = undefined;
    return r.changes > 0;
  }

  /**
   * Links speaker ids into one person: `to` (a person id) if given; else the person one of them
   * is already linked to; else a new person named `name` (default: the first id). Ids linked to a
   * different person conflict (unlink them first) — merging two people is a deliberate act.
   * `newPerson` asks for a new person (the WebUI's "New person"): an id that already belongs to
   * someone conflicts too, rather than the name going onto that person.
   */
  link(ids: readonly string[], opts: { to?: string; name?: string; newPerson?: boolean } = {}): LinkedPerson {
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > 50) throw new ValidationError('give 1 to 50 speaker ids to link', { field: 'ids' });
    for (const id of ids) {
      if (typeof id !== 'string' || !SPEAKER_ID_RE.test(id)) throw new ValidationError(`not a speaker id: ${String(id).slice(0, 120)} (expected <platform>:<user id>, e.g. telegram:42)`, { field: 'ids' });
      // telegram:abc could never be anyone: said, rather than linked and never matched (a new-user walk).
      const problem = speakerIdProblem(id);
      if (problem) throw new ValidationError(problem, { field: 'ids' });
    }
    const name = opts.name === undefined ? undefined : checkName(opts.name);
    const db = this.writable();
    const owners = new Set(ids.map((id) => this.personOf(id)?.id).filter((x): x is string => x !== undefined));
    if (opts.newPerson) {
      if (opts.to !== undefined) throw new ValidationError('a new person is not linked to an existing one (give either newPerson or to)', { field: 'to' });
      const holders = new Map<string, LinkedPerson>();
      for (const id of ids) {
        const p = this.personOf(id);
        if (p) holders.set(id, p);
      }
      if (holders.size) {
        const taken = [...holders.keys()];
        const people = new Map([...holders.values()].map((p) => [p.id, p]));
        const who = [...people.values()].map((p) => (p.id === OWNER_PERSON_ID ? 'you (the owner)' : p.name));
        const one = taken.length === 1;
        throw new ConflictError(`${taken.join(', ')} already belong${one ? 's' : ''} to ${who.join(', ')}; unlink ${one ? 'it' : 'them'} there first, or add ${one ? 'it' : 'them'} to that person`, { people: [...people.keys()], ids: taken });
      }
    }
    let target = opts.to;
    if (target !== undefined) this.get(target);
    else if (owners.size === 1) target = [...owners][0];
    const clash = [...owners].filter((p) => p !== target);
    if (clash.length) {
      throw new ConflictError(`some ids are already linked to ${clash.map((p) => this.person(p)?.name ?? p).join(', ')}; unlink them first`, { people: clash });
    }
    const now = this.now();
    db.transaction(() => {
      if (target === undefined) {
        target = `p-${randomBytes(6).toString('hex')}`;
        db.prepare('INSERT INTO people (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(target, name ?? ids[0], now, now);
      } else if (name !== undefined) {
        db.prepare('UPDATE people SET name = ?, updated_at = ? WHERE id = ?').run(name, now, target);
      }
      for (const id of ids) {
        if (this.configIds().includes(id)) continue;
        db.prepare('INSERT OR IGNORE INTO person_ids (speaker_id, person_id, linked_at) VALUES (?, ?, ?)').run(id, target, now);
      }
      db.prepare('UPDATE people SET updated_at = ? WHERE id = ?').run(now, target);
    })();
    this.changed();
    return this.get(target!);
  }

  /** Unlinks a speaker id; a person (not the owner) left without ids is removed. */
  unlink(speakerId: string): { person: LinkedPerson | undefined; removed: boolean } {
    if (typeof speakerId !== 'string' || !SPEAKER_ID_RE.test(speakerId)) throw new ValidationError('not a speaker id', { field: 'id' });
    if (this.configIds().includes(speakerId)) throw new PersonIdFromConfigError(speakerId);
    const db = this.writable();
    const pid = this.load().byId.get(speakerId);
    if (!pid) throw new NotFoundError('linked speaker id', speakerId);
    let removed = false;
    db.transaction(() => {
      db.prepare('DELETE FROM person_ids WHERE speaker_id = ?').run(speakerId);
      const left = (db.prepare('SELECT COUNT(*) AS n FROM person_ids WHERE person_id = ?').get(pid) as { n: number }).n;
      if (left === 0 && pid !== OWNER_PERSON_ID) {
        db.prepare('DELETE FROM people WHERE id = ?').run(pid);
        removed = true;
      } else db.prepare('UPDATE people SET updated_at = ? WHERE id = ?').run(this.now(), pid);
    })();
    this.changed();
    return { person: removed ? undefined : this.person(pid), removed };
  }

  /** Renames a person. */
  rename(personId: string, name: string): LinkedPerson {
    this.get(personId);
    const n = checkName(name);
    this.writable().prepare('UPDATE people SET name = ?, updated_at = ? WHERE id = ?').run(n, this.now(), personId);
    this.changed();
    return this.get(personId);
  }

  /** Drops the cache (the database was reopened or closed). */
  reset(): void {
    this.cache = undefined;
  }

  private person(id: string): LinkedPerson | undefined {
    const c = this.load();
    const r = c.people.get(id);
    if (!r) return undefined;
    const owner = id === OWNER_PERSON_ID;
    const linked = [...c.byId].filter(([, p]) => p === id).map(([s]) => s);
    const configIds = owner ? [...this.configIds()] : [];
    const p: LinkedPerson = { id, name: r.name, owner, ids: [...new Set([...linked, ...configIds])].sort(), createdAt: r.created_at, updatedAt: r.updated_at };
    if (owner && configIds.length) p.configIds = configIds.sort();
    return p;
  }

  private configIds(): readonly string[] {
    try {
      return this.opts.configOwnerIds();
    } catch {
      return [];
    }
  }

  private writable(): Database.Database {
    const db = this.opts.db();
    if (!db) throw new HomeAgentError('CONFIG_CLOSED', 'the config database is not open');
    return db;
  }

  private load(): NonNullable<PeopleRegistry['cache']> {
    if (this.cache) return this.cache;
    const db = this.opts.db();
    const c = { byId: new Map<string, string>(), people: new Map<string, Row>(), chats: new Map<string, string>(), chatsOf: new Map<string, string[]>() };
    if (!db) return c;
    for (const r of db.prepare('SELECT id, name, created_at, updated_at FROM people').all() as Row[]) c.people.set(r.id, r);
    for (const r of db.prepare('SELECT speaker_id, person_id FROM person_ids').all() as { speaker_id: string; person_id: string }[]) c.byId.set(r.speaker_id, r.person_id);
    for (const r of db.prepare('SELECT conversation_id, speaker_id FROM private_chats').all() as { conversation_id: string; speaker_id: string }[]) {
      c.chats.set(r.conversation_id, r.speaker_id);
      c.chatsOf.set(r.speaker_id, [...(c.chatsOf.get(r.speaker_id) ?? []), r.conversation_id]);
    }
    this.cache = c;
    return c;
  }
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim() || name.length > 100 || CONTROL.test(name)) throw new ValidationError('a name is 1 to 100 characters without control characters', { field: 'name' });
  return name.trim();
}
