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

const fileSchema = z.object({ version: z.literal(1), events: z.array(z.unknown()) });

/** What reading context.json found. */
export type ContextFileRead =
  | { status: 'missing' }
  | { status: 'ok'; events: ContextEvent[]; dropped: number }
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
  return { status: 'ok', events, dropped };
}

/** Atomic write (the shared writer: temp + fsync + rename + folder fsync), creating the folder. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeAtomic(path, data, { mode: 0o600 });
}

/** Serialises events as the context file. */
export function serialiseContext(events: readonly ContextEvent[]): string {
  return JSON.stringify({ version: 1, events });
}
