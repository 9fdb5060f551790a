import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OutputMessage } from '../spec/index.js';
import { Cap, ConflictError, NotFoundError, ValidationError } from '../spec/index.js';
import { OutputChannels, splitMessage, typesFor } from './output-channels.js';

const call = { sessionId: 'webui:s1', turnId: 'webui:s1#3', callId: 'c1', signal: new AbortController().signal };

test('P-6: splitMessage keeps short text whole and never exceeds the limit', () => {
  assert.deepEqual(splitMessage('short', 100), ['short']);
  assert.deepEqual(splitMessage('anything', 0), ['anything']);
  const para = 'First paragraph is here.\n\nSecond paragraph follows and is longer than the first one.';
  const parts = splitMessage(para, 40);
  assert.ok(parts.length >= 2);
  for (const p of parts) assert.ok(p.length <= 40, `piece too long: ${p.length}`);
  assert.equal(parts[0], 'First paragraph is here.');
  // no boundary at all: hard cut, nothing lost
  const blob = 'x'.repeat(95);
  const hard = splitMessage(blob, 30);
  assert.deepEqual(
    hard.map((p) => p.length),
    [30, 30, 30, 5],
  );
  assert.equal(hard.join(''), blob);
  // Chinese sentence boundary
  const zh = '今天天气很好。我们去公园散步吧。然后回家吃饭。';
  const zparts = splitMessage(zh, 16);
  assert.equal(zparts.join(''), zh);
  assert.ok(zparts[0].endsWith('。'));
});

test('P-6: typesFor maps capability flags', () => {
  assert.deepEqual(typesFor(Cap.Text), ['text']);
  assert.deepEqual(typesFor(Cap.Text | Cap.Image | Cap.Structured), ['text', 'image', 'structured']);
});

test('P-6: register validates name, caps and duplicates', () => {
  const ch = new OutputChannels();
  const h = () => {};
  assert.throws(() => ch.register('p', 'Bad Name', Cap.Text, 'd', h), ValidationError);
  assert.throws(() => ch.register('p', 'ok', 0, 'd', h), ValidationError);
  assert.throws(() => ch.register('p', 'ok', 64, 'd', h), ValidationError);
  const dispose = ch.register('p', 'ok', Cap.Text, 'd', h);
  assert.throws(() => ch.register('q', 'ok', Cap.Text, 'd', h), ConflictError);
  dispose();
  dispose();
  assert.equal(ch.list().length, 0);
});

test('P-6: send splits long text by maxMessageLength and numbers the parts', async () => {
  const ch = new OutputChannels();
  const got: OutputMessage[] = [];
  ch.register('p', 'qq', Cap.Text, 'QQ chat', (m) => void got.push(m), { maxMessageLength: 20 });
  const n = await ch.send('qq', { sessionId: 's', payload: 'one two three four five six seven eight nine', type: 'text', meta: { to: 1 } });
  assert.equal(n, got.length);
  assert.ok(n >= 3);
  for (const m of got) assert.ok(m.payload.length <= 20);
  assert.deepEqual(got[0].meta, { to: 1, part: 1, parts: n });
  assert.equal(got.map((m) => m.payload).join(' '), 'one two three four five six seven eight nine');
});

test('P-6: a type the channel caps do not allow is refused; unknown channel is NotFound', async () => {
  const ch = new OutputChannels();
  const got: OutputMessage[] = [];
  ch.register('p', 'textonly', Cap.Text, 'd', (m) => void got.push(m));
  await assert.rejects(ch.send('textonly', { sessionId: 's', payload: 'AAAA', type: 'image', meta: {} }), ValidationError);
  await assert.rejects(ch.send('nope', { sessionId: 's', payload: 'x', type: 'text', meta: {} }), NotFoundError);
  assert.equal(got.length, 0);
});

