/**
 * File-system helpers shared by every subsystem (a leaf: imports nothing of ours, and no package:
 * the external plugin runner bundles it). The one implementation of atomic writes of user data
 * (CONVENTIONS: write temp + fsync + rename). SQLite files — reading damaged ones back, scrubbing —
 * are `fs/sqlite/index.ts` (they need better-sqlite3).
 */
export { writeFileAtomic, writeJsonAtomic, writeFileAtomicSync, fsyncPaths, fsyncPathsSync, syncDir } from './atomic-file.js';
export type { AtomicWriteOptions, AtomicJsonOptions, AtomicData } from './atomic-file.js';
export { redactPaths } from './redact-paths.js';
export { reserveUniquePath } from './unique-path.js';
export { realPath, within } from './real-path.js';
export { removeStaleTempFiles } from './stale-temp-files.js';
export { privateSqliteFile, setAsideSqlite } from './private-file.js';
