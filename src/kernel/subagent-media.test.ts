import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { OutputMessage } from '../spec/index.js';
import { Cap } from '../spec/index.js';
import { harness, recordingTool } from './__fixtures__/kernel-harness.js';

// C-10 sub-agents and C-11 media tools, through whole turns.

test('C-10: a sub-agent gets its own prompt and a restricted tool set; its answer is the tool result', async (t) => {
  const h = await harness(t);
  const sent: OutputMessage[] = [];
  h.agent.channels.register('notify-plugin', 'notify', Cap.Text, 'Push notes.', (m) => void sent.push(m));
  const allowed = recordingTool('allowed_tool', () => 'allowed result');
  const other = recordingTool('other_tool');
  h.agent.stages.registerTool(allowed, 'p');
  h.agent.stages.registerTool(other, 'p');
  h.fake.enqueue(
    { toolCalls: [{ name: 'subagent_spawn', arguments: { task: 'SUB TASK: summarise', instructions: 'SUB PROMPT', tools: ['allowed_tool'] } }] },
    { toolCalls: [{ name: 'allowed_tool', arguments: {} }, { name: 'other_tool', arguments: {} }, { name: 'output_send__notify', arguments: { payload: 'from the sub-agent' } }] },
    { text: 'SUB RESULT' },
    { text: 'main final answer' },
  );
  const out = await h.send('delegate this');
  assert.equal(out.text, 'main final answer');
  assert.equal(h.fake.requests.length, 4);
  // request 1 is the sub-agent's: its own system prompt and task, restricted tools
  const sub = h.requestMessages(1);
  assert.deepEqual(
    sub.map((m) => [m.role, m.content]),
    [
      ['system', 'SUB PROMPT'],
      ['user', 'SUB TASK: summarise'],
    ],
  );
  assert.deepEqual(h.requestTools(1).sort(), ['allowed_tool', 'output_send__notify', 'output_send__notify_help']);
  assert.ok(h.requestTools(0).includes('other_tool') && h.requestTools(0).includes('subagent_spawn'));
  // the sub-agent's unlisted tool call was refused and not run; the listed and channel tools ran
  const subTools = h.requestMessages(2).filter((m) => m.role === 'tool');
  assert.deepEqual(
    subTools.map((m) => m.content),
    ['allowed result', 'Error: tool "other_tool" is not available to this sub-agent', 'sent to notify'],
  );
  assert.equal(allowed.calls.length, 1);
  assert.equal(other.calls.length, 0);
  assert.equal(sent[0].payload, 'from the sub-agent');
  // the main loop got the sub-agent's final text as the tool result
  assert.equal(h.requestMessages(3).find((m) => m.role === 'tool')?.content, 'SUB RESULT');
  const subChain = h.events('agent_llm_chain').filter((c) => c.turnId.startsWith(`${out.turnId}/sub-`));
  assert.equal(subChain.length, 2);
});

test('C-10: sub-agents cannot spawn sub-agents and are bounded by core.subagent.max_rounds', async (t) => {
  const h = await harness(t, { config: { 'core.subagent.max_rounds': 2 } });
  h.fake.enqueue(
    { toolCalls: [{ name: 'subagent_spawn', arguments: { task: 'loop' } }] },
    { toolCalls: [{ name: 'subagent_spawn', arguments: { task: 'recurse' } }] },
    { toolCalls: [{ name: 'subagent_spawn', arguments: { task: 'recurse again' } }] },
    { text: 'main done' },
  );
  const out = await h.send('go');
  assert.equal(out.text, 'main done');
  assert.equal(h.fake.requests.length, 4);
  assert.ok(!h.requestTools(1).includes('subagent_spawn'));
  assert.equal(h.requestMessages(2).find((m) => m.role === 'tool')?.content, 'Error: tool "subagent_spawn" is not available to this sub-agent');
  assert.match(String(h.requestMessages(3).find((m) => m.role === 'tool')?.content), /stopped after 2 rounds/);
});

test('C-10/C-4: a sub-agent\'s tool calls pass before_toolcall and after_toolcall (no audit bypass)', async (t) => {
  const h = await harness(t);
  const danger = recordingTool('danger');
  const lookup = recordingTool('lookup', (a) => `secret for ${a.x}`);
  h.agent.stages.registerTool(danger, 'p');
  h.agent.stages.registerTool(lookup, 'p');
  h.agent.stages.registerStage('before_toolcall', (c) => {
      if (c.toolCall?.name === 'danger') c.rejected = 'danger is audited';
      if (c.toolCall?.name === 'lookup') c.args = { x: 'rewritten' };
    }, 'audit');
  h.agent.stages.registerStage('after_toolcall', (c) => void (c.result = c.result?.replace('secret', '[redacted]')), 'redact');
  h.fake.enqueue(
    { toolCalls: [{ name: 'subagent_spawn', arguments: { task: 'use tools', tools: ['danger', 'lookup'] } }] },
    { toolCalls: [{ name: 'danger', arguments: {} }, { name: 'lookup', arguments: { x: 'orig' } }] },
    { text: 'sub done' },
    { text: 'main done' },
  );
  await h.send('go');
  assert.equal(danger.calls.length, 0);
  assert.deepEqual(lookup.calls, [{ x: 'rewritten' }]);
  assert.deepEqual(
    h
      .requestMessages(2)
      .filter((m) => m.role === 'tool')
      .map((m) => m.content),
    ['Rejected: danger is audited', '[redacted] for rewritten'],
  );
});

