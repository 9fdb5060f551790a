/**
 * A fact's predicate as it reads after "you" in English: the graph writes facts in the third person
 * ("user lives_in Berlin"), and the About-me page says the owner as "you" ("you live in Berlin").
 * Only the first word changes; anything it does not know to be a verb in -s stays as it is.
 */
export function secondPerson(predicate: string): string {
  const [first, ...rest] = predicate.split(' ');
  const w = first.toLowerCase();
  const irregular: Record<string, string> = { is: 'are', has: 'have', does: 'do', was: 'were' };
  let out = irregular[w];
  if (!out) {
    if (w.length <= 3 || !w.endsWith('s') || w.endsWith('ss') || w.endsWith('us') || w.endsWith('is')) return predicate;
    if (/[^aeiou]ies$/.test(w)) out = `${w.slice(0, -3)}y`;
    else if (/(ches|shes|sses|xes|zes|oes)$/.test(w)) out = w.slice(0, -2);
    else out = w.slice(0, -1);
  }
  return [out, ...rest].join(' ');
}
