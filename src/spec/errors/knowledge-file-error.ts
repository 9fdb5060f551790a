import { HomeAgentError } from './homeagent-error.js';
import { MAX_KNOWLEDGE_FILE_BYTES } from '../memory.js';

/**
 * Why a file could not become a knowledge entry (`waiter knowledge put`, the WebUI's "Add from
 * file…"). Nothing is stored when one is raised.
 */
export const KNOWLEDGE_FILE_ERROR_CODES = [
  /** Not a kind the knowledge base reads (an image, an archive, binary data). */
  'KNOWLEDGE_FILE_UNSUPPORTED',
  /** No text in it: an empty file, or a PDF without a text layer (a scan). */
  'KNOWLEDGE_FILE_EMPTY',
  /** The file, or the text read from it, is over its limit. */
  'KNOWLEDGE_FILE_TOO_LARGE',
  /** A PDF that cannot be read (damaged, password-protected, too slow), or an HTML page the reader could not read in time or in its memory. */
  'KNOWLEDGE_FILE_UNREADABLE',
] as const;
export type KnowledgeFileErrorCode = (typeof KNOWLEDGE_FILE_ERROR_CODES)[number];

/** HTTP status of each code (the WebUI's upload route answers with it). */
export const KNOWLEDGE_FILE_HTTP_STATUS: Record<KnowledgeFileErrorCode, number> = {
  KNOWLEDGE_FILE_UNSUPPORTED: 415,
  KNOWLEDGE_FILE_EMPTY: 422,
  KNOWLEDGE_FILE_TOO_LARGE: 413,
  KNOWLEDGE_FILE_UNREADABLE: 422,
};

/** A file refused by the knowledge base's reader; `details.file` names it as it was given. */
export class KnowledgeFileError extends HomeAgentError {
  declare readonly code: KnowledgeFileErrorCode;

  constructor(code: KnowledgeFileErrorCode, message: string, details: Record<string, unknown> & { file: string }, cause?: unknown) {
    super(code, message, { details, cause });
  }

  /**
   * A file over {@link MAX_KNOWLEDGE_FILE_BYTES}: said by the reader and by the WebUI's upload
   * route, which may not know a body's length until it is over (so no size is said).
   */
  static fileTooLarge(file: string): KnowledgeFileError {
    return new KnowledgeFileError('KNOWLEDGE_FILE_TOO_LARGE', `${file} is over ${MAX_KNOWLEDGE_FILE_BYTES / 1_048_576} MB, the most a file added to the knowledge base may be`, { file, limitBytes: MAX_KNOWLEDGE_FILE_BYTES });
  }
}
