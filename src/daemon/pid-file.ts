import { readFileSync, unlinkSync } from 'node:fs';
import { writeFileAtomicSync } from '../fs/index.js';

/** Reads the pid in a pid file, or undefined when absent/garbled. */
export function readPid(file: string): number | undefined {
  try {
    const n = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** True when a process with this pid exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Writes the pid atomically (temp + fsync + rename). */
export function writePid(file: string, pid = process.pid): void {
  writeFileAtomicSync(file, `${pid}\n`);
}

/** Removes the pid file if it still holds `pid`. */
export function removePid(file: string, pid = process.pid): void {
  try {
    if (readPid(file) === pid) unlinkSync(file);
  } catch {}
}
