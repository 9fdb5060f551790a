/** Public surface of the Document tier (T-3): the warm documents. Ranking over every tier is in `recall/`. */
export { DocStore, eventDocument, readDocumentFile } from './doc-store.js';
export { DOC_MIGRATIONS } from './doc-migrations.js';
export type { DocStoreOptions } from './doc-store.js';
export type { MemoryDocument, NewDocument } from './memory-document.js';
export { MAX_DOC_CHARS, turnIdOf } from './memory-document.js';
export { asksQuestion } from './asks-question.js';
export { safeDays, type DayKeyRange, type SaidDaysResolver } from './turn-days.js';
