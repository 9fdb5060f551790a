import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ValidationError } from '../spec/index.js';
import { TextLog } from './text-log.js';

const dirs: string[] = [];
const logs: TextLog[] = [];
afterEach(async () => {
  for (const l of logs.splice(0)) await l.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function openLog(opts: { rotateBytes?: number; keepFiles?: number; dir?: string } = {}) {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ha-textlog-'));
  if (!opts.dir) dirs.push(dir);
  const warnings: string[] = [];
  let t = 0;
  const log = new TextLog({ file: path.join(dir, 'logs', 'text.jsonl'), rotateBytes: opts.rotateBytes, keepFiles: opts.keepFiles, now: () => ++t, logger: { warn: (m) => warnings.push(m) } });
  await log.open();
  logs.push(log);
  return { log, dir, logsDir: path.join(dir, 'logs'), warnings };
}

describe('TextLog', () => {
  test('appends records and reads the newest back in order', async () => {
    const { log, logsDir } = await openLog();
    await log.append({ role: 'user', text: '你好', sessionId: 'webui:a', turnId: 'webui:a#1', channel: 'webui', extra: 'dropped' } as never);
    await log.append({ role: 'assistant', text: 'hi', sessionId: 'webui:a' });
    await log.append({ role: 'user', text: 'other', sessionId: 'cli:b' });
    assert.deepEqual(
      (await log.read()).map((x) => x.text),
      ['你好', 'hi', 'other'],
    );
    assert.deepEqual(
      (await log.read({ limit: 2 })).map((x) => x.text),
      ['hi', 'other'],
    );
    assert.deepEqual(
      (await log.read({ sessionId: 'webui:a' })).map((x) => x.role),
      ['user', 'assistant'],
    );
    const lines = fs.readFileSync(path.join(logsDir, 'text.jsonl'), 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 3);
    assert.deepEqual(JSON.parse(lines[0]), { role: 'user', text: '你好', sessionId: 'webui:a', turnId: 'webui:a#1', channel: 'webui', at: 1 });
  });

  test('rotation by size keeps N rotated files and read spans them', async () => {
    const { log, logsDir } = await openLog({ rotateBytes: 200, keepFiles: 3 });
    const n = 40;
    for (let i = 0; i < n; i++) await log.append({ role: i % 2 ? 'assistant' : 'user', text: `message number ${i} `.padEnd(60, '.') });
    const names = fs.readdirSync(logsDir).sort();
    assert.deepEqual(names, ['text.1.jsonl', 'text.2.jsonl', 'text.3.jsonl', 'text.jsonl']);
    for (const name of names) assert.ok(fs.statSync(path.join(logsDir, name)).size <= 200, name);
    // the newest records are all there and in order, across files
    const recent = await log.read({ limit: 6 });
    assert.deepEqual(
      recent.map((r) => r.text.split(' ')[2]),
      ['34', '35', '36', '37', '38', '39'],
    );
    const all = await log.read({ limit: 1000 });
    const numbers = all.map((r) => Number(r.text.split(' ')[2]));
    assert.ok(numbers.length < n, 'old files were dropped');
    assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b));
    assert.equal(numbers[numbers.length - 1], n - 1);
    // lowering keepFiles applies at the next rotation
    log.setLimits({ keepFiles: 1 });
    for (let i = 0; i < 4; i++) await log.append({ role: 'user', text: 'x'.repeat(80) });
    assert.deepEqual(fs.readdirSync(logsDir).sort(), ['text.1.jsonl', 'text.jsonl']);
  });

  test('a torn last line is cut off on open, appends continue cleanly', async () => {
    const { log, dir, logsDir } = await openLog();
    await log.append({ role: 'user', text: 'kept' });
    await log.close();
    fs.appendFileSync(path.join(logsDir, 'text.jsonl'), '{"role":"assistant","te');
    const { log: again, warnings } = await openLog({ dir });
    assert.ok(warnings.some((w) => /torn/.test(w)));
    await again.append({ role: 'assistant', text: 'after' });
    assert.deepEqual(
      (await again.read()).map((r) => r.text),
      ['kept', 'after'],
    );
  });

  test('bad records and options are rejected', async () => {
    const { log } = await openLog();
    await assert.rejects(log.append({ role: 'robot' as 'user', text: 'x' }), ValidationError);
    await assert.rejects(log.append({ role: 'user', text: 5 as unknown as string }), /text/);
    await assert.rejects(log.read({ limit: 0 }), ValidationError);
    assert.throws(() => log.setLimits({ rotateBytes: -1 }), ValidationError);
    assert.throws(() => new TextLog({ file: '/tmp/x.jsonl', keepFiles: 0 }));
    const closed = new TextLog({ file: '/tmp/never.jsonl' });
    await assert.rejects(closed.append({ role: 'user', text: 'x' }), /not open/);
  });
});
