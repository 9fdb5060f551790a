import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CliStreamEvent } from '../spec/index.js';
import { streamPrinter } from './stream-printer.js';

const ev = (event: string, data: Record<string, unknown>) => ({ event, data }) as CliStreamEvent;

test('the answer starts on its own line after the reasoning; no colour codes when stderr is not a terminal', () => {
  const lines: string[] = [];
  const sink = { out: (t: string) => void lines.push(`out:${t}`), err: (t: string) => void lines.push(`err:${t}`) };
  const print = streamPrinter(sink, false);
  for (const e of [ev('reasoning', { text: 'thinking about it' }), ev('delta', { text: 'Noted.' }), ev('tool_start', { name: 'x', arguments: '{}' }), ev('tool_end', { result: 'ok' })]) print(e);
  assert.deepEqual(lines, ['err:thinking about it', 'err:\n', 'out:Noted.', 'err:\n→ x({})\n', 'err:← ok\n']);
  assert.ok(lines.every((l) => !l.includes('\x1b')));
  const tty: string[] = [];
  streamPrinter({ out: () => {}, err: (t) => void tty.push(t), errTty: true }, false)(ev('reasoning', { text: 'hm' }));
  assert.deepEqual(tty, ['\x1b[2mhm\x1b[0m']);
});
