/**
 * Request sequence numbers (W-5): every request takes a ticket; only the answer to the newest
 * ticket is applied, so a slow stale response never overwrites a newer one.
 */
export interface Sequencer {
  next(): number;
  isLatest(ticket: number): boolean;
}

export function createSequencer(): Sequencer {
  let n = 0;
  return {
    next: () => ++n,
    isLatest: (t) => t === n,
  };
}