test('P-6: output_send__x and output_send__x_help tools are generated and route through the channel', async () => {
  const ch = new OutputChannels();
  const got: OutputMessage[] = [];
  ch.register('p', 'mail', Cap.Text | Cap.File, 'Sends e-mail.', (m) => void got.push(m), { maxMessageLength: 500 });
  const tools = ch.tools(() => 'fallback:1');
  assert.deepEqual(
    tools.map((t) => t.name),
    ['output_send__mail', 'output_send__mail_help'],
  );
  const send = tools[0];
  assert.deepEqual((send.parameters.properties as { type: { enum: string[] } }).type.enum, ['text', 'file']);
  assert.equal(await send.handler({ payload: 'hello', meta: '{"to":"a@b"}' }, call), 'sent to mail');
  assert.deepEqual(got[0], { sessionId: 'webui:s1', turnId: 'webui:s1#3', payload: 'hello', type: 'text', meta: { to: 'a@b' } });
  // meta may route to another session
  await send.handler({ payload: 'x', meta: '{"sessionId":"cli:other"}' }, call);
  assert.equal(got[1].sessionId, 'cli:other');
  // bad meta → a ValidationError the model sees
  await assert.rejects(Promise.resolve(send.handler({ payload: 'x', meta: 'not json' }, call)), ValidationError);
  await assert.rejects(Promise.resolve(send.handler({ payload: 'x', meta: '[1]' }, call)), ValidationError);
  // type not allowed by caps
  await assert.rejects(Promise.resolve(send.handler({ payload: 'x', type: 'audio' }, call)), ValidationError);
  const help = String(await tools[1].handler({}, call));
  assert.match(help, /mail/);
  assert.match(help, /text, file/);
  assert.match(help, /500/);
});

test('P-6: custom help text wins', async () => {
  const ch = new OutputChannels();
  ch.register('p', 'x', Cap.Text, 'd', () => {}, { help: 'CUSTOM HELP' });
  assert.equal(await ch.tools(() => 's')[1].handler({}, call), 'CUSTOM HELP');
});

test('P-6: gating rules name every channel with its types, and are absent without channels', () => {
  const ch = new OutputChannels();
  assert.equal(ch.rules(), undefined);
  ch.register('p', 'webui', Cap.Text | Cap.Image, 'The web chat.', () => {});
  ch.register('p', 'timer', Cap.Text, 'Scheduled notes.', () => {});
  const rules = ch.rules() ?? '';
  assert.match(rules, /delivered automatically/);
  assert.match(rules, /output_send__<channel>/);
  assert.match(rules, /- webui \(text\/image\): The web chat\./);
  assert.match(rules, /- timer \(text\): Scheduled notes\./);
});

test('P-6: splitMessage closes a code block cut in two and reopens it with its language; never splits a surrogate pair', () => {
  const code = Array.from({ length: 30 }, (_, i) => `  const line${i} = compute(${i});`).join('\n');
  const text = `Here is the fix:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThat is all.`;
  const parts = splitMessage(text, 300);
  assert.ok(parts.length >= 3);
  for (const p of parts) {
    assert.ok(p.length <= 300, `piece too long: ${p.length}`);
    const fences = p.split('\n').filter((l) => l.startsWith('```')).length;
    assert.equal(fences % 2, 0, `unbalanced fences in a piece:\n${p}`);
  }
  assert.ok(parts[1].startsWith('```ts\n'), 'the next piece reopens the block with its language');
  // Indentation inside the code survives, and every code line arrives exactly once.
  const lines = parts.join('\n').split('\n').filter((l) => l.startsWith('  const line'));
  assert.deepEqual(lines, code.split('\n'));
  assert.ok(parts.at(-1)!.endsWith('That is all.'));
  // Emoji are surrogate pairs: a hard cut never separates their halves.
  const emoji = '😀'.repeat(50);
  for (const p of splitMessage(emoji, 15)) assert.ok(!/[\ud800-\udbff]$/.test(p) && !/^[\udc00-\udfff]/.test(p));
  assert.equal(splitMessage(emoji, 15).join(''), emoji);
  // Words are not broken when a space is near.
  for (const p of splitMessage('alpha beta gamma delta epsilon zeta eta theta iota kappa', 20)) assert.match(p, /^[a-z]+( [a-z]+)*$/);
});