test('C-10: a sub-agent without a task is reported as a tool error', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ toolCalls: [{ name: 'subagent_spawn', arguments: { task: '  ' } }] }, { text: 'ok' });
  await h.send('go');
  assert.match(String(h.requestMessages(1).find((m) => m.role === 'tool')?.content), /^Error \[VALIDATION\w*\]: task is required/);
});

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

test('C-11: media tools are offered only while the input has attachments; media_save writes the bytes', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ text: 'no media here' });
  await h.send('plain text');
  assert.ok(!h.requestTools(0).some((n) => n.startsWith('media_')));
  h.fake.enqueue({ toolCalls: [{ name: 'media_save', arguments: { index: 0, name: 'holiday' } }] }, { text: 'saved' });
  const out = await h.send('keep this photo', { attachments: [{ mimeType: 'image/png', name: 'IMG_1.png', data: PNG.toString('base64') }] });
  assert.equal(out.text, 'saved');
  assert.deepEqual(h.requestTools(1).filter((n) => n.startsWith('media_')).sort(), ['media_describe', 'media_forward', 'media_save']);
  const file = path.join(h.home, 'media', 'holiday.png');
  assert.equal(h.requestMessages(2).find((m) => m.role === 'tool')?.content, `saved to ${file}`);
  assert.deepEqual(fs.readFileSync(file), PNG);
  // the attachment is gone next turn, and so are the tools
  h.fake.enqueue({ text: 'x' });
  await h.send('and now?');
  assert.ok(!h.requestTools(3).some((n) => n.startsWith('media_')));
});

test('C-11: media_save never overwrites: a second save of the same name (even in the same step) gets "name (2).png"', async (t) => {
  const h = await harness(t);
  const media = path.join(h.home, 'media');
  fs.mkdirSync(media, { recursive: true });
  fs.writeFileSync(path.join(media, 'holiday.png'), 'EARLIER PHOTO');
  const other = Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9, 9]);
  h.fake.enqueue(
    { toolCalls: [{ name: 'media_save', arguments: { index: 0, name: 'holiday' } }, { name: 'media_save', arguments: { index: 1, name: 'holiday' } }] },
    { text: 'saved both' },
  );
  await h.send('keep these', {
    attachments: [
      { mimeType: 'image/png', data: PNG.toString('base64') },
      { mimeType: 'image/png', data: other.toString('base64') },
    ],
  });
  const results = h.requestMessages(1).filter((m) => m.role === 'tool').map((m) => String(m.content).replace(/^saved to /, ''));
  assert.deepEqual(results.map((r) => path.basename(r)).sort(), ['holiday (2).png', 'holiday (3).png']);
  assert.equal(fs.readFileSync(path.join(media, 'holiday.png'), 'utf8'), 'EARLIER PHOTO');
  assert.deepEqual(results.map((r) => fs.readFileSync(r)).sort(Buffer.compare), [other, PNG].sort(Buffer.compare));
  assert.deepEqual(fs.readdirSync(media).sort(), ['holiday (2).png', 'holiday (3).png', 'holiday.png'], 'no temp files left');
});

test('C-11: media_save keeps the file inside the media folder whatever name the model gives', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ toolCalls: [{ name: 'media_save', arguments: { name: '../../escape' } }] }, { text: 'ok' });
  await h.send('save', { attachments: [{ mimeType: 'image/png', data: PNG.toString('base64') }] });
  const result = String(h.requestMessages(1).find((m) => m.role === 'tool')?.content);
  const saved = result.replace(/^saved to /, '');
  assert.equal(path.dirname(saved), path.join(h.home, 'media'));
  assert.ok(fs.existsSync(saved));
  assert.ok(!fs.existsSync(path.join(h.home, '..', 'escape.png')));
});

test('C-11: media_describe asks the LLM with the image; media_forward sends it to a channel; a bad index is an error', async (t) => {
  const h = await harness(t);
  const got: OutputMessage[] = [];
  h.agent.channels.register('p', 'album', Cap.Text | Cap.Image, 'Photo album.', (m) => void got.push(m));
  h.fake.enqueue(
    { toolCalls: [{ name: 'media_describe', arguments: { question: 'what is it?' } }, { name: 'media_forward', arguments: { channel: 'album' } }, { name: 'media_save', arguments: { index: 5 } }] },
    { text: 'A red square.' },
    { text: 'described and forwarded' },
  );
  const out = await h.send('look', { attachments: [{ mimeType: 'image/png', name: 'sq.png', data: PNG.toString('base64') }] });
  assert.equal(out.text, 'described and forwarded');
  const describeReq = JSON.stringify(h.fake.requests[1].body);
  assert.match(describeReq, /what is it\?/);
  assert.ok(describeReq.includes(PNG.toString('base64')), 'the image travels with the describe request');
  const results = h.requestMessages(2).filter((m) => m.role === 'tool').map((m) => m.content);
  assert.equal(results[0], 'A red square.');
  assert.equal(results[1], 'forwarded to album');
  assert.match(String(results[2]), /no pending media at index 5/);
  assert.equal(got[0].type, 'image');
  assert.equal(got[0].payload, PNG.toString('base64'));
  assert.equal(got[0].meta.mimeType, 'image/png');
});
