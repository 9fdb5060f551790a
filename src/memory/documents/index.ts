/** Public surface of the Document tier (T-3). */
export { DocStore } from './doc-store.js';
export type { DocStoreOptions } from './doc-store.js';
export type { MemoryDocument, NewDocument, DocHit, DocWindowHit } from './memory-document.js';
export { MAX_DOC_CHARS } from './memory-document.js';
export { reappendAsColdStorage } from './cold-storage.js';
export { relatedDocumentsSlot } from './related-documents-slot.js';
export { rankDocuments, DEFAULT_RANK_OPTIONS } from './doc-ranker.js';
export type { RankOptions } from './doc-ranker.js';
