import type { ImportOptions, SetAsideStore, TransferService } from '../spec/index.js';
import { TransferError } from '../spec/index.js';

/** Why forget's tombstones are not in effect in this run, or undefined when they are. */
export type TombstonesLost = () => { setAside?: SetAsideStore } | undefined;

/**
 * `host.transfer` as the daemon provides it: an import (apply or start) is refused with
 * TRANSFER_TOMBSTONES_LOST while forget's tombstones are not in effect — memory-control.db was
 * found corrupt and set aside at this start and not every tombstone could be read back from the
 * old file (decision 0280), or it did not open. An older export imported then would bring back
 * what the person had forgotten. The person may go ahead with `withoutTombstones` (`waiter import --without-tombstones`).
 * Everything else is the service unchanged.
 */
export function guardImports(transfer: TransferService, lost: TombstonesLost): TransferService {
  const check = (opts: ImportOptions | undefined) => {
    const why = lost();
    if (!why || opts?.withoutTombstones === true) return;
    const s = why.setAside?.salvaged;
    const lostAtMost = s?.tombstonesLostAtMost;
    const missing = typeof lostAtMost === 'number' ? `up to ${lostAtMost}` : 'an unknown number';
    const where = why.setAside
      ? `memory-control.db was found corrupt at this start and set aside as ${why.setAside.file}; ${s ? `${s.tombstones} records of what you had forgotten were read back from it, but ${missing} could not be` : 'the record of what you had forgotten is not in effect'}`
      : 'the memory-control store did not open, so the record of what you had forgotten is not in effect';
    throw new TransferError(
      'TRANSFER_TOMBSTONES_LOST',
      `import refused: ${where}; an export made before a forget would bring the forgotten back. Import anyway with --without-tombstones (WebUI: withoutTombstones), then forget those things again; or stop the daemon and restore memory-control.db from a backup first`,
      { setAside: why.setAside?.file, ...(s ? { salvaged: s.tombstones, lostAtMost: lostAtMost ?? null } : {}) },
    );
  };
  return new Proxy(transfer, {
    get(target, prop) {
      if (prop === 'applyImport') {
        return (id: string, opts: ImportOptions, onProgress?: Parameters<TransferService['applyImport']>[2]) => {
          check(opts);
          return target.applyImport(id, opts, onProgress);
        };
      }
      if (prop === 'startImport') {
        return (id: string, opts: ImportOptions) => {
          check(opts);
          return target.startImport(id, opts);
        };
      }
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
