/** Public surface of the cold archive (T-3): archived documents on disk, searched without an in-memory index. */
export { ColdArchive } from './cold-archive.js';
export type { ArchivedRow, ColdArchiveOptions, RankRow, RowLevel } from './cold-archive.js';
export { ARCHIVE_MIGRATIONS } from './archive-migrations.js';
