import type { MemoryDocument } from '../documents/index.js';
import { speakerIdOf } from './speaker-focus.js';

/**
 * A named person's own questions are not statements about them (decision 0170). The speaker prior
 * (decision 0060) multiplies every turn of the people a query is about by 1 + `speakerBoost`; but
 * "How was your trip?" asked by Melanie tells about the other speaker, not Melanie — the rule
 * distiller yields no fact from a question for the same reason (decision 0011). This withholds the
 * share `discount` (0…1) of that bonus from the focus people's turns that ask (`asks`: the archive's
 * `asks` column, `asksQuestion` elsewhere), in place on `scores` (after the speaker prior ran): the
 * turn ends up at ×(1 + speakerBoost · (1 − discount)). A turn that states something and asks back
 * counts as asking too, which is why the discount is a share and not the whole bonus.
 */
export function discountOwnQuestions(
  scores: Map<string, number>,
  focus: ReadonlySet<string>,
  speakerBoost: number,
  discount: number,
  docOf: (id: string) => MemoryDocument | undefined,
  asks: (d: MemoryDocument) => boolean,
): void {
  if (!(speakerBoost > 0) || !(discount > 0) || focus.size === 0) return;
  const m = (1 + speakerBoost * (1 - Math.min(1, discount))) / (1 + speakerBoost);
  for (const [id, s] of scores) {
    const d = docOf(id);
    const who = d && speakerIdOf(d);
    if (d && who !== undefined && focus.has(who) && asks(d)) scores.set(id, s * m);
  }
}
