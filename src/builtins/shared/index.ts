/** Small helpers shared by the built-in plugins (HTTP JSON routes, tool argument schemas). */
export { jsonOk, jsonError, readJsonBody, readRawBody, safeHandler, statusForCode } from './http-json.js';
export { toolParameters, parseArgs } from './tool-schema.js';
export { readJsonFile } from './read-json-file.js';
export { childEnv } from './child-env.js';
export { Backoff, sleep } from './backoff.js';
export { gatherAbout, forgetAvailable, type AboutPerson, type AboutMemory, type AboutConversation } from './about-person.js';
export { confirmedForget, describePlan, type ConfirmedForget } from './confirmed-forget.js';
export { TAG_CONVENTION, TAG_SUMMARY, AUTO_INJECT_TAGS, autoInjectTagsIn, isAutoInjected, toolTags, personSays } from './auto-inject-tags.js';
export { personTimeZone } from './person-time-zone.js';
export { sendableFile } from './sendable-file.js';
export { isOpenAiPath, openAiErrorJson, openAiErrorType, snakeCode, type OpenAiErrorBody, type OpenAiErrorType } from './openai-error-body.js';
export { platformUserId, platformUserList } from './platform-user-id.js';
export { ownerPlatformIds, noticeTarget, type NoticeTarget } from './owner-chat.js';
export { CHANNEL_WORD_CODES, channelWords, wordsOf, testFailure, type ChannelWords, type ChannelWordCode } from './channel-words.js';
