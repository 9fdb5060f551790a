/** The QQ channel through OneBot v11 (NapCat, Lagrange): forward and reverse WebSocket, the `qq` output channel. */
export { createQqPlugin, qqPlugin, type QqStatus } from './qq-plugin.js';
export { parseMessage, parseCqString, toSegments } from './segments.js';
export { OneBotActionError, OneBotUnreachableError } from './onebot-link.js';
export { OneBotTokenRejectedError } from './onebot-token-rejected-error.js';
