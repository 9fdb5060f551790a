/** Sessions, turns and the raw text log (C-9). */
export { SessionStore, type AppendOptions, type SessionStoreOptions, type SessionTurn, type UnansweredInput } from './session-store.js';
export { kernelTurnNumber } from './session-visibility.js';
export { REDACTED_TEXT } from './session-record.js';
export { forgetInLogBytes, type ForgottenInLog } from './forget-in-log.js';
export { TextLog, type TextLogOptions, type TextLogRecord } from './text-log.js';
export { assertSessionId, assertChannel, sessionFileStem, sessionIdFromFileStem, SESSION_ID_RE, CHANNEL_RE } from './session-id.js';
export type { JsonlLogger } from './jsonl-file.js';
