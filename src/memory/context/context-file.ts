import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { writeFileAtomic as writeAtomic } from '../../fs/index.js';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { ContextEvent } from '../../spec/memory.js';

const toolOutputSchema = z.object({ tool: z.string(), text: z.string(), noMemory: z.boolean().optional() });

/** Lenient schema of one stored event (unknown fields dropped). */
export const contextEventSchema = z.object({
  id: z.string().min(1),
  timestamp: z.number().finite(),
  kind: z.enum(['user', 'agent', 'cold_storage', 'system']),
  source: z.string(),
  channel: z.string(),
  sessionId: z.string(),
  input: z.string(),
  response: z.string(),
  toolOutputs: z.array(toolOutputSchema).optional(),
  refs: z.array(z.string()).optional(),
  // Who said it and where: kept across restarts so a group's timeline scope survives them.
  speaker: z.looseObject({ id: z.string(), name: z.string().optional(), platform: z.string().optional(), userId: z.string().optional() }).optional().catch(undefined),
  conversation: z.object({ kind: z.enum(['private', 'group']), id: z.string(), platform: z.string().optional(), title: z.string().optional() }).optional().catch(undefined),
});

/**
 * Per session: the highest turn number of the kernel's turns (`<session>#<n>`) appended to the
 * window, and whether that turn's reply was appended too. Saved with the events in the same atomic
 * write: at start, turns from the mark on are replayed from the session log (crash recovery).
 */
export interface TurnMark {
  turn: number;
  done: boolean;
}

const markSchema = z.object({ turn: z.number().int().nonnegative(), done: z.boolean() });

// Version 1 files written before the marks existed lack `turns` (and `savedAt`): still valid.
const fileSchema = z.object({
  version: z.literal(1),
  events: z.array(z.unknown()),
  turns: z.record(z.string(), markSchema).optional(),
  savedAt: z.number().optional(),
});

/** What reading context.json found. */
export type ContextFileRead =
  | { status: 'missing' }
  | { status: 'ok'; events: ContextEvent[]; dropped: number; turns?: Record<string, TurnMark>; savedAt?: number }
  | { status: 'corrupt'; reason: string };

/** Reads and validates `context.json`; invalid single events are dropped and counted. */
export async function readContextFile(path: string): Promise<ContextFileRead> {
  if (!existsSync(path)) return { status: 'missing' };
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (e) {
    return { status: 'corrupt', reason: (e as Error).message };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    return { status: 'corrupt', reason: `invalid JSON (${(e as Error).message})` };
  }
  const file = fileSchema.safeParse(json);
  if (!file.success) return { status: 'corrupt', reason: 'not a context file (expected {version: 1, events: [...]})' };
  const events: ContextEvent[] = [];
  let dropped = 0;
  for (const e of file.data.events) {
    const r = contextEventSchema.safeParse(e);
    if (r.success) events.push(r.data);
    else dropped++;
  }
  return { status: 'ok', events, dropped, turns: file.data.turns, savedAt: file.data.savedAt };
}

/** Atomic write (the shared writer: temp + fsync + rename + folder fsync), creating the folder. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeAtomic(path, data, { mode: 0o600 });
}

/** Serialises events (and the turn marks) as the context file. */
export function serialiseContext(events: readonly ContextEvent[], turns?: ReadonlyMap<string, TurnMark>, savedAt?: number): string {
  return JSON.stringify({ version: 1, events, ...(turns ? { turns: Object.fromEntries(turns), savedAt } : {}) });
}
