import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChangeKind, NewMemoryChange, TransferJobView, TransferPart, TransferReport, TransferService } from '../spec/index.js';
import { writeFileAtomic } from '../fs/index.js';
import type { TransferHost } from './transfer-host.js';
import type { TransferJob } from './transfer-jobs.js';

/** The imports done here, newest first (`<home>/imports.json`, at most 50): what `TransferService.history` shows. */
export async function importHistory(home: string): Promise<{ id: string; at: number; file?: string; manifest: NonNullable<TransferJobView['manifest']>; report: TransferReport }[]> {
  try {
    const v = JSON.parse(readFileSync(join(home, 'imports.json'), 'utf8')) as unknown;
    return Array.isArray(v) ? (v as Awaited<ReturnType<TransferService['history']>>) : [];
  } catch {
    return [];
  }
}

/**
 * Appends the import to `<home>/imports.json` (what `history()` shows) and to the memory's change
 * history (K-3: every change is recorded with who made it — here `import`), one entry per part it
 * changed. Such an entry has no per-item state, so it is not undone there (memory control refuses).
 */
export async function recordImport(host: TransferHost, job: TransferJob, now: number): Promise<void> {
  const file = join(host.home, 'imports.json');
  const list = await importHistory(host.home);
  const report = job.view.report!;
  list.unshift({ id: job.view.id, at: now, manifest: job.view.manifest!, report });
  await writeFileAtomic(file, JSON.stringify(list.slice(0, 50), null, 1));
  try {
    for (const c of importChanges(job.view.id, report)) host.memory.control.record(c);
  } catch (e) {
    host.log.warn(`import ${job.view.id} could not be recorded in the memory history: ${(e as Error).message}`);
  }
}

/** The memory-history kind of what an imported part holds. */
const PART_KIND: Partial<Record<TransferPart, ChangeKind>> = {
  graph: 'relation',
  library: 'memory',
  sessions: 'document',
  context: 'document',
  documents: 'document',
  archive: 'document',
  knowledge: 'knowledge',
};

/** One history entry per memory part an import added to or replaced in. */
export function importChanges(jobId: string, report: TransferReport): NewMemoryChange[] {
  const out: NewMemoryChange[] = [];
  for (const [part, plan] of Object.entries(report.parts) as [TransferPart, TransferReport['parts'][TransferPart]][]) {
    const kind = PART_KIND[part];
    if (!kind || !plan) continue;
    const changed = plan.added + plan.overwritten;
    if (changed === 0) continue;
    out.push({
      actor: 'import',
      tool: 'import',
      kind,
      target: `import:${jobId}:${part}`,
      subjects: [part],
      op: 'import',
      summary: `imported ${part}: ${plan.added} added, ${plan.overwritten} replaced (mode ${report.mode})`,
    });
  }
  return out;
}
