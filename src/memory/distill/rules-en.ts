import type { FactRule } from './fact-rule.js';
import { age, wrap } from './fact-rule.js';

const EN_STOP = /[,.!?;:\n()"]|\s(?:and|but|because|since|though|although|so|which|who|where|when|while|with|for|now|too|every|each|last|this|these|since|anymore|again)\s/i;
/** Objects that are pronouns, articles or question words: not facts (I like it, I love you). */
const NOT_OBJECT = new Set(['it', 'that', 'this', 'them', 'you', 'him', 'her', 'those', 'these', 'to', 'a', 'an', 'the', 'here', 'there', 'what', 'where', 'who', 'which', 'whom', 'whose', 'me', 'myself', 'us', 'home', 'everything', 'nothing', 'something', 'anything']);

const NEGATION = /^(?:not|no|never|none|nobody|neither|nor)$/i;

/** Cleans an English capture into an object (at most `maxWords` words), or undefined. */
export function enObject(rest: string, maxWords = 6): string | undefined {
  const s = (` ${rest} `.split(EN_STOP)[0] ?? '').trim();
  const words = s.split(/\s+/).filter(Boolean);
  // "I live in Potsdam now.": a closing adverb is no part of the object.
  if (words.length > 1 && /^(?:now|anymore|again|too|currently)$/i.test(words.at(-1) ?? '')) words.pop();
  if (!words.length || words.length > maxWords) return undefined;
  if (words.length === 1 && NOT_OBJECT.has(words[0].toLowerCase())) return undefined;
  // "My name is not important", "my job is no fun": a negation is not a value.
  if (NEGATION.test(words[0])) return undefined;
  if (words.some((w) => /^(?:what|where|who|which)$/i.test(w))) return undefined;
  return words.join(' ');
}

/** Capitalised words after "I'm" that are not names (nationalities, states, fillers). */
const NOT_NAMES = new Set(
  'american british english chinese japanese korean german french italian spanish canadian australian indian mexican brazilian russian dutch swiss swedish irish scottish welsh african asian european christian catholic muslim jewish buddhist hindu ok okay fine good great sure sorry here back home done ready new single married vegan vegetarian'.split(' '),
);

/** A person's name: consecutive capitalized words, or the first word if written in lower case. */
function enName(rest: string): string | undefined {
  const words = rest.trim().split(/\s+/);
  const first = words[0]?.replace(/[,.!?;:]+$/, '');
  if (!first || !/^[\p{L}][\p{L}'-]*$/u.test(first) || NOT_OBJECT.has(first.toLowerCase()) || NEGATION.test(first)) return undefined;
  const out = [first];
  if (/^\p{Lu}/u.test(first) && !/[,.!?;:]$/.test(words[0])) {
    for (const w of words.slice(1, 3)) {
      const clean = w.replace(/[,.!?;:]+$/, '');
      if (!/^\p{Lu}[\p{L}'-]*$/u.test(clean)) break;
      out.push(clean);
      if (clean !== w) break;
    }
  }
  return out.join(' ');
}

/** "I'm Anna": a capitalised name-like word, not a nationality or a state of mind. */
function capitalisedName(rest: string): string | undefined {
  const n = enName(rest);
  if (!n || !/^\p{Lu}/u.test(n) || NOT_NAMES.has(n.split(' ')[0].toLowerCase())) return undefined;
  return n;
}

/**
 * Objects of "I live in …" that are a state of mind or a temporary stay, not a home: "live in fear of
 * the dog", "live in the moment", "living in a hotel". A state is read as a phrase: after an article or
 * a modifier (the moment, a bubble, constant fear) it is always one; a bare word only when it is not
 * written as a place — "live in fear", "live in hope that …", "live in peace" are states, "Hope,
 * Arkansas" and "Comfort, Texas" are towns (capitalised, or followed by a state).
 */
const STATES = 'fear|dread|terror|anxiety|hope|hopes|peace|denial|harmony|sin|poverty|luxury|misery|shame|hiding|limbo|exile|squalor|comfort|dream|dreams|bubble|fantasy|moment|present|past|future|now|shadow|shadows|ignorance|bliss|silence|solitude|isolation|pain|debt|sorrow|regret|grief|guilt|doubt|darkness|reality|style|head|world|imagination';
const STAY = /^(?:(?:the|a|an|my|our|this|that|some)\s+)?(?:\w+\s+)?(?:hotel|hostel|motel|airbnb|guesthouse|guest house|b&b|tent)s?\b/i;
const STATE_PHRASE = new RegExp(`^(?:the|a|an|constant|perpetual|total|complete|blissful|quiet|relative|my own|my|our|their|his|her)\\s+(?:${STATES})\\b`, 'i');
const STATE_WORD = new RegExp(`^(?:${STATES})\\b`, 'i');
/** What follows a state in its phrase: live in fear of …, live in hope that …, live in peace with …. */
const STATE_GOES_ON = /^\s*(?:of|that|for|from|about|with|because|until|and|as)\b/i;
/** A US state (or its code) or a country after a comma: a town ("Hope, AR", "comfort, texas"). */
const AFTER_TOWN = /^\s*,\s*(?:alabama|alaska|arizona|arkansas|california|colorado|connecticut|delaware|florida|georgia|hawaii|idaho|illinois|indiana|iowa|kansas|kentucky|louisiana|maine|maryland|massachusetts|michigan|minnesota|mississippi|missouri|montana|nebraska|nevada|new hampshire|new jersey|new mexico|new york|north carolina|north dakota|ohio|oklahoma|oregon|pennsylvania|rhode island|south carolina|south dakota|tennessee|texas|utah|vermont|virginia|washington|west virginia|wisconsin|wyoming|british columbia|ontario|alberta|canada|england|australia)\b/i;
const AFTER_TOWN_CODE = /^\s*,\s*[A-Z]{2}\b/;

/** The object of a home ("Berlin"), or undefined for a state of mind or a stay. */
function home(rest: string): string[] | undefined {
  const o = enObject(rest);
  if (!o || STAY.test(o) || STATE_PHRASE.test(o)) return undefined;
  const word = STATE_WORD.exec(o);
  if (word) {
    const next = rest.trimStart().slice(word[0].length);
    const town = AFTER_TOWN.test(next) || AFTER_TOWN_CODE.test(next) || (/^\p{Lu}/u.test(o) && !STATE_GOES_ON.test(next));
    if (!town) return undefined;
  }
  return [o];
}

/** "nurse at the hospital" → "nurse": the workplace is a separate fact. */
function jobOnly(rest: string): string {
  return rest.split(/\s(?:at|in|for|on|with)\s/i)[0] ?? rest;
}

/** Cuts an activity at its circumstances: "tennis every weekend", "the guitar in a band". */
function activity(rest: string): string | undefined {
  const s = rest.split(/\s(?:in|at|on|with|every|each|most|twice|once|on|after|before|at)\b|[,.!?;]/i)[0] ?? '';
  return enObject(s.replace(/^the\s+/i, ''), 4);
}

/** Job titles that make "I'm a/an X" an occupation (the last word of X must be one). */
const OCCUPATIONS = new Set(
  'engineer developer programmer nurse doctor physician surgeon dentist teacher professor lecturer tutor lawyer attorney architect designer accountant student chef cook baker barista writer author journalist editor manager scientist researcher translator interpreter pharmacist consultant analyst artist musician photographer electrician plumber mechanic pilot farmer librarian firefighter officer therapist psychologist waiter waitress driver carpenter economist veterinarian vet paramedic midwife entrepreneur founder intern cashier salesperson clerk banker broker dancer actor actress singer coach trainer nanny cleaner gardener technician scientist biologist chemist physicist mathematician statistician administrator secretary receptionist'.split(
    ' ',
  ),
);

function occupation(np: string | undefined): string | undefined {
  if (!np) return undefined;
  const last = np.split(/\s+/).pop()?.toLowerCase() ?? '';
  return OCCUPATIONS.has(last) ? np : undefined;
}

const EN_LIST = /\s*,\s*|\s+and\s+|\s+or\s+/i;

function enList(rest: string): string[] | undefined {
  const s = ` ${rest}`.split(/[.!?;:\n()"]|\s(?:but|because|since|though|although|so|which|who|where|when|while|now|too|every|each)\s/i)[0] ?? '';
  const parts = s.split(EN_LIST);
  // "I don't like coffee anymore, I switched to tea": the list ends where a new clause (its own subject) starts.
  const end = parts.findIndex((x) => /^\s*(?:i|i'm|i've|we|he|she|they|you|it|my|our|now|then)\b/i.test(x));
  const items = (end < 0 ? parts : parts.slice(0, end))
    .map((x) => x.replace(/^\s*to\s+/i, '').trim())
    .map((x) => enObject(x, 5))
    .filter((x): x is string => x !== undefined);
  return items.length ? items : undefined;
}

/**
 * English rules (T-9). Each pattern has the speaker ("I", "my", "we") as its subject, so other
 * people's facts (My sister likes horses, He lives in Rome) never match.
 */
export const EN_RULES: FactRule[] = [
  { predicate: 'name', re: /\b(?:my name is|my name's|i am called|i'm called|call me|everyone calls me|people call me)\s+(.+)/i, object: (m) => wrap(enName(m[1])) },
  { predicate: 'name', re: /^(?:(?:hi|hello|hey)(?:\s+there)?[,!]?\s+)?(?:i'm|i am|this is)\s+(\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)?)\s*(?:[,.!]|\s+and\b|\s+here\b|$)/iu, object: (m) => wrap(capitalisedName(m[1])) },
  // A home that ended: "I no longer live in Berlin", "I don't live in Berlin anymore", "I moved out of
  // Berlin" — it ends that home (supersede.ts). A bare "I don't live in Berlin" is a negation, no fact.
  { predicate: 'no_longer_lives_in', re: /\b(?:i|we)(?:'m|'re|\s+am|\s+are)?\s+no longer\s+(?:live|living|reside|residing|based)\s+(?:in|at)\s+(.+)/i, object: (m) => home(m[1]) },
  { predicate: 'no_longer_lives_in', re: /\b(?:i|we)(?:\s+(?:don't|do not|am not|are not)|'m not|'re not)\s+(?:live|living|reside|residing|based)\s+(?:in|at)\s+(.+?)\s+any\s*more\b/i, object: (m) => home(m[1]) },
  { predicate: 'no_longer_lives_in', re: /\b(?:i|we)\s+(?:just\s+|recently\s+|finally\s+)?moved\s+(?:out of|away from)\s+(.+)/i, object: (m) => home(m[1]) },
  { predicate: 'lives_in', re: /\b(?:i|we)(?:'m| am|'ve| have|'re| are)?\s+(?:currently\s+|now\s+|still\s+)?(?:live|living|lived|reside|residing|based|settled)\s+(?:in|at)\s+(.+)/i, object: (m) => home(m[1]) },
  { predicate: 'lives_in', re: /\bmy home is in\s+(.+)/i, object: (m) => home(m[1]) },
  { predicate: 'lives_in', re: /\b(?:i|we)\s+(?:just\s+|recently\s+|finally\s+)?moved\s+to\s+(.+)/i, object: (m) => home(m[1]), move: true },
  { predicate: 'lives_in', re: /\b(?:i|we)\s+(?:just\s+|recently\s+|finally\s+)?moved\s+from\s+\S.{0,40}?\s+to\s+(.+)/i, object: (m) => home(m[1]), move: true },
  { predicate: 'from', re: /\bi(?:'m| am| come)\s+(?:originally\s+)?from\s+(.+)/i, object: (m) => wrap(enObject(m[1])) },
  { predicate: 'from', re: /\bi\s+(?:grew up|was born|was raised)\s+in\s+(.+)/i, object: (m) => wrap(enObject(m[1])) },
  { predicate: 'dislikes', re: /\bi\s+(?:really\s+)?(?:don't|do not)\s+(?:like|enjoy)\s+(.+)/i, object: (m) => enList(m[1]) },
  // A change of taste: "I no longer like X", "I stopped liking X" (the earlier liking ends, see supersede.ts).
  { predicate: 'dislikes', re: /\bi\s+no longer\s+(?:like|love|enjoy)\s+(.+)/i, object: (m) => enList(m[1]) },
  { predicate: 'dislikes', re: /\bi\s+(?:stopped|quit)\s+(?:liking|loving|enjoying)\s+(.+)/i, object: (m) => enList(m[1]) },
  { predicate: 'dislikes', re: /\bi\s+(?:really\s+)?(?:hate|dislike|detest|can't stand|cannot stand)\s+(.+)/i, object: (m) => enList(m[1]) },
  { predicate: 'likes', re: /\bi\s+(?:really\s+|also\s+|just\s+|totally\s+|absolutely\s+)*(?:like|love|enjoy|adore)\s+(?:playing\s+)?(.+)/i, object: (m) => enList(m[1]) },
  { predicate: 'likes', re: /\bmy favou?rite\s+\w+\s+is\s+(.+)/i, object: (m) => wrap(enObject(m[1])) },
  { predicate: 'likes', re: /^([\p{L}][\p{L}\s'-]{0,30}?)\s+is\s+my\s+favou?rite\b/iu, object: (m) => wrap(enObject(m[1], 4)) },
  { predicate: 'likes', re: /\bmy\s+(?:hobby|hobbies|passion)\s+(?:is|are)\s+(.+)/i, object: (m) => enList(m[1]) },
  { predicate: 'likes', re: /\bi(?:'m| am)\s+(?:really\s+|so\s+|very\s+)?(?:into|passionate about|a (?:big |huge )?fan of)\s+(.+)/i, object: (m) => enList(m[1]) },
  // A habit is a liking: I play tennis every weekend, I go running every morning.
  { predicate: 'likes', re: /\bi\s+(?:often\s+|usually\s+|regularly\s+)?play\s+(.+)/i, object: (m) => wrap(activity(m[1])) },
  { predicate: 'likes', re: /\bi\s+(?:often\s+|usually\s+)?go\s+(\w+ing)\b/i, object: (m) => wrap(enObject(m[1], 1)) },
  { predicate: 'age', re: /\bi(?:'m| am)\s+(\d{1,3})\s*(?:years?|yrs?)(?:\s+old)?\b/i, object: (m) => age(m[1]) },
  { predicate: 'age', re: /\bi(?:'m| am)\s+(\d{1,3})\s*(?:[,.!?;]|\s+and\b|$)/i, object: (m) => age(m[1]) },
  { predicate: 'age', re: /\bmy age is\s+(\d{1,3})\b/i, object: (m) => age(m[1]) },
  { predicate: 'age', re: /\bi\s+(?:just\s+)?turned\s+(\d{1,3})\b/i, object: (m) => age(m[1]) },
  { predicate: 'works_as', re: /\bi\s+(?:also\s+)?work\s+as\s+(?:an?\s+)?(.+)/i, object: (m) => wrap(enObject(jobOnly(m[1]), 4)) },
  { predicate: 'works_as', re: /\bmy\s+(?:job|profession|occupation)\s+is\s+(?:an?\s+)?(.+)/i, object: (m) => wrap(enObject(jobOnly(m[1]), 4)) },
  { predicate: 'works_as', re: /\bi(?:'m| am)\s+an?\s+([\w\s-]{2,40}?)\s+by\s+(?:profession|trade)\b/i, object: (m) => wrap(enObject(m[1], 4)) },
  { predicate: 'works_as', re: /\bi(?:'m| am)\s+an?\s+(.+)/i, object: (m) => wrap(occupation(enObject(jobOnly(m[1]), 4))) },
  // A job that ended: "I no longer work at Acme", "I don't work for Acme anymore", "I quit my job at Acme".
  { predicate: 'no_longer_works_at', re: /\bi\s+no longer\s+work\s+(?:at|for)\s+(.+)/i, object: (m) => wrap(enObject(m[1], 5)) },
  { predicate: 'no_longer_works_at', re: /\bi\s+(?:don't|do not)\s+work\s+(?:at|for)\s+(.+?)\s+any\s*more\b/i, object: (m) => wrap(enObject(m[1], 5)) },
  { predicate: 'no_longer_works_at', re: /\bi\s+(?:just\s+|recently\s+|finally\s+)?(?:quit|left)\s+my\s+(?:job|position|work)\s+(?:at|with)\s+(.+)/i, object: (m) => wrap(enObject(m[1], 5)) },
  // Work one no longer does: "I'm no longer a nurse", "I'm not a nurse anymore", "I stopped working as a nurse".
  { predicate: 'no_longer_works_as', re: /\bi(?:'m| am)\s+no longer\s+an?\s+(.+)/i, object: (m) => wrap(occupation(enObject(jobOnly(m[1]), 4))) },
  { predicate: 'no_longer_works_as', re: /\bi(?:'m| am)\s+not\s+an?\s+(.+?)\s+any\s*more\b/i, object: (m) => wrap(occupation(enObject(jobOnly(m[1]), 4))) },
  { predicate: 'no_longer_works_as', re: /\bi\s+no longer\s+work\s+as\s+(?:an?\s+)?(.+)/i, object: (m) => wrap(enObject(jobOnly(m[1]), 4)) },
  { predicate: 'no_longer_works_as', re: /\bi\s+(?:don't|do not)\s+work\s+as\s+(?:an?\s+)?(.+?)\s+any\s*more\b/i, object: (m) => wrap(enObject(jobOnly(m[1]), 4)) },
  { predicate: 'no_longer_works_as', re: /\bi\s+(?:just\s+|recently\s+|finally\s+)?(?:stopped|quit)\s+(?:working\s+as|being)\s+(?:an?\s+)?(.+)/i, object: (m) => wrap(occupation(enObject(jobOnly(m[1]), 4))) },
  { predicate: 'works_at', re: /\bi\s+work\s+(?:at|for)\s+(.+)/i, object: (m) => wrap(enObject(m[1], 5)) },
  { predicate: 'works_at', re: /\bi(?:'ve| have)\s+(?:been\s+working|worked)\s+(?:at|for)\s+(.+)/i, object: (m) => wrap(enObject(m[1], 5)) },
  { predicate: 'works_at', re: /\bi(?:'m| am)\s+an?\s+[\w\s-]{2,30}?\s+at\s+(.+)/i, object: (m) => wrap(enObject(m[1], 5)) },
];
