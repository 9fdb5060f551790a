import { randomUUID } from 'node:crypto';
import type { ForgetLedger } from '../spec/index.js';

/** A ref's session: `webui:3f2a#7/sub` → `webui:3f2a` (session ids hold no `#`). */
export function sessionOfRef(ref: string): string | undefined {
  const i = ref.indexOf('#');
  return i > 0 ? ref.slice(0, i) : undefined;
}

/**
 * How refs of the archive become refs here during one import: sessions imported under a new id
 * (keep-both) rename their turn ids (`S#n` → `S'#n`), rows given a new id keep a map from the old,
 * and forgotten refs (a tombstone here, or one the archive carries) map to nothing.
 */
export class RefMap {
  readonly sessions = new Map<string, string>();
  readonly ids = new Map<string, string>();

  constructor(
    private readonly ledger: ForgetLedger,
    private readonly archived: ReadonlySet<string>,
    /** True when the archive's own turn-id tombstones name this turn of the archive (decision 0350). */
    private readonly archivedTurn: (ref: string) => boolean = () => false,
  ) {}

  /** Imports session `from` as `to` (and every turn of it). */
  renameSession(from: string, to: string): void {
    this.sessions.set(from, to);
  }

  session(id: string): string {
    return this.sessions.get(id) ?? id;
  }

  /** A new id for a row of theirs (remembered, so refs to it follow). */
  newId(old: string): string {
    let id = this.ids.get(old);
    if (!id) this.ids.set(old, (id = randomUUID()));
    return id;
  }

  /**
   * True when the archive's ref was forgotten: a tombstone in the archive, or one here — except
   * for a renamed session, whose turns are not ours and so cannot have been forgotten here.
   */
  forgotten(ref: string, byArchiveTurnIds = true): boolean {
    if (this.archived.has(ref) || (byArchiveTurnIds && this.archivedTurn(ref))) return true;
    const s = sessionOfRef(ref);
    if (s !== undefined && this.sessions.has(s)) return false;
    return this.ledger.isForgotten(ref);
  }

  /** The ref as it is imported, or undefined when it was forgotten. */
  ref(ref: string): string | undefined {
    if (this.forgotten(ref)) return undefined;
    const id = this.ids.get(ref);
    if (id) return id;
    const s = sessionOfRef(ref);
    const to = s !== undefined ? this.sessions.get(s) : undefined;
    return to ? `${to}${ref.slice(s!.length)}` : ref;
  }
}
