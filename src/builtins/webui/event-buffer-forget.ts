import type { ForgetParticipant } from '../../spec/index.js';
import type { SseEvent, SseHub } from './sse-hub.js';

/** The JSON of a string as it appears inside a serialized payload (without its quotes). */
const inJson = (x: string) => JSON.stringify(x).slice(1, -1);

const ID_CHAR = /[A-Za-z0-9_:#-]/;

/**
 * Whether a buffered event belongs to one of the forgotten turns — its id anywhere in the payload
 * as a whole token (`turnId`, a sub-agent's `<turnId>/…`, the turn named in a confirmation's
 * text; `#1` is not `#10`) — or quotes what was said there.
 */
export function eventOfForgotten(ev: SseEvent, turnIds: ReadonlySet<string>, quotes: readonly string[]): boolean {
  const json = JSON.stringify(ev.payload ?? null);
  for (const id of turnIds) {
    const needle = inJson(id);
    for (let at = json.indexOf(needle); at >= 0; at = json.indexOf(needle, at + 1)) {
      const before = json[at - 1];
      const after = json[at + needle.length];
      if ((before === undefined || !ID_CHAR.test(before)) && (after === undefined || !ID_CHAR.test(after))) return true;
    }
  }
  return quotes.some((q) => json.includes(inJson(q)));
}

/**
 * The WebUI's event buffer takes part in forget (decision 0430): it holds the last events for a
 * client that reconnects with `Last-Event-ID`, and a forgotten turn's message and reply are in
 * them. It lists nothing and removes no memory; it drops those events.
 */
export function eventBufferParticipant(hub: Pick<SseHub, 'drop'>): ForgetParticipant {
  return {
    inMemoryOnly: true,
    find: async () => [],
    describe: async () => [],
    remove: async () => ({ removed: 0, texts: [] }),
    scrub: async (texts, turnIds) => {
      const turns = new Set(turnIds);
      return hub.drop((ev) => eventOfForgotten(ev, turns, texts));
    },
  };
}
