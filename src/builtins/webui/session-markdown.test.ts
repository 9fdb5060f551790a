import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportFileName, sessionMarkdown } from './session-markdown.js';

const info = { id: 'qq:group:5', channel: 'qq', title: '家庭群 / plans', createdAt: Date.UTC(2026, 0, 2, 8, 0), updatedAt: 0, turns: 2, lastSeq: 6 };

test('a session as Markdown: speakers, files, tool calls fenced safely, replies and errors', () => {
  const md = sessionMarkdown(
    info,
    [
      { seq: 1, turnId: 'qq:group:5#1', kind: 'user', at: Date.UTC(2026, 0, 2, 8, 1), text: 'what is for dinner?', data: { speaker: { id: 'qq:1', name: 'Alice' }, attachments: [{ name: 'menu.pdf', path: 'media/2026-01-02/menu.pdf' }] } },
      { seq: 2, turnId: 'qq:group:5#1', kind: 'tool_call', at: 0, text: 'lookup', data: { arguments: 'has ``` fences' } },
      { seq: 3, turnId: 'qq:group:5#1', kind: 'tool_result', at: 0, text: 'noodles' },
      { seq: 4, turnId: 'qq:group:5#1', kind: 'assistant', at: 0, text: 'Noodles.' },
      { seq: 5, turnId: 'qq:group:5#2', kind: 'user', at: Date.UTC(2026, 0, 2, 9, 0), text: 'and tomorrow?' },
      { seq: 6, turnId: 'qq:group:5#2', kind: 'error', at: 0, text: 'no provider', data: { code: 'NO_PROVIDER_CONFIGURED' } },
    ],
    Date.UTC(2026, 0, 3),
    'UTC',
  );
  assert.match(md, /^# 家庭群 \/ plans\n/);
  assert.match(md, /## 1\. Alice · 2026-01-02 08:01\n\nwhat is for dinner\?/);
  assert.match(md, /📎 menu\.pdf \(`media\/2026-01-02\/menu\.pdf`\)/);
  assert.match(md, /````\nhas ``` fences\n````/, 'a fence longer than any run of backticks inside');
  assert.match(md, /\*\*HomeAgent:\*\*\n\nNoodles\./);
  assert.match(md, /## 2\. You · 2026-01-02 09:00/);
  assert.match(md, /> Error \(NO_PROVIDER_CONFIGURED\): no provider/);
  assert.equal(exportFileName(info), '家庭群-plans.md');
  assert.equal(exportFileName({ ...info, title: '' }), 'qq-group-5.md');
  assert.equal(exportFileName({ ...info, title: '../../' }), 'session.md');
});

test('decision 0270: the exported chat shows the person’s wall clock and names the zone', () => {
  // 23:30 UTC on 1 January is 07:30 on 2 January in Shanghai.
  const at = Date.UTC(2026, 0, 1, 23, 30);
  const md = sessionMarkdown({ ...info, createdAt: at }, [{ seq: 1, turnId: 'qq:group:5#1', kind: 'user', at, text: 'good morning' }], Date.UTC(2026, 0, 2, 4, 0), 'Asia/Shanghai');
  assert.match(md, /^- Started: 2026-01-02 07:30 UTC\+08:00$/m);
  assert.match(md, /^- Exported: 2026-01-02 12:00 UTC\+08:00$/m);
  assert.match(md, /^- Times: Asia\/Shanghai$/m);
  assert.match(md, /## 1\. You · 2026-01-02 07:30\n\ngood morning/);
});

test('a failed reply (the log holds its error message as the reply too) is written once, as the error', () => {
  const md = sessionMarkdown(
    info,
    [
      { seq: 1, turnId: 'qq:group:5#1', kind: 'user', at: Date.UTC(2026, 0, 2, 8, 1), text: 'hello' },
      { seq: 2, turnId: 'qq:group:5#1', kind: 'assistant', at: 0, text: 'No LLM provider is configured.', data: { status: 'error' } },
      { seq: 3, turnId: 'qq:group:5#1', kind: 'error', at: 0, text: 'No LLM provider is configured.', data: { code: 'NO_PROVIDER_CONFIGURED' } },
      { seq: 4, turnId: 'qq:group:5#2', kind: 'user', at: Date.UTC(2026, 0, 2, 8, 2), text: 'again' },
      { seq: 5, turnId: 'qq:group:5#2', kind: 'assistant', at: 0, text: 'Here.' },
    ],
    Date.UTC(2026, 0, 3),
    'UTC',
  );
  assert.equal(md.split('No LLM provider is configured.').length - 1, 1, md);
  assert.match(md, /> Error \(NO_PROVIDER_CONFIGURED\): No LLM provider is configured\./);
  assert.doesNotMatch(md, /hello\n\n\*\*HomeAgent:\*\*/);
  assert.match(md, /\*\*HomeAgent:\*\*\n\nHere\./);
});
