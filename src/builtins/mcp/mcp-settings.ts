import { z } from 'zod';

const name = z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'server name: letters, digits, _ and -, at most 40');

/** A server started as a child process speaking MCP over stdio. */
export const stdioServerSchema = z.object({
  name,
  command: z.string().min(1).max(4096),
  args: z.array(z.string()).max(200).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().max(4096).optional(),
  enabled: z.boolean().optional(),
});

/** A server reached over Streamable HTTP. */
export const httpServerSchema = z.object({
  name,
  url: z.string().url(),
  headers: z.record(z.string(), z.string()).optional(),
  enabled: z.boolean().optional(),
});

export const serverSchema = z.union([stdioServerSchema, httpServerSchema]);
export const serversSchema = z
  .array(serverSchema)
  .max(50)
  .refine((a) => new Set(a.map((s) => s.name)).size === a.length, 'server names must be unique');

export type McpServerConfig = z.infer<typeof serverSchema>;
