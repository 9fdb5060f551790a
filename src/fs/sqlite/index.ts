/**
 * SQLite files as user data (decisions 0250, 0280, 0310): a page reader for damaged files, the
 * salvage of readable rows into a new file, the open that salvages, and scrubbing freed bytes.
 * Apart from `fs/index.ts` because it needs better-sqlite3, which the plugin runner cannot bundle.
 */
export { compactSqlite, scrubbedSqlite, secureDeleteOn, truncateWal } from './sqlite-scrub.js';
export type { CompactOutcome } from './sqlite-scrub.js';
export { SqlitePageReader, decodeRecord, readVarint } from './sqlite-page-reader.js';
export type { BtreeWalk, SqliteValue } from './sqlite-page-reader.js';
export { SalvageSource, layoutRoots } from './sqlite-salvage-source.js';
export type { TableWalk } from './sqlite-salvage-source.js';
export { copyReadableRows, salvageRowsInto } from './sqlite-salvage-copy.js';
export type { RowCopyHooks, RowSalvageOptions, RowSalvageReport, SalvageMigrate, SalvageRowCounts, SalvagedRow } from './sqlite-salvage-copy.js';
export { openSalvaging } from './sqlite-salvage-open.js';
export type { SalvagedAside, SalvagingOpenOptions } from './sqlite-salvage-open.js';
