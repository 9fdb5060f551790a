import { z } from 'zod';
import { ValidationError } from '../../spec/index.js';

/** JSON Schema of a zod object, for `ToolDef.parameters`. */
export function toolParameters(schema: z.ZodType): Record<string, unknown> {
  const js = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  delete js.$schema;
  return js;
}

/** Parses tool arguments with a zod schema; a mismatch → ValidationError naming the field. */
export function parseArgs<T>(schema: z.ZodType<T>, args: unknown, tool: string): T {
  const r = schema.safeParse(args ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const path = issue?.path.join('.') ?? '';
    throw new ValidationError(`${tool}: invalid argument${path ? ` "${path}"` : ''}: ${issue?.message ?? 'invalid'}`, { tool, path });
  }
  return r.data;
}
