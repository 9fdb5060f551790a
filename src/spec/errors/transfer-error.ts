import { HomeAgentError } from './homeagent-error.js';

/**
 * Codes of export / import failures (K-5). Every refusal of an archive is raised before anything
 * in the data folder changes; `TRANSFER_APPLY_FAILED` means an import failed while applying and
 * everything it had applied was rolled back.
 */
export const TRANSFER_ERROR_CODES = [
  /** Not a HomeAgent export (no manifest, another `format`, not a zip or age file). */
  'TRANSFER_NOT_AN_EXPORT',
  /** The file ends early (a cut download, a partial copy). */
  'TRANSFER_TRUNCATED',
  /** A file's bytes do not match the manifest's SHA-256 / size, or a zip entry is damaged. */
  'TRANSFER_CORRUPT',
  /** The archive is encrypted and no passphrase was given. */
  'TRANSFER_PASSPHRASE_REQUIRED',
  /** The passphrase does not open the archive. */
  'TRANSFER_WRONG_PASSPHRASE',
  /** Made by a newer HomeAgent with a format version this one does not know. */
  'TRANSFER_FORMAT_TOO_NEW',
  /** An older format version this HomeAgent no longer reads. */
  'TRANSFER_FORMAT_UNSUPPORTED',
  /** A database inside has a schema newer than this HomeAgent's. */
  'TRANSFER_SCHEMA_TOO_NEW',
  /** An entry name leaves its folder (`../`, absolute, drive letters) or is not one the format has. */
  'TRANSFER_PATH_ESCAPE',
  /** A link or device entry. */
  'TRANSFER_SYMLINK',
  /** The archive, an entry or the unpacked total is over its limit, or an entry is a zip bomb. */
  'TRANSFER_TOO_LARGE',
  /** Too many entries. */
  'TRANSFER_TOO_MANY_FILES',
  /** Not enough free disk for the unpacked archive. */
  'TRANSFER_NO_SPACE',
  /** Another export or import is running. */
  'TRANSFER_BUSY',
  /** Unknown or finished job id. */
  'TRANSFER_NOT_FOUND',
  /** Bad options (mode, parts). */
  'TRANSFER_BAD_REQUEST',
  /** Applying failed; everything applied was rolled back. */
  'TRANSFER_APPLY_FAILED',
  /**
   * Forget's tombstones are not in effect in this run (memory-control.db was found corrupt and set
   * aside, or could not open): an import could bring forgotten turns back. `withoutTombstones` overrides.
   */
  'TRANSFER_TOMBSTONES_LOST',
] as const;
export type TransferErrorCode = (typeof TRANSFER_ERROR_CODES)[number];

/** HTTP status of each code (the WebUI routes answer with it). */
export const TRANSFER_HTTP_STATUS: Record<TransferErrorCode, number> = {
  TRANSFER_NOT_AN_EXPORT: 400,
  TRANSFER_TRUNCATED: 400,
  TRANSFER_CORRUPT: 400,
  TRANSFER_PASSPHRASE_REQUIRED: 400,
  TRANSFER_WRONG_PASSPHRASE: 400,
  TRANSFER_FORMAT_TOO_NEW: 400,
  TRANSFER_FORMAT_UNSUPPORTED: 400,
  TRANSFER_SCHEMA_TOO_NEW: 400,
  TRANSFER_PATH_ESCAPE: 400,
  TRANSFER_SYMLINK: 400,
  TRANSFER_TOO_LARGE: 413,
  TRANSFER_TOO_MANY_FILES: 413,
  TRANSFER_NO_SPACE: 507,
  TRANSFER_BUSY: 409,
  TRANSFER_NOT_FOUND: 404,
  TRANSFER_BAD_REQUEST: 400,
  TRANSFER_APPLY_FAILED: 500,
  TRANSFER_TOMBSTONES_LOST: 409,
};

/** An export or import failure with one of {@link TRANSFER_ERROR_CODES}. */
export class TransferError extends HomeAgentError {
  declare readonly code: TransferErrorCode;
  constructor(code: TransferErrorCode, message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(code, message, { details, cause, retryable: code === 'TRANSFER_BUSY' });
  }
}
