import { readFileSync } from 'node:fs';
import { kernelTurnNumber } from '../sessions/index.js';
import { logLines } from './session-log-lines.js';
import type { StagedExport } from './staged-export.js';

/**
 * The highest turn number of each session log in the archive (decision 0380): while an import is
 * applied, turns handed out for these sessions start above them — the log swapped in may hold them.
 */
export function archiveTurnFloors(staged: StagedExport): Map<string, number> {
  const floors = new Map<string, number>();
  for (const s of staged.sessions()) {
    let max = 0;
    try {
      for (const l of logLines(readFileSync(s.file, 'utf8'))) {
        const n = l.type === 'event' && typeof l.turnId === 'string' ? kernelTurnNumber(s.id, l.turnId) : undefined;
        if (n !== undefined && n > max) max = n;
      }
    } catch {
      continue; // an unreadable log is the merge's to report
    }
    if (max > 0) floors.set(s.id, max);
  }
  return floors;
}
