/**
 * The built-in plugins' confirmation questions in the Chinese WebUI (web/src/lib/confirm-words.ts),
 * kept in step with the daemon's builders (src/spec/confirm-questions.ts): every kind of question
 * and every line of a forget's plan is built and must be said in Chinese — no English sentence
 * left — keeping what it quotes (titles, commands, ids, counts) as written. The sample tables are
 * typed by the builders, so a new kind does not compile here until it has a sample.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { confirmDetailLead, confirmQuestion, forgetPlanLine } from '../src/spec/index.js';
import { confirmDetailInWords, confirmTitleInWords } from '../web/src/lib/confirm-words.js';

type Samples<B> = { [K in keyof B]: B[K] extends (...a: infer P) => string ? P[] : never };

const QUESTIONS: Samples<typeof confirmQuestion> = {
  saveInjected: [[['convention']], [['convention', '会话总结']]],
  mcpSaveInjected: [[['convention']]],
  changeInjectedNotes: [['叫我老李 (Lao Li)']],
  addToPlan: [['叫我老李 (Lao Li)']],
  forget: [['The assistant', 3], ['An MCP client', 1]],
  runCommand: [['git']],
  openTerminal: [['bash']],
};
const LEADS: Samples<typeof confirmDetailLead> = { replaceNotes: [[]], appendNotes: [[]] };
const LINES: Samples<typeof forgetPlanLine> = {
  turn: [['webui:main#3', ['context', 'session-log'], '我住在杭州']],
  quotingTurn: [['webui:main#5', ['document'], '我说过我住在杭州']],
  fact: [[12, '我 住在 杭州']],
  keptFact: [[13, '我 叫 小林', true], [14, '我 喜欢 茶', false]],
  note: [['document', 'd-42', '杭州的房子']],
  memory: [['m-1', '杭州生活', true], ['m-2', '杭州生活', false]],
  moreTurns: [[4]],
  moreQuoting: [[5]],
  moreFacts: [[6]],
  moreMemories: [[7]],
};

/** Three English words in a row: a sentence the translation left alone. */
const ENGLISH = /\b[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}\b/;
/** What a question or line quotes stays as written (reserved tags are said as the page calls them). */
const quoted = (args: unknown[]) => args.flatMap((a) => (Array.isArray(a) ? a.filter((x) => x !== 'convention') : [a])).filter((a) => (typeof a === 'string' && !/^(The assistant|An MCP client|context|session-log|document)$/.test(a)) || typeof a === 'number');

function check(en: string, zh: string, args: unknown[]) {
  assert.doesNotMatch(zh, ENGLISH, `left in English: ${zh}`);
  assert.notEqual(zh, en);
  for (const a of quoted(args)) assert.ok(zh.includes(String(a)), `${zh} lost ${String(a)}`);
}

describe('confirmation questions said in Chinese', () => {
  for (const [kind, samples] of Object.entries(QUESTIONS) as [keyof typeof confirmQuestion, unknown[][]][]) {
    it(`question: ${kind}`, () => {
      for (const args of samples) {
        const en = (confirmQuestion[kind] as (...a: unknown[]) => string)(...args);
        check(en, confirmTitleInWords(en, 'memory-manager', 'zh'), args);
        assert.equal(confirmTitleInWords(en, 'memory-manager', 'en'), en);
      }
    });
  }
  it('a reserved tag is named as the page names it', () => {
    assert.match(confirmTitleInWords(confirmQuestion.saveInjected(['convention']), 'memory-manager', 'zh'), /“规约”/);
  });
  for (const [kind, samples] of [...Object.entries(LEADS), ...Object.entries(LINES)] as [string, unknown[][]][]) {
    it(`detail line: ${kind}`, () => {
      const builder = ((confirmDetailLead as Record<string, unknown>)[kind] ?? (forgetPlanLine as Record<string, unknown>)[kind]) as (...a: unknown[]) => string;
      for (const args of samples) {
        const en = builder(...args);
        check(en, confirmDetailInWords(en, 'memory-manager', 'zh'), args);
      }
    });
  }
  it('a whole forget detail: each line the daemon wrote in Chinese, quoted text kept', () => {
    const detail = [forgetPlanLine.turn('cli:default#2', ['archive'], 'I live in Hangzhou, near the lake'), forgetPlanLine.fact(3, 'user lives_in Hangzhou')].join('\n');
    const zh = confirmDetailInWords(detail, 'mcp-server', 'zh');
    assert.equal(zh, '轮次 cli:default#2［冷存档］：I live in Hangzhou, near the lake\n事实 #3：user lives_in Hangzhou');
  });
  it("a person's own plugin asks in its own words", () => {
    const own = confirmQuestion.runCommand('deploy');
    assert.equal(confirmTitleInWords(own, 'my-plugin', 'zh'), own);
    assert.equal(confirmDetailInWords(forgetPlanLine.fact(1, 'x'), 'my-plugin', 'zh'), forgetPlanLine.fact(1, 'x'));
  });
});
