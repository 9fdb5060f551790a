/**
 * File-system helpers shared by every subsystem (a leaf: imports nothing of ours). The one
 * implementation of atomic writes of user data (CONVENTIONS: write temp + fsync + rename).
 */
export { writeFileAtomic, writeJsonAtomic, writeFileAtomicSync, fsyncPaths, fsyncPathsSync, syncDir } from './atomic-file.js';
export type { AtomicWriteOptions, AtomicJsonOptions, AtomicData } from './atomic-file.js';
export { redactPaths } from './redact-paths.js';
export { reserveUniquePath } from './unique-path.js';
export { removeStaleTempFiles } from './stale-temp-files.js';
export { scrubbedSqlite } from './sqlite-scrub.js';
export { privateSqliteFile, setAsideSqlite } from './private-file.js';
export { SqlitePageReader, decodeRecord, readVarint } from './sqlite-page-reader.js';
export type { BtreeWalk, SqliteValue } from './sqlite-page-reader.js';
export { SalvageSource, layoutRoots } from './sqlite-salvage-source.js';
export type { TableWalk } from './sqlite-salvage-source.js';
export { copyReadableRows, salvageRowsInto } from './sqlite-salvage-copy.js';
export type { RowCopyHooks, RowSalvageOptions, RowSalvageReport, SalvageMigrate, SalvageRowCounts, SalvagedRow } from './sqlite-salvage-copy.js';
export { openSalvaging } from './sqlite-salvage-open.js';
export type { SalvagedAside, SalvagingOpenOptions } from './sqlite-salvage-open.js';
