import { realpath } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import { HomeAgentError, ValidationError } from '../../sdk/index.js';

/** Files of the data folder that hold secrets (the API token, API keys in the config, the databases). */
const SECRET = /^(auth-token|config\.db.*|.*\.db(-wal|-shm|-journal)?|homed\.(pid|sock)|.*\.key|.*\.pem)$/i;

/**
 * The file a chat channel may send for a path payload (decision 0360): only what lives in the media
 * folder (`<home>/media`, where received attachments and saved media are kept), after resolving
 * symlinks — never the data folder's secrets (`auth-token`, `config.db` …), which are refused by
 * name first so the error says why. Returns the real path.
 */
export async function sendableFile(homeDir: string, path: string, platform: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new ValidationError(`no such file: ${basename(path)}`);
  }
  if (SECRET.test(basename(real)) || SECRET.test(basename(path))) {
    throw new HomeAgentError('FORBIDDEN', `${basename(path)} holds secrets of HomeAgent and is never sent to ${platform}`);
  }
  let media: string;
  try {
    media = await realpath(join(homeDir, 'media'));
  } catch {
    throw new ValidationError(`only files in the media folder can be sent to ${platform}, and it is empty`);
  }
  if (!real.startsWith(media + sep)) throw new ValidationError(`only files in the media folder (received and saved attachments) can be sent to ${platform}`);
  return real;
}
