import type { ForgetLedger, ReplacementLedger, Tombstone } from '../spec/index.js';
import type { MemorySystem } from '../memory/index.js';
import type { SessionStore } from '../sessions/index.js';
import type { ConfigRegistry } from '../config/index.js';

/** What export and import need of the running daemon (the daemon wires it; tests start a real daemon). */
export interface TransferHost {
  /** The data folder. */
  home: string;
  /** This HomeAgent's version (written into the manifest). */
  version: string;
  memory: MemorySystem;
  sessions: SessionStore;
  config: ConfigRegistry;
  /** Holds the agent's event loop (no turn runs) until the release is called. */
  holdAgent: () => Promise<() => void>;
  /** The library folder (memory-manager's `libraryPath`, default `<home>/memory`). */
  libraryRoot: () => string;
  /** The persona file (`core.agent.persona_file`, relative to the data folder). */
  personaFile: () => string;
  /** Asks the memory-manager to re-read the library and plan after an import wrote them. */
  reloadLibrary?: () => Promise<void>;
  /**
   * Forget's tombstones (K-2). The one seam between forget and export/import: an import asks it
   * whether a turn was forgotten (and then leaves that turn out of every part), an export carries
   * its list. Absent: nothing is forgotten.
   */
  forget?: () => ForgetLedger | undefined;
  /**
   * Which turns a regenerate or an edit-and-resend replaced (decisions 0550, 0620): an export
   * carries them, an import records those of the turns it brings. Absent: none travel.
   */
  replacements?: () => ReplacementLedger | undefined;
  log: { info(msg: string, data?: Record<string, unknown>): void; warn(msg: string, data?: Record<string, unknown>): void; error(msg: string, data?: Record<string, unknown>): void };
  now?: () => number;
}

/** The ledger to use when forget is not wired: nothing was forgotten, tombstones are kept in memory only. */
export function emptyLedger(): ForgetLedger {
  const extra: Tombstone[] = [];
  return {
    isForgotten: () => false,
    tombstones: () => extra,
    record: (t) => void extra.push(...t),
  };
}

/**
 * Settings that say where this install keeps something, not what it holds: an export leaves them
 * out and an import passes them by. The persona travels as `persona.md` and is written where the
 * importing install keeps its own; the other install's `core.agent.persona_file` would point the
 * agent at a file that is not there (an empty persona) or at another file of the data folder.
 */
export const INSTALL_LOCAL_SETTINGS: ReadonlySet<string> = new Set(['core.agent.persona_file']);
