/**
 * A fact's predicate as it reads after "you" in English: the graph writes facts in the third person
 * ("user lives_in Berlin"), and the About-me page says the owner as "you" ("you live in Berlin").
 * Only a first word known to be such a verb changes: a predicate is whatever the model named it,
 * and a plural noun ("pets", "kids", "hobbies") must stay as it is.
 */
const VERBS: Record<string, string> = {
  is: 'are',
  was: 'were',
  has: 'have',
  does: 'do',
  goes: 'go',
  lives: 'live',
  likes: 'like',
  loves: 'love',
  dislikes: 'dislike',
  hates: 'hate',
  enjoys: 'enjoy',
  prefers: 'prefer',
  wants: 'want',
  needs: 'need',
  works: 'work',
  owns: 'own',
  plays: 'play',
  speaks: 'speak',
  studies: 'study',
  knows: 'know',
  uses: 'use',
  drives: 'drive',
  eats: 'eat',
  drinks: 'drink',
  visits: 'visit',
  watches: 'watch',
  reads: 'read',
  teaches: 'teach',
  attends: 'attend',
  wears: 'wear',
  collects: 'collect',
  keeps: 'keep',
  believes: 'believe',
  supports: 'support',
  practices: 'practice',
  practises: 'practise',
  writes: 'write',
  runs: 'run',
  grows: 'grow',
  cooks: 'cook',
  follows: 'follow',
  misses: 'miss',
  focuses: 'focus',
};

export function secondPerson(predicate: string): string {
  const [first, ...rest] = predicate.split(' ');
  const verb = VERBS[first.toLowerCase()];
  return verb ? [verb, ...rest].join(' ') : predicate;
}
