import { z } from 'zod';
import { CLI_COMMANDS, CLI_PROTOCOL_VERSION, ProtocolError, type CliRequest } from '../../spec/index.js';

/** Schema of a request frame; `args` is checked per command by the handler. */
export const cliRequestSchema = z.object({
  v: z.number().int(),
  id: z.string().min(1).max(64),
  cmd: z.enum(CLI_COMMANDS),
  args: z.record(z.string(), z.unknown()).optional(),
});

/** Parses and validates one frame; throws ProtocolError with the reason. */
export function parseRequest(line: string): CliRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new ProtocolError('frame is not valid JSON');
  }
  const id = typeof (raw as { id?: unknown })?.id === 'string' ? (raw as { id: string }).id : undefined;
  const r = cliRequestSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const path = issue.path.join('.') || 'frame';
    const msg = issue.code === 'invalid_value' && path === 'cmd' ? `unknown command "${String((raw as { cmd?: unknown }).cmd)}"` : `${path}: ${issue.message}`;
    throw new ProtocolError(msg, { id });
  }
  if (r.data.v !== CLI_PROTOCOL_VERSION) throw new ProtocolError(`protocol version ${r.data.v} is not supported (daemon speaks ${CLI_PROTOCOL_VERSION}); update waiter or homed`, { id });
  return r.data;
}

const attachmentSchema = z.array(z.object({ name: z.string().min(1).max(300), mimeType: z.string().min(1).max(200), data: z.string().min(1) }).strict()).max(10);

/** The `attachments` argument of `send` (files as base64), or undefined; malformed → ProtocolError. */
export function attachments(args: Record<string, unknown> | undefined): z.infer<typeof attachmentSchema> | undefined {
  if (args?.attachments === undefined) return undefined;
  const r = attachmentSchema.safeParse(args.attachments);
  if (!r.success) throw new ProtocolError(`argument "attachments": ${r.error.issues[0]?.path.join('.') ?? ''} ${r.error.issues[0]?.message ?? 'invalid'}`.trim());
  return r.data;
}

/** Reads a string argument or throws a clear error. */
export function str(args: Record<string, unknown> | undefined, key: string, required = true): string {
  const v = args?.[key];
  if (typeof v === 'string' && (v.length > 0 || !required)) return v;
  if (!required && v === undefined) return '';
  throw new ProtocolError(`argument "${key}" must be a non-empty string`);
}
