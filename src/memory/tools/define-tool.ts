import { z } from 'zod';
import type { ToolDef, ToolInvocation, ToolOutput } from '../../spec/index.js';
import { ValidationError } from '../../spec/index.js';

/**
 * Builds a ToolDef from a zod schema: JSON Schema parameters, arguments validated into a typed
 * ValidationError. `extra.audience`: `anyone` for a tool a non-owner turn may call (decision 0360).
 */
export function defineTool<S extends z.ZodType>(name: string, description: string, schema: S, run: (args: z.infer<S>, call: ToolInvocation) => Promise<ToolOutput> | ToolOutput, extra: Pick<ToolDef, 'audience'> = {}): ToolDef {
  return {
    ...extra,
    name,
    description,
    parameters: z.toJSONSchema(schema) as Record<string, unknown>,
    handler: async (args, call) => {
      const r = schema.safeParse(args ?? {});
      if (!r.success) {
        const i = r.error.issues[0];
        throw new ValidationError(`${name}: ${i?.path.join('.') || 'arguments'}: ${i?.message}`, { tool: name, path: i?.path.map(String) });
      }
      return run(r.data, call);
    },
  };
}
