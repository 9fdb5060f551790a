import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OutputMessage } from '../spec/index.js';
import { Cap } from '../spec/index.js';
import { harness, until } from './__fixtures__/kernel-harness.js';
import { NOTICES_SESSION } from './agent.js';

function channel(h: Awaited<ReturnType<typeof harness>>, name: string, opts: { push?: boolean; fail?: boolean } = {}): OutputMessage[] {
  const got: OutputMessage[] = [];
  h.agent.channels.register(name, name, Cap.Text, `${name} chat`, (m) => {
    if (opts.fail) throw new Error(`${name} is unreachable`);
    got.push(m);
  }, { push: opts.push });
  return got;
}

test("R-6: a timer's reply (a system input from a source without an output channel) reaches the owner's default channel", async (t) => {
  const h = await harness(t);
  const webui = channel(h, 'webui');
  const telegram = channel(h, 'telegram', { push: true });
  h.fake.enqueue({ text: 'Time to stretch your legs!' });
  const out = await h.agent.injectInput({ sessionId: 'webui:s1', source: 'timer', text: '[timer t1] stretch', trigger: 'system' }).done;
  assert.equal(out.status, 'ok');
  assert.deepEqual(webui.map((m) => [m.sessionId, m.payload, m.meta.proactive, m.meta.source]), [['webui:s1', 'Time to stretch your legs!', true, 'timer']]);
  assert.equal(telegram.length, 0);
  assert.match(String(h.requestMessages(0)[0].content), /started by timer[\s\S]*delivered to the owner proactively/);
  // The owner chooses Telegram: the next one goes there (its handler gets a session that is not its own chat).
  await h.config.set('core.notify.channel', 'telegram');
  h.fake.enqueue({ text: 'Water the plants.' });
  await h.agent.injectInput({ sessionId: 'webui:s1', source: 'timer', text: '[timer t2] plants', trigger: 'system' }).done;
  assert.deepEqual(telegram.map((m) => [m.sessionId, m.payload, m.meta.proactive]), [['webui:s1', 'Water the plants.', true]]);
  assert.equal(webui.length, 1);
});

test('R-6: a reminder set in a chat that can push is answered in that chat; a failing default falls back to the WebUI', async (t) => {
  const h = await harness(t);
  const webui = channel(h, 'webui');
  const qq = channel(h, 'qq', { push: true });
  channel(h, 'telegram', { push: true, fail: true });
  await h.config.set('core.notify.channel', 'telegram');
  // The session was created by a QQ chat; the timer fires later in it.
  h.fake.enqueue({ text: 'noted' }, { text: 'Meeting in 10 minutes!' });
  await h.send('remind me', { sessionId: 'qq:private:1', source: 'qq' });
  await h.agent.injectInput({ sessionId: 'qq:private:1', source: 'timer', text: '[timer t3] meeting', trigger: 'system' }).done;
  assert.deepEqual(qq.map((m) => [m.payload, m.meta.proactive ?? false]), [['noted', false], ['Meeting in 10 minutes!', true]]);
  // A WebUI session's timer: Telegram (the default) fails, the WebUI takes it; the failure is logged.
  h.fake.enqueue({ text: 'Lunch!' });
  await h.agent.injectInput({ sessionId: 'webui:s2', source: 'timer', text: '[timer t4] lunch', trigger: 'system' }).done;
  assert.deepEqual(webui.map((m) => m.payload), ['Lunch!']);
  assert.ok(h.log.some((l) => /could not go through telegram: telegram is unreachable/.test(l.msg)));
});

test('R-6: a user input from a source without an output channel (an API client) is not pushed anywhere', async (t) => {
  const h = await harness(t);
  const webui = channel(h, 'webui');
  h.fake.enqueue({ text: 'answer for the API client' });
  const out = await h.agent.injectInput({ sessionId: 'api:1', source: 'openai', text: 'hi' }).done;
  assert.equal(out.text, 'answer for the API client');
  assert.equal(webui.length, 0);
});

test('R-6: notify() records a notice in system:notices and delivers it without an LLM call; bad notices are refused', async (t) => {
  const h = await harness(t);
  const webui = channel(h, 'webui');
  const r = await h.agent.notify({ text: 'HomeAgent health: degraded — plugin qq failed', source: 'healthcheck' });
  assert.equal(r.channel, 'webui');
  assert.deepEqual(webui.map((m) => [m.sessionId, m.payload, m.meta.notice, m.meta.source]), [[NOTICES_SESSION, 'HomeAgent health: degraded — plugin qq failed', true, 'healthcheck']]);
  const log = await h.sessionLog(NOTICES_SESSION);
  assert.deepEqual(log.map((e) => [e.kind, e.text]), [['system', 'HomeAgent health: degraded — plugin qq failed']]);
  assert.equal(h.fake.requests.length, 0);
  await assert.rejects(h.agent.notify({ text: '  ', source: 'x' }), { code: 'VALIDATION' });
  await assert.rejects(h.agent.notify({ text: 'x', source: 'bad source!' }), { code: 'VALIDATION' });
  await assert.rejects(h.agent.notify({ text: 'x', source: 'x', sessionId: '../etc' }), { code: 'VALIDATION' });
  // No channel at all: recorded, reported as undelivered, never thrown.
  const h2 = await harness(t);
  assert.deepEqual(await h2.agent.notify({ text: 'nobody listens', source: 'healthcheck' }), { channel: undefined });
  await until(() => h2.log.some((l) => /reached no channel/.test(l.msg)), 'the warning');
});
