/**
 * Data as years of use leave it, written into a data folder before the daemon starts: a long
 * session log and a big memory library (used by test/e2e/long-history.e2e.test.ts and
 * bench/webui-library.bench.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LONG_SESSION = 'webui:long-history';
/** 2,500 turns of a question and an answer: 5,000 events. */
export const TURNS = 2500;
export const MEMORIES = 10_000;
/** Memory ids `lib-00000` …; the lowest is the oldest (the last row of the library list). */
export const memId = (i: number) => `lib-${String(i).padStart(5, '0')}`;

/**
 * The session log of a long conversation (seq 2n-1 the question of turn n, 2n its answer; the last
 * turn also has the recall block it was given, naming turn 7 and the memory of turn 42 as sources).
 */
export function writeLongSession(home: string, id = LONG_SESSION, turns = TURNS): void {
  const dir = join(home, 'sessions');
  mkdirSync(dir, { recursive: true });
  const t0 = Date.parse('2025-01-01T08:00:00Z');
  const lines = [JSON.stringify({ type: 'session', v: 1, id, channel: 'webui', title: 'A year of questions', createdAt: t0 })];
  for (let n = 1, seq = 0; n <= turns; n++) {
    const turnId = `${id}#${n}`;
    const at = t0 + n * 3_600_000;
    lines.push(JSON.stringify({ type: 'event', seq: ++seq, turnId, kind: 'user', at, text: `question number ${n}`, data: { source: 'webui', trigger: 'user' } }));
    if (n === turns) {
      // The last turn recalled turn 7 (an archived turn) and the memory saved from turn 42: the
      // block the model got, with its sources (issue 12 part 6).
      const sources = [
        { tier: 'archive', id: `log:${id}:13`, text: 'question number 7', at: t0 + 7 * 3_600_000, sessionId: id, channel: 'webui', turnId: `${id}#7` },
        { tier: 'library', id: memId(0), text: 'The answer of turn 42', sessionId: id, seq: 84 },
      ];
      lines.push(JSON.stringify({ type: 'event', seq: ++seq, turnId, kind: 'injection', at: at + 1, text: '- [2025-01-01 15:00 · archive] question number 7', data: { source: 'recall', slot: 'related_documents', title: '【相关记忆文档】', sources } }));
    }
    lines.push(JSON.stringify({ type: 'event', seq: ++seq, turnId, kind: 'assistant', at: at + 2000, text: `answer number ${n}: ${'lorem ipsum '.repeat(1 + (n % 5))}`, data: { status: 'ok', rounds: 1 } }));
  }
  writeFileSync(join(dir, `${id.replace(/:/g, '%3A')}.jsonl`), `${lines.join('\n')}\n`);
}

/** A library of `n` memories; the first is the one saved from turn 42's answer (its source). */
export function writeLibrary(home: string, n = MEMORIES): void {
  const dir = join(home, 'memory', 'memories');
  mkdirSync(dir, { recursive: true });
  const t0 = Date.parse('2025-01-01T00:00:00Z');
  for (let i = 0; i < n; i++) {
    const at = new Date(t0 + i * 60_000).toISOString();
    const fm: Record<string, unknown> = { title: i === 0 ? 'The answer of turn 42' : `Note ${i}`, impressions: [`topic ${i % 40}`], tags: i % 9 === 0 ? ['复盘'] : [], enabled: true, createdAt: at, updatedAt: at };
    if (i === 0) fm.source = { sessionId: LONG_SESSION, seqs: [84] };
    const body = ['---', ...Object.entries(fm).map(([k, v]) => `${k}: ${JSON.stringify(v)}`), '---', '## 快照', '', i === 0 ? 'answer number 42' : `Memory ${i}: ${'words '.repeat(8 + (i % 30))}`, '', '<!-- notes -->', ''].join('\n');
    writeFileSync(join(dir, `${memId(i)}.md`), body);
  }
}
