import { describe, expect, it } from 'vitest';
import { translate } from '../i18n';
import { changeSummary, type ChangeLike } from './change-summary';

const zh = (k: Parameters<typeof translate>[1], v?: Record<string, string | number>) => translate('zh', k, v);
const en = (k: Parameters<typeof translate>[1], v?: Record<string, string | number>) => translate('en', k, v);

/** One change as the daemon records it (the summary exactly as memory-control / graph-db / memory-manager write it). */
const c = (kind: string, op: string, target: string, subjects: string[], summary: string, extra: Partial<ChangeLike> = {}): ChangeLike => ({ kind, op, target, subjects, summary, ...extra });

// Every sentence the daemon writes, with its Chinese rendering (English must stay what the daemon wrote).
const cases: [string, ChangeLike, string][] = [
  ['exclusion', c('exclusion', 'exclude', 'webui:x#3', [], 'excluded turn webui:x#3'), '排除了对话轮次 webui:x#3'],
  ['restore', c('exclusion', 'restore', 'webui:x#3', [], 'restored turn webui:x#3'), '恢复了对话轮次 webui:x#3'],
  ['replacement', c('replacement', 'replace', 'webui:x#3', [], 'replaced turn webui:x#3 with webui:x#5'), '对话轮次 webui:x#3 已由重新发送的 webui:x#5 取代，旧的一轮移出了记忆'],
  ['forget', c('forget', 'forget', 'forget', [], 'forgot 1 turn, 2 facts, 0 documents, 0 memories'), '遗忘了 1 轮对话、2 条事实、0 份文档、0 条记忆'],
  ['forget (other plurals)', c('forget', 'forget', 'forget', [], 'forgot 3 turns, 1 fact, 1 document, 1 memory'), '遗忘了 3 轮对话、1 条事实、1 份文档、1 条记忆'],
  ['document added', c('document', 'create', 'd1', [], 'added document: My bike lock code is 8086'), '添加了文档：My bike lock code is 8086'],
  ['document deleted', c('document', 'delete', 'd1', ['Title'], 'deleted document: 我的车锁密码'), '删除了文档：我的车锁密码'],
  ['knowledge created', c('knowledge', 'create', 'knowledge:wifi', ['wifi'], 'created knowledge entry "wifi"'), '新建了知识条目“wifi”'],
  ['knowledge edited', c('knowledge', 'update', 'knowledge:wifi', ['wifi'], 'edited knowledge entry "wifi"'), '修改了知识条目“wifi”'],
  ['knowledge deleted', c('knowledge', 'delete', 'knowledge:wifi', ['wifi'], 'deleted knowledge entry "wifi"'), '删除了知识条目“wifi”'],
  ['memory saved', c('memory', 'create', 'm1', ['Trip to Kyoto', 'temples'], 'saved memory "Trip to Kyoto"'), '保存了记忆“Trip to Kyoto”'],
  ['memory edited', c('memory', 'update', 'm1', ['Trip to Kyoto'], 'edited memory "Trip to Kyoto"'), '修改了记忆“Trip to Kyoto”'],
  ['memory deleted', c('memory', 'delete', 'm1', ['Trip to Kyoto'], 'deleted memory "Trip to Kyoto"'), '删除了记忆“Trip to Kyoto”'],
  ['plan pin', c('plan', 'pin', 'plan', [], 'pinned a message'), '固定了一条消息'],
  ['plan addMemory', c('plan', 'addMemory', 'plan', ['Trip'], 'added a memory to the plan'), '把一条记忆加入了注入计划'],
  ['plan scrub', c('plan', 'scrub', 'plan', [], 'removed pinned messages that held forgotten text'), '移除了含有已遗忘内容的固定消息'],
  ['plan clear', c('plan', 'clear', 'plan', [], 'cleared the plan'), '清空了注入计划'],
  ['import', c('relation', 'import', 'import:j1:graph', ['graph'], 'imported graph: 3 added, 1 replaced (mode skip)'), '导入了知识图谱：新增 3，替换 1（模式：保留我的）'],
  ['entity', c('entity', 'create', 'entity:Alice', ['Alice'], 'entity Alice'), '实体 Alice'],
  ['entity typed', c('entity', 'update', 'entity:Alice', ['Alice'], 'entity Alice (person)'), '实体 Alice（person）'],
  ['entity merged', c('entity', 'merge', 'entity:Alice', ['Alice', 'Alicia'], 'merged Alicia into Alice'), '把 Alicia 合并进了 Alice'],
  ['entity deleted', c('entity', 'delete', 'entity:Alice', ['Alice'], 'deleted Alice and 3 facts'), '删除了 Alice 及其 3 条事实'],
  ['entity renamed', c('entity', 'update', 'entity:Ally', ['Alice', 'Ally'], 'Alice: renamed to Ally; type friend'), 'Alice：改名为 Ally；类型改为 friend'],
  ['entity attributes', c('entity', 'update', 'entity:Alice', ['Alice'], 'Alice: type person; attributes {"age":30}'), 'Alice：类型改为 person；属性 {"age":30}'],
  ['entity attributes only', c('entity', 'update', 'entity:Alice', ['Alice'], 'Alice: attributes {"aliases":["Al"]}'), 'Alice：属性 {"aliases":["Al"]}'],
  ['purge', c('relation', 'purge', 'purge:1', ['Bob', 'Carol'], 'purged 3 facts and 2 entities (Bob, Carol)'), '清除了 3 条事实和 2 个实体（Bob、Carol）'],
  ['purge unnamed', c('relation', 'purge', 'purge:1', [], 'purged 2 facts and 0 entities'), '清除了 2 条事实和 0 个实体'],
  ['fact', c('relation', 'create', 'relation:1', ['user', '杭州'], 'user lives_in 杭州'), 'user lives_in 杭州'],
  ['fact said again', c('relation', 'update', 'relation:1', ['user', '杭州'], 'user lives_in 杭州 (said again)'), 'user lives_in 杭州（再次提到）'],
  ['fact supersedes', c('relation', 'supersede', 'relation:2', ['user', '上海'], 'user lives_in 上海 (replaces 杭州)'), 'user lives_in 上海（取代 杭州）'],
  ['fact edited', c('relation', 'update', 'relation:3', ['A', 'tea', 'coffee'], 'A likes tea → A likes coffee (0.80)'), 'A likes tea → A likes coffee（置信度 0.80）'],
  ['fact edited (no confidence)', c('relation', 'update', 'relation:3', ['A', 'tea', 'coffee'], 'A likes tea → A likes coffee'), 'A likes tea → A likes coffee'],
  ['fact deleted', c('relation', 'delete', 'relation:3', ['A', 'tea'], 'deleted A likes tea'), '删除了 A likes tea'],
  ['fact kept while its turn was forgotten (0520)', c('relation', 'keep', 'relation:5', ['user', '小林'], 'kept user name 小林 (the turn it came from was forgotten)'), '保留了 user name 小林（它所来自的对话已被遗忘）'],
  ['undo of an exclusion', c('exclusion', 'undo', 'webui:x#3', [], 'undid #12: excluded turn webui:x#3'), '撤销了 #12：排除了对话轮次 webui:x#3'],
  ['undo of a merge', c('entity', 'undo', 'entity:Alice', ['Alice', 'Alicia'], 'undid #7: merged Alicia into Alice'), '撤销了 #7：把 Alicia 合并进了 Alice'],
  ['undo of a fact delete', c('relation', 'undo', 'relation:3', ['A', 'tea'], 'undid #9: deleted A likes tea'), '撤销了 #9：删除了 A likes tea'],
  ['undo of a knowledge edit', c('knowledge', 'undo', 'knowledge:wifi', ['wifi'], 'undid #4: edited knowledge entry "wifi"'), '撤销了 #4：修改了知识条目“wifi”'],
  ['undo of something unknown', c('plan', 'undo', 'plan', [], 'undid #5: did a new thing'), '撤销了 #5：did a new thing'],
  ['redacted', c('document', 'create', 'd9', [], '(forgotten)', { redacted: true }), '（已遗忘）'],
];

