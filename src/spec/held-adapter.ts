/**
 * A Lua adapter an import held (decision 0540): an archive's adapter is code, so it is written to
 * `<data>/adapters/imported/<name>.lua`, where nothing runs it, until the person reads it and takes
 * it into use (decision 0620: `waiter providers take`, the WebUI's LLM sources page).
 */
export interface HeldAdapterInfo {
  /** The adapter's name (`<name>.lua`): what a source's `adapter` setting names. */
  name: string;
  bytes: number;
  /** SHA-256 (hex) of the file: taking it names these bytes, so what is taken is what was read. */
  sha256: string;
  /**
   * What taking it would replace: `yours` — `adapters/<name>.lua` here, with other code (kept aside
   * in `adapters/replaced/`); `shipped` — the adapter HomeAgent ships under that name (a file in
   * `adapters/` wins over it). Absent: a new adapter.
   */
  replaces?: 'yours' | 'shipped';
  /** The sources whose `adapter` setting names it: they run it once it is taken (if switched on). */
  usedBy: { name: string; enabled: boolean }[];
}

/** A held adapter with its code, to read before taking it. */
export interface HeldAdapterSource extends HeldAdapterInfo {
  /** The file's text (UTF-8, at most 1 MiB). */
  source: string;
}

/** What taking a held adapter did. */
export interface TakenAdapter {
  name: string;
  replaced?: 'yours' | 'shipped';
  /** Where the code it replaced was kept (relative to the data folder), when it replaced yours. */
  keptAt?: string;
}
