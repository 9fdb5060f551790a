import { dict, type DictKey } from '../i18n-dict';
import { factPhrase, phraseLine } from './fact-phrase';

type T = (k: DictKey, v?: Record<string, string | number>) => string;

/** What of a memory change (`MemoryChange`, K-3) the summary is rebuilt from; anything may be missing or odd. */
export interface ChangeLike {
  kind?: unknown;
  op?: unknown;
  target?: unknown;
  subjects?: unknown;
  summary?: unknown;
  redacted?: unknown;
}

/** The summary a forget leaves in place of a change's text (control-db `redactHistory`). */
const REDACTED = '(forgotten)';

/** The plan's fixed sentences (memory-manager `PLAN_OPS`), by what they say. */
const PLAN_SENTENCES: Record<string, DictKey> = {
  'removed pinned messages that held forgotten text': 'history.sum.plan.scrub',
  'pinned a message': 'history.sum.plan.pin',
  'unpinned a message': 'history.sum.plan.unpin',
  'added a memory to the plan': 'history.sum.plan.addMemory',
  'removed a memory from the plan': 'history.sum.plan.removeMemory',
  'changed inject-once': 'history.sum.plan.setInjectOnce',
  'cleared the plan': 'history.sum.plan.clear',
};

/**
 * The one line of a memory change in the person's language. The daemon stores an English sentence
 * (`summary`); this rebuilds it from the change's kind, op, target and subjects, and only where the
 * stored sentence is exactly what the daemon writes for them — the verbs and counts are translated,
 * what a person said (fact text, names, document text, titles) stays as it is. Anything else is
 * the stored sentence unchanged. Never throws.
 */
export function changeSummary(t: T, change: ChangeLike | null | undefined, lang?: 'en' | 'zh'): string {
  const summary = typeof change?.summary === 'string' ? change.summary : '';
  try {
    return render(t, change!, summary, 0, lang) ?? summary;
  } catch {
    return summary;
  }
}

/** `t(key, vars)` where the string values go in verbatim (a `{x}` in a person's text is not filled). */
function fill(t: T, key: DictKey, vars: Record<string, string | number> = {}): string {
  const texts: string[] = [];
  const v: Record<string, string | number> = {};
  for (const [k, x] of Object.entries(vars)) {
    if (typeof x === 'number') v[k] = x;
    else {
      v[k] = `\uE000${texts.length}\uE000`;
      texts.push(x);
    }
  }
  return t(key, v).replace(/\uE000(\d+)\uE000/g, (_, i: string) => texts[Number(i)] ?? '');
}

/** `prefix + w` translated when the dictionary has it, else `w`. */
function word(t: T, prefix: string, w: string): string {
  const key = `${prefix}${w}`;
  return key in dict.en ? t(key as DictKey) : w;
}

/**
 * The translated line, or undefined when the summary is not one this knows. `op` undefined: the
 * inner change of an undo (its op is not kept), recognised by its kind and sentence alone.
 */
