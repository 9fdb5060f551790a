/**
 * Export and import of the whole memory (K-5): one archive (zip, optionally age-encrypted) with a
 * manifest of versions, counts and SHA-256 per file; an import verified whole, merged into copies
 * and swapped in atomically. The daemon provides it as `host.transfer`.
 */
export { TransferRuntime, type TransferServiceOptions } from './transfer-service.js';
export { emptyLedger, type TransferHost } from './transfer-host.js';
export { EXPORT_FORMAT, EXPORT_FORMAT_VERSION, MANIFEST_ENTRY, parseManifest, type Manifest } from './manifest.js';
export { recoverInterruptedImport, planSwap, writeJournal, journalSettings, commitJournal, committedImport, applyOp, journalPath, type SwapOp, type JournalSetting, type JournalTombstone, type RecoverImportOptions } from './swap-journal.js';