describe('changeSummary: a memory change in the person\'s language, rebuilt from its kind, op, target and subjects', () => {
  for (const [name, change, chinese] of cases) {
    it(`${name}: Chinese, and English as the daemon wrote it`, () => {
      expect(changeSummary(zh, change)).toBe(chinese);
      expect(changeSummary(en, change)).toBe(change.summary);
    });
  }

  it('with the page\'s language, a fact is said as About me says it (was "user lives_in 杭州 (replaces Berlin)")', () => {
    expect(changeSummary(en, c('relation', 'supersede', 'relation:2', ['user', '杭州'], 'user lives_in 杭州 (replaces Berlin)'), 'en')).toBe('you live in 杭州 (replaces Berlin)');
    expect(changeSummary(zh, c('relation', 'supersede', 'relation:2', ['user', '杭州'], 'user lives_in 杭州 (replaces Berlin)'), 'zh')).toBe('你住在杭州（取代 Berlin）');
    expect(changeSummary(en, c('relation', 'create', 'relation:1', ['user', '小明'], 'user name 小明'), 'en')).toBe('your name is 小明');
    expect(changeSummary(zh, c('relation', 'delete', 'relation:3', ['Sam', 'tea'], 'deleted Sam likes tea'), 'zh')).toBe('删除了 Sam 喜欢 tea');
    expect(changeSummary(en, c('relation', 'keep', 'relation:5', ['user', 'Acme'], 'kept user works_at Acme (the turn it came from was forgotten)'), 'en')).toBe('kept you work at Acme (the turn it came from was forgotten)');
    // A correction (About me's "Correct"): each side said as a fact.
    expect(changeSummary(zh, c('relation', 'update', 'relation:7', ['user', '杭州', '上海'], 'user lives_in 杭州 → user lives_in 上海'), 'zh')).toBe('你住在杭州 → 你住在上海');
    expect(changeSummary(en, c('relation', 'update', 'relation:7', ['user', 'nurse', 'doctor'], 'user works_as nurse → user works_as doctor (0.90)'), 'en')).toBe('you work as nurse → you work as doctor (0.90)');
    // An edit keeps its arrow form; a subject with a space is matched whole.
    expect(changeSummary(en, c('relation', 'create', 'relation:6', ['Ann Lee', 'Oslo'], 'Ann Lee lives_in Oslo'), 'en')).toBe('Ann Lee lives in Oslo');
  });

  it('English differs only where the daemon did not pluralise', () => {
    expect(changeSummary(en, c('entity', 'delete', 'entity:Alice', ['Alice'], 'deleted Alice and 1 facts'))).toBe('deleted Alice and 1 fact');
    expect(changeSummary(en, c('relation', 'purge', 'purge:1', [], 'purged 1 facts and 1 entities'))).toBe('purged 1 fact and 1 entity');
  });

  it('a person\'s text is put in as it is, braces and all', () => {
    expect(changeSummary(zh, c('document', 'create', 'd1', [], 'added document: use {n} and {text} here'))).toBe('添加了文档：use {n} and {text} here');
    expect(changeSummary(zh, c('entity', 'merge', 'entity:{removed}', ['{removed}', '{kept}'], 'merged {kept} into {removed}'))).toBe('把 {kept} 合并进了 {removed}');
  });

  it('falls back to the stored sentence for anything it does not know, and never throws', () => {
    const odd: [ChangeLike | null | undefined, string][] = [
      [c('relation', 'rename', 'relation:1', ['A'], 'something new happened'), 'something new happened'],
      [c('spaceship', 'launch', 'x', [], 'launched'), 'launched'],
      [c('exclusion', 'exclude', 'webui:x#3', [], 'excluded turn webui:y#4'), 'excluded turn webui:y#4'],
      [c('forget', 'forget', 'forget', [], 'forgot everything'), 'forgot everything'],
      [c('replacement', 'replace', 'webui:x#3', [], 'replaced turn webui:y#4 with webui:y#5'), 'replaced turn webui:y#4 with webui:y#5'],
      [c('knowledge', 'update', 'knowledge:wifi', ['wifi'], 'edited knowledge entry "lan"'), 'edited knowledge entry "lan"'],
      [c('document', 'delete', 'd1', [], 'added document: x'), 'added document: x'],
      [c('entity', 'merge', 'entity:A', ['A', 'B'], 'merged C into A'), 'merged C into A'],
      [c('entity', 'update', 'entity:A', ['A'], 'A: became famous'), 'A: became famous'],
      [c('plan', 'pin', 'plan', [], 'cleared the plan'), 'cleared the plan'],
      [c('plan', 'pin', 'plan', [], 'constructor'), 'constructor'],
      [c('relation', 'import', 'import:j:graph', ['graph'], 'imported graph: lots'), 'imported graph: lots'],
      [c('exclusion', 'undo', 'webui:x#3', [], 'undone'), 'undone'],
      [c('document', 'create', 'd9', [], '(forgotten)'), '(forgotten)'],
      [{ kind: 'exclusion', op: 'exclude', target: 3, subjects: 'nope', summary: 'excluded turn 3' }, 'excluded turn 3'],
      [{ kind: 7, op: null, summary: 'hello' }, 'hello'],
      [{ summary: 42 }, ''],
      [{}, ''],
      [null, ''],
      [undefined, ''],
    ];
    for (const [change, shown] of odd) {
      expect(changeSummary(zh, change)).toBe(shown);
      expect(changeSummary(en, change)).toBe(shown);
    }
    const throwing: ChangeLike = { kind: 'exclusion', op: 'exclude', summary: 'excluded turn x', get target(): string { throw new Error('boom'); } };
    expect(changeSummary(zh, throwing)).toBe('excluded turn x');
  });
});
