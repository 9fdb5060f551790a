import { describe, expect, it } from 'vitest';
import { createSequencer } from './sequencer';

describe('createSequencer', () => {
  it('discards a stale answer that arrives after a newer request was made', async () => {
    const seq = createSequencer();
    const applied: string[] = [];
    const request = (value: string, ms: number) => {
      const ticket = seq.next();
      return new Promise<void>((r) => setTimeout(r, ms)).then(() => {
        if (seq.isLatest(ticket)) applied.push(value);
      });
    };
    await Promise.all([request('old', 30), request('new', 5)]);
    expect(applied).toEqual(['new']);
  });
});