function render(t: T, c: ChangeLike, summary: string, depth: number, lang?: 'en' | 'zh'): string | undefined {
  const kind = typeof c.kind === 'string' ? c.kind : '';
  const op = typeof c.op === 'string' ? c.op : undefined;
  const target = typeof c.target === 'string' ? c.target : '';
  const subjects = Array.isArray(c.subjects) ? c.subjects.filter((s): s is string => typeof s === 'string') : [];
  const is = (...ops: string[]) => op === undefined || ops.includes(op);

  if (summary === REDACTED && (c.redacted === true || depth > 0)) return t('chat.forgottenText');

  if (op === 'undo') {
    const m = /^undid #([^:\s]{1,40}): ([\s\S]*)$/.exec(summary);
    if (!m || depth > 3) return undefined;
    const inner = render(t, { kind, target, subjects }, m[2], depth + 1, lang) ?? m[2];
    return fill(t, 'history.sum.undo', { id: m[1], summary: inner });
  }

  if (is('import')) {
    const m = /^imported ([^:\s]+): (\d+) added, (\d+) replaced \(mode ([^)]+)\)$/.exec(summary);
    if (m && (subjects.length === 0 || subjects[0] === m[1])) {
      return fill(t, 'history.sum.import', { part: word(t, 'history.part.', m[1]), added: Number(m[2]), replaced: Number(m[3]), mode: word(t, 'history.mode.', m[4]) });
    }
    if (op === 'import') return undefined;
  }

  switch (kind) {
    case 'exclusion':
      if (is('exclude') && summary === `excluded turn ${target}`) return fill(t, 'history.sum.exclude', { turn: target });
      if (is('restore') && summary === `restored turn ${target}`) return fill(t, 'history.sum.restore', { turn: target });
      return undefined;

    case 'replacement': {
      const m = /^replaced turn (\S+) with (\S+)$/.exec(summary);
      return m && m[1] === target && is('replace') ? fill(t, 'history.sum.replace', { turn: m[1], by: m[2] }) : undefined;
    }

    case 'forget': {
      const m = /^forgot (\d+) turns?, (\d+) facts?, (\d+) documents?, (\d+) (?:memory|memories)$/.exec(summary);
      if (!m || !is('forget')) return undefined;
      return fill(t, 'history.sum.forget', {
        turns: t('history.sum.turns', { n: Number(m[1]) }),
        facts: t('history.sum.facts', { n: Number(m[2]) }),
        documents: t('history.sum.documents', { n: Number(m[3]) }),
        memories: t('history.sum.memories', { n: Number(m[4]) }),
      });
    }

    case 'document': {
      const m = /^(added|deleted) document: ([\s\S]*)$/.exec(summary);
      if (!m) return undefined;
      if (m[1] === 'added' && is('create')) return fill(t, 'history.sum.documentAdded', { text: m[2] });
      if (m[1] === 'deleted' && is('delete')) return fill(t, 'history.sum.documentDeleted', { text: m[2] });
      return undefined;
    }

    case 'knowledge': {
      if (!target.startsWith('knowledge:')) return undefined;
      const name = target.slice('knowledge:'.length);
      const verbs: [string, string, DictKey][] = [
        ['create', 'created', 'history.sum.knowledgeCreated'],
        ['update', 'edited', 'history.sum.knowledgeEdited'],
        ['delete', 'deleted', 'history.sum.knowledgeDeleted'],
      ];
      for (const [o, verb, key] of verbs) if (is(o) && summary === `${verb} knowledge entry "${name}"`) return fill(t, key, { name });
      return undefined;
    }

    case 'memory': {
      const title = subjects[0];
      if (title === undefined) return undefined;
      const verbs: [string, string, DictKey][] = [
        ['create', 'saved', 'history.sum.memorySaved'],
        ['update', 'edited', 'history.sum.memoryEdited'],
        ['delete', 'deleted', 'history.sum.memoryDeleted'],
      ];
      for (const [o, verb, key] of verbs) if (is(o) && summary === `${verb} memory "${title}"`) return fill(t, key, { title });
      // A hand edit of the memory's file (Obsidian, an editor, a sync tool).
      const inFile: [string, string, DictKey][] = [
        ['create', 'added', 'history.sum.memoryFileAdded'],
        ['update', 'edited', 'history.sum.memoryFileEdited'],
        ['delete', 'deleted', 'history.sum.memoryFileDeleted'],
      ];
      for (const [o, verb, key] of inFile) if (is(o) && summary === `${verb} memory "${title}" in its file (outside HomeAgent)`) return fill(t, key, { title });
      return undefined;
    }

    case 'plan': {
      const key = Object.hasOwn(PLAN_SENTENCES, summary) ? PLAN_SENTENCES[summary] : undefined;
      return key && (op === undefined || key === `history.sum.plan.${op}`) ? t(key) : undefined;
    }

    case 'entity':
      return entity(t, op, target, subjects, summary);

    case 'relation':
      return relation(t, op, subjects, summary, lang);
  }
  return undefined;
}

function entity(t: T, op: string | undefined, target: string, subjects: string[], summary: string): string | undefined {
  const is = (...ops: string[]) => op === undefined || ops.includes(op);
  const [name, other] = subjects;
  if (name === undefined) return undefined;
  // GraphDB.mergeEntities: subjects [kept, removed].
  if (is('merge') && other !== undefined && summary === `merged ${other} into ${name}`) return fill(t, 'history.sum.entityMerged', { kept: name, removed: other });
  // GraphDB.deleteEntity.
  if (is('delete') && summary.startsWith(`deleted ${name} and `)) {
    const m = /^(\d+) facts$/.exec(summary.slice(`deleted ${name} and `.length));
    if (m) return fill(t, 'history.sum.entityDeleted', { name, n: Number(m[1]) });
  }
  // GraphDB.ensureEntity: `entity <name>` or `entity <name> (<type>)`.
  if (is('create', 'update')) {
    if (summary === `entity ${name}`) return fill(t, 'history.sum.entity', { name });
    const head = `entity ${name} (`;
    if (summary.startsWith(head) && summary.endsWith(')') && summary.length > head.length + 1) return fill(t, 'history.sum.entityTyped', { name, type: summary.slice(head.length, -1) });
  }
  // GraphDB.editEntity: `<old name>: renamed to <new>; type <type>; attributes <json>` (any of the three, in that order).
  if (is('update') && summary.startsWith(`${name}: `) && target.startsWith('entity:')) {
    const newName = target.slice('entity:'.length);
    let rest = summary.slice(name.length + 2);
    const parts: string[] = [];
    if (other !== undefined) {
      const renamed = `renamed to ${other}`;
      if (other !== newName || !(rest === renamed || rest.startsWith(`${renamed}; `))) return undefined;
      parts.push(fill(t, 'history.sum.entityRenamed', { name: other }));
      rest = rest.slice(renamed.length + (rest === renamed ? 0 : 2));
      if (rest === '') return fill(t, 'history.sum.entityEdited', { name, what: parts.join(t('history.sum.separator')) });
    }
    if (rest.startsWith('type ')) {
      const at = rest.indexOf('; attributes ');
      parts.push(fill(t, 'history.sum.entityType', { type: at < 0 ? rest.slice(5) : rest.slice(5, at) }));
      rest = at < 0 ? '' : rest.slice(at + 2);
    }
    if (rest.startsWith('attributes ')) {
      parts.push(fill(t, 'history.sum.entityAttributes', { json: rest.slice('attributes '.length) }));
      rest = '';
    }
    if (rest === '' && parts.length) return fill(t, 'history.sum.entityEdited', { name, what: parts.join(t('history.sum.separator')) });
  }
  return undefined;
}

