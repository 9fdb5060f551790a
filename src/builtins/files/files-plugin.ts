import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { definePlugin } from '../../sdk/index.js';
import type { ConfigKeyDef, PluginSDK } from '../../sdk/index.js';
import { localStampWithOffset } from '../../spec/index.js';
import { jsonOk, parseArgs, personTimeZone, safeHandler, toolParameters } from '../shared/index.js';
import { PathGuard } from './path-guard.js';
import { ChangeJournal } from './change-journal.js';
import { filesTools, type FilesLimits } from './files-tools.js';

const settings: Record<string, ConfigKeyDef> = {
  roots: { default: ['files'], description: 'Folders the files_* tools may touch (relative entries are inside the data folder)', schema: z.array(z.string().min(1)).min(1).max(32), privileged: true },
  max_read_bytes: { default: 1024 * 1024, description: 'Largest slice files_read returns / files_search scans', schema: z.number().int().min(1024).max(64 * 1024 * 1024) },
  max_write_bytes: { default: 1024 * 1024, description: 'Largest file files_write produces', schema: z.number().int().min(1).max(64 * 1024 * 1024) },
  max_list_entries: { default: 500, description: 'Most entries files_list returns', schema: z.number().int().min(1).max(100_000) },
  max_search_files: { default: 5000, description: 'Most files files_search visits', schema: z.number().int().min(1).max(1_000_000) },
  max_journal_file_bytes: { default: 32 * 1024 * 1024, description: 'Files larger than this are not overwritten or deleted (their undo copy would be too big)', schema: z.number().int().min(1).max(4 * 1024 * 1024 * 1024) },
  journal_max_entries: { default: 1000, description: 'Changes kept by the change tracker (oldest dropped with their before-images)', schema: z.number().int().min(1).max(1_000_000) },
};

function rootsOf(sdk: PluginSDK): string[] {
  return sdk.settings().get<string[]>('roots').map((r) => (isAbsolute(r) ? r : join(sdk.homeDir, r)));
}

/**
 * `files` (P-7, C-13): read/write/list/search/delete inside configured roots; every write and
 * delete is journaled with its before-image. Provides the `changes` service and the routes
 * `GET /api/v1/changes` and `POST /api/v1/changes/:id/undo`.
 */
export const filesPlugin = definePlugin({
  name: 'files',
  description: 'Files inside allowed folders, with a change tracker that can undo every write and delete',
  settings,
  async start(sdk) {
    const s = sdk.settings();
    const first = new PathGuard(rootsOf(sdk));
    await first.open();
    // The current guard; a roots change swaps it, and tools wait for the swap to finish.
    let guard: Promise<PathGuard> = Promise.resolve(first);
    const journal = new ChangeJournal(sdk.dataDir, {
      maxEntries: s.get<number>('journal_max_entries'),
      onCorrupt: (m) => sdk.log.warn('change journal index was corrupt; kept aside', { movedTo: m }),
    });
    await journal.open();
    const limits = (): FilesLimits => ({
      maxReadBytes: s.get<number>('max_read_bytes'),
      maxWriteBytes: s.get<number>('max_write_bytes'),
      maxListEntries: s.get<number>('max_list_entries'),
      maxSearchFiles: s.get<number>('max_search_files'),
      maxJournalFileBytes: s.get<number>('max_journal_file_bytes'),
    });
    // Tools ask for the current guard on every call, so a roots change applies at once.
    for (const t of filesTools(() => guard, journal, limits)) sdk.registerTool(t);
    sdk.onDispose(
      s.onChange((key) => {
        if (key !== 'roots') return;
        const previous = guard;
        const next = new PathGuard(rootsOf(sdk));
        guard = next.open().then(
          () => {
            sdk.log.info('files roots changed', { roots: next.list() });
            return next;
          },
          (e) => {
            sdk.log.error('cannot open new roots; keeping the old ones', { error: String(e) });
            return previous;
          },
        );
      }),
    );
    sdk.provide('changes', journal);
    const undoArgs = z.object({ id: z.string().min(1).max(100) });
    sdk.registerTool({
      name: 'files_changes',
      description: 'List recent file changes made by tools (newest first), with ids that files_undo takes.',
      parameters: toolParameters(z.object({ limit: z.number().int().min(1).max(500).optional() })),
      handler: (raw) => {
        const list = journal.list({ limit: typeof raw.limit === 'number' ? raw.limit : 20 });
        // The person's wall clock, with the offset (decision 0270).
        const zone = personTimeZone(sdk);
        return list.map((c) => `${c.id}: ${c.op} ${c.path} at ${localStampWithOffset(c.at, zone)}${c.undone ? ' (undone)' : ''}`).join('\n') || 'no changes';
      },
    });
    sdk.registerTool({
      name: 'files_undo',
      description: 'Undo one file change by id: restores the previous bytes exactly, or removes a file the change created.',
      parameters: toolParameters(undoArgs),
      async handler(raw) {
        const c = await journal.undo(parseArgs(undoArgs, raw, 'files_undo').id);
        return `undone ${c.op} of ${c.path}`;
      },
    });
    sdk.registerRoute({
      method: 'GET',
      path: '/api/v1/changes',
      handler: safeHandler((req: Request) => {
        const limit = Number(new URL(req.url).searchParams.get('limit') ?? 0);
        return jsonOk(journal.list({ limit: Number.isFinite(limit) ? limit : 0 }));
      }),
    });
    sdk.registerRoute({
      method: 'POST',
      path: '/api/v1/changes/:id/undo',
      handler: safeHandler(async (_req: Request, params: Record<string, string>) => jsonOk(await journal.undo(params.id))),
    });
  },
});
