import { z } from 'zod';
import type { SocialAPI, ToolDef } from '../../spec/index.js';
import { systemTimeZone } from '../../spec/index.js';
import { defineTool } from './define-tool.js';
import { currentFirst, toolFact } from './tool-fact.js';

const name = z.string().min(1).max(200);

/**
 * Social tools (T-7): person_query, person_set_trait, person_relate. `timeZone`: the person's
 * (decision 0270), for the days a fact held; default the system's.
 */
export function socialTools(social: SocialAPI, timeZone: () => string = systemTimeZone): ToolDef[] {
  return [
    defineTool('person_query', 'Look up a person: traits, relations and the people around them.', z.object({ name, depth: z.number().int().min(1).max(3).optional() }), async (a) => {
      const person = await social.getPerson(a.name);
      const relations = await social.getRelations(a.name);
      const network = await social.getNetwork(a.name, a.depth ?? 1);
      return {
        found: person !== undefined,
        person: person ?? null,
        relations: currentFirst(relations).slice(0, 50).map((r) => toolFact(r, timeZone())),
        network: network.people,
      };
    }),
    defineTool(
      'person_set_trait',
      'Set a trait of a person (e.g. birthday, mood, preference); an empty value removes the trait. Creates the person when missing.',
      z.object({ name, trait: z.string().min(1).max(64), value: z.string().max(500) }),
      async (a) => {
        await social.setTrait(a.name, a.trait, a.value);
        return { ok: true, person: a.name, trait: a.trait };
      },
    ),
    defineTool('person_relate', 'Record a relation between two people, e.g. (Ann, sister_of, Ben).', z.object({ a: name, relation: z.string().min(1).max(100), b: name }), async (x) => {
      await social.relate(x.a, x.relation, x.b);
      return { ok: true };
    }),
  ];
}
