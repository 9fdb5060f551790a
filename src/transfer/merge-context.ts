import type { ConfigRegistry } from '../config/index.js';
import type { MemorySystem } from '../memory/index.js';
import type { ForgetLedger, TransferMode, TransferPart, TransferPartPlan } from '../spec/index.js';
import type { RefMap } from './ref-map.js';
import type { StagedExport } from './staged-export.js';

/** A file an import replaces or adds: the merged copy is renamed over the live path. */
export interface SwapFile {
  live: string;
  merged: string;
}

/** Where the live data is. */
export interface LivePaths {
  home: string;
  library: string;
  persona: string;
  /** The person's Lua adapters (`<home>/adapters`). */
  adapters: string;
}

/** A part's plan before anything is counted. */
export const emptyPlan = (): TransferPartPlan => ({ added: 0, same: 0, conflicts: 0, skipped: 0, overwritten: 0, keptBoth: 0, forgotten: 0 });

/**
 * What every part of one import's merge shares (`mergeImport` builds it, each part's merge reads
 * and adds to it): the archive, where the live data and the merged copies are, the mode, what was
 * forgotten (the ledger, the archive's refs mapped through `refs`), and what the merge produces —
 * the files to swap in, the report's plans and notes — in the order the parts run.
 */
export interface MergeContext {
  staged: StagedExport;
  live: LivePaths;
  /** Where the merged copies go, laid out like a data folder. */
  mergedHome: string;
  mode: TransferMode;
  ledger: ForgetLedger;
  memory: MemorySystem;
  config: ConfigRegistry;
  refs: RefMap;
  files: SwapFile[];
  notes: string[];
  plan(part: TransferPart): TransferPartPlan;
  /** True when this text was forgotten here. */
  textForgotten(text: string): boolean;
  /** True when this message with this reply was forgotten here. */
  pairForgotten(message: string, reply: string): boolean;
  /** Counts a turn of the archive left out as forgotten, for the report's words. */
  noteLeftOut(turn: string | undefined, byTextHere?: boolean): void;
}
