import type { ForgetParticipant } from '../../spec/index.js';
import type { SseEvent, SseHub } from './sse-hub.js';

/** The JSON of a string as it appears inside a serialized payload (without its quotes). */
const inJson = (x: string) => JSON.stringify(x).slice(1, -1);

/**
 * Whether a buffered event belongs to one of the forgotten turns (its `turnId`, or a sub-agent's
 * `<turnId>/…`, anywhere in the payload) or quotes what was said there.
 */
export function eventOfForgotten(ev: SseEvent, turnIds: ReadonlySet<string>, quotes: readonly string[]): boolean {
  const json = JSON.stringify(ev.payload ?? null);
  for (const id of turnIds) {
    const key = `"turnId":"${inJson(id)}`;
    let at = json.indexOf(key);
    while (at >= 0) {
      const next = json[at + key.length];
      if (next === '"' || next === '/') return true;
      at = json.indexOf(key, at + 1);
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
