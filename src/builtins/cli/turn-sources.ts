import type { PluginSDK } from '../../sdk/index.js';
import type { InjectedSource } from '../../spec/index.js';
import { NotFoundError, ValidationError } from '../../spec/index.js';

/** One block put into the model's context in a turn, with the sources of its items. */
export interface TurnInjection {
  /** `recall` (a system-prompt slot) or the plugin that injected it (`memory-manager`). */
  source: string;
  slot?: string;
  title?: string;
  text: string;
  sources: InjectedSource[];
  /** A forget took this block (its text and sources are gone). */
  forgotten?: boolean;
}

/** Events read after a turn's first one while looking for its injections. */
const TURN_SCAN = 400;

/**
 * Why was this recalled (issue 12 part 6): the injection events of a turn, as the session log
 * recorded them. `ref` is a turn id (`<session>#<n>`) or a session id (its last turn).
 */
export async function turnInjections(sdk: PluginSDK, ref: string): Promise<{ turnId: string; injected: TurnInjection[] }> {
  if (!/^[^\s]{1,300}$/.test(ref)) throw new ValidationError('a turn id (<session>#<n>) or a session id', { key: 'turn' });
  const sessions = sdk.sessions();
  const hash = ref.lastIndexOf('#');
  const sessionId = hash > 0 && /^\d+$/.test(ref.slice(hash + 1)) ? ref.slice(0, hash) : ref;
  const info = await sessions.get(sessionId);
  if (!info) throw new NotFoundError('session', sessionId);
  let turnId = sessionId === ref ? undefined : ref;
  if (!turnId) {
    const last = (await sessions.events(sessionId, { beforeSeq: info.lastSeq + 1, limit: 200 })).filter((e) => e.kind === 'user').at(-1);
    if (!last) throw new NotFoundError('turn', `${sessionId} (no turns yet)`);
    turnId = last.turnId;
  }
  const first = sessions.locate ? await sessions.locate(sessionId, turnId) : undefined;
  if (first === undefined) throw new NotFoundError('turn', turnId);
  const events = await sessions.events(sessionId, { afterSeq: first - 1, limit: TURN_SCAN });
  const injected: TurnInjection[] = events
    .filter((e) => e.turnId === turnId && e.kind === 'injection')
    .map((e) => {
      const d = e.data ?? {};
      // A block a forget took: what it held is gone, and so is where it came from.
      if (d.redacted === true) return { source: 'forgotten', forgotten: true, text: '', sources: [] };
      return {
        source: typeof d.source === 'string' ? d.source : 'unknown',
        ...(typeof d.slot === 'string' ? { slot: d.slot } : {}),
        ...(typeof d.title === 'string' ? { title: d.title } : {}),
        text: e.text,
        sources: Array.isArray(d.sources) ? (d.sources as InjectedSource[]) : [],
      };
    });
  return { turnId, injected };
}