/**
 * A fact's text as the graph writes it (`<subject> <predicate> <object>`) as a sentence in `lang`
 * (About me's words: "you live in 杭州", "你 住在 杭州"); without `lang`, or when it is not one fact of
 * these subjects, as it is.
 */
function sayFact(fact: string, subject: string, object: string | undefined, lang: 'en' | 'zh' | undefined): string {
  if (!lang || object === undefined || !fact.startsWith(`${subject} `) || !fact.endsWith(` ${object}`)) return fact;
  const predicate = fact.slice(subject.length + 1, fact.length - object.length - 1);
  if (!/^[a-z][a-z0-9_]*$/.test(predicate)) return fact;
  const you = subject === 'user';
  return phraseLine(factPhrase(lang, you ? (lang === 'zh' ? '你' : 'you') : subject, predicate, object, you));
}

/** One side of an edit as a sentence, when some pair of the change's entities is its subject and object. */
function sayEither(side: string, subjects: string[], lang: 'en' | 'zh' | undefined): string {
  for (const s of subjects) for (const o of subjects) if (s !== o && side.startsWith(`${s} `) && side.endsWith(` ${o}`)) return sayFact(side, s, o, lang);
  return side;
}

function relation(t: T, op: string | undefined, subjects: string[], summary: string, lang?: 'en' | 'zh'): string | undefined {
  const is = (...ops: string[]) => op === undefined || ops.includes(op);
  // GraphDB.purge: subjects are every entity it took (the first five named).
  if (is('purge')) {
    const m = /^purged (\d+) facts and (\d+) entities(?: \(([\s\S]*)\))?$/.exec(summary);
    if (m && (m[3] === undefined ? subjects.length === 0 : m[3] === subjects.slice(0, 5).join(', '))) {
      const counts = fill(t, 'history.sum.purged', { facts: t('history.sum.facts', { n: Number(m[1]) }), entities: t('history.sum.entities', { n: Number(m[2]) }) });
      return m[3] === undefined ? counts : fill(t, 'history.sum.named', { summary: counts, names: subjects.slice(0, 5).join(t('history.sum.listSeparator')) });
    }
    if (op === 'purge') return undefined;
  }
  const [subject, object] = subjects;
  if (subject === undefined) return undefined;
  const isFact = (s: string) => s.startsWith(`${subject} `) && (object === undefined || s.endsWith(` ${object}`));
  const say = (fact: string) => sayFact(fact, subject, object, lang);
  // GraphDB.deleteRelation: `deleted <subject> <predicate> <object>`.
  if (is('delete') && summary.startsWith('deleted ') && isFact(summary.slice('deleted '.length))) return fill(t, 'history.sum.factDeleted', { fact: say(summary.slice('deleted '.length)) });
  // MemoryControl.forget: a fact the person kept while the turn it came from went (decision 0520).
  const keptTail = ' (the turn it came from was forgotten)';
  if (op === 'keep' && summary.startsWith('kept ') && summary.endsWith(keptTail) && isFact(summary.slice('kept '.length, -keptTail.length))) return fill(t, 'history.sum.factKept', { fact: say(summary.slice('kept '.length, -keptTail.length)) });
  // GraphDB.commit: a fact said again, or one replacing earlier values.
  if (is('update') && summary.endsWith(' (said again)') && isFact(summary.slice(0, -' (said again)'.length))) return fill(t, 'history.sum.factAgain', { fact: say(summary.slice(0, -' (said again)'.length)) });
  if (is('supersede')) {
    const m = /^([\s\S]+) \(replaces ([\s\S]*)\)$/.exec(summary);
    if (m && isFact(m[1])) return fill(t, 'history.sum.factReplaces', { fact: say(m[1]), names: m[2] });
  }
  // GraphDB.editRelation: `<before> → <after>`, with the new confidence when it was set.
  if (is('update') && summary.startsWith(`${subject} `) && summary.includes(' → ')) {
    const m = /^([\s\S]+) \((\d\.\d\d)\)$/.exec(summary);
    // Each side a fact of the entities named (a correction: "user lives_in 杭州 → user lives_in 上海").
    const sides = (m ? m[1] : summary).split(' → ');
    const said = sides.length === 2 ? sides.map((side) => sayEither(side, subjects, lang)).join(' → ') : (m ? m[1] : summary);
    return m ? fill(t, 'history.sum.factConfidence', { fact: said, confidence: m[2] }) : said;
  }
  // A fact as committed: nothing in it to translate.
  if (is('create') && isFact(summary)) return say(summary);
  return undefined;
}
