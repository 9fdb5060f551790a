/**
 * An import report's notes in the Chinese WebUI (web/src/lib/import-note-words.ts), kept in step
 * with the daemon's builders (src/spec/import-notes.ts): every kind of note is built, once with a
 * count of one and once with many where it counts, and the page must say it in Chinese — no
 * English sentence left — with the ids and numbers it names. `SAMPLES` is typed by the builders,
 * so a new kind of note does not compile here until it has a sample (and so a Chinese check).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { importNote } from '../src/spec/index.js';
import { importNoteInWords } from '../web/src/lib/import-note-words.js';

type Builders = typeof importNote;
const SAMPLES: { [K in keyof Builders]: Parameters<Builders[K]>[] } = {
  theirLinesUnreadable: [['cli:default', 1], ['cli:default', 3]],
  ourLinesUnreadableSkipped: [['webui:main', 1], ['webui:main', 2]],
  ourLinesUnreadableBeside: [['webui:main', 1], ['webui:main', 2]],
  diverged: [['cli:default']],
  unreadableDocuments: [[4]],
  invalidContextEvents: [[5]],
  memoryNotMarkable: [['m-20261201-abc']],
  memoriesDisabled: [[1], [6]],
  planHeld: [[]],
  personaHeld: [[]],
  settingUnknown: [['plugin.old.thing']],
  settingSecret: [['core.llm.sources.openai.api_key']],
  settingPersonaPath: [['core.agent.persona_file']],
  turnTombstones: [[1], [7]],
  forgottenHereLeftOut: [[1], [2]],
  forgottenThereLeftOut: [[1], [3]],
  replacementsInvalid: [[1], [4]],
  replacementsOfKeptSessions: [[1], [2]],
  adapterHeld: [['my-vendor', false], ['openai', true]],
  adapterUnreadable: [['big', true], ['bin', false]],
  sourceWithoutKey: [['mybox']],
  sourceDisabled: [['mybox']],
  sourceAdapterHeld: [['vendorx', 'my-vendor']],
  sourceAdapterMissing: [['vendorx', 'gone']],
  sourceInvalid: [['mybox', 'core.llm.sources.mybox.base_url: Invalid URL']],
  sourceBuiltInName: [['openai']],
  sourcesUnreadable: [['core.llm.custom_sources: not a list']],
  settingAdapterHeld: [['core.llm.sources.openai.adapter', 'my-vendor']],
  sessionRenamed: [['cli:default', 'cli:default-2']],
  wouldForgetHere: [[{ turns: 2, facts: 3, documents: 4 }], [{ turns: 2, facts: 3, documents: 4, files: 5 }]],
  forgotHere: [[{ turns: 2, facts: 3, documents: 4 }]],
  forgetsNotRecorded: [['the memory-control store is not open'], ['disk I/O error']],
  replacementsNotRecorded: [['the memory-control store is not open'], ['disk I/O error']],
  forgetsNotApplied: [['database is locked']],
};

/** Three English words in a row: a sentence the translation left alone (a database's own error quoted in brackets is allowed). */
const ENGLISH = /\b[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}\b/;
const QUOTED_SYSTEM_ERRORS = ['disk I/O error', 'database is locked'];

describe('import report notes said in Chinese', () => {
  for (const [kind, samples] of Object.entries(SAMPLES) as [keyof Builders, unknown[][]][]) {
    it(kind, () => {
      for (const args of samples) {
        const en = (importNote[kind] as (...a: unknown[]) => string)(...args);
        const zh = importNoteInWords(en, 'zh');
        let prose = zh;
        for (const q of QUOTED_SYSTEM_ERRORS) prose = prose.replace(q, '');
        assert.doesNotMatch(prose, ENGLISH, `left in English: ${zh}`);
        // What the note names (ids, setting keys, counts) is still there, as written.
        for (const a of args.flatMap((x) => (typeof x === 'object' && x ? Object.values(x) : [x]))) {
          if (typeof a === 'string' && !/ /.test(a)) assert.ok(zh.includes(a), `${zh} lost ${a}`);
          if (typeof a === 'number') assert.ok(zh.includes(String(a)), `${zh} lost ${a}`);
        }
        assert.equal(importNoteInWords(en, 'en'), en);
      }
    });
  }

  it('a note it does not know stays as the daemon wrote it', () => {
    assert.equal(importNoteInWords('something new happened', 'zh'), 'something new happened');
  });
});
