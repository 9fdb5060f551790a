/**
 * Files sent to the agent, end to end (C-11, issue 14): `waiter send --file` over the real socket
 * of an in-process daemon; the fake LLM server speaks OpenAI chat completions and
 * `/v1/audio/transcriptions`. Text, PDF and audio reach the model (audio as its transcript when a
 * source offers speech to text, else as a note the model must pass on); the files are kept.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import { makePdf } from './fixtures/make-pdf.js';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { main } from '../src/waiter/main.js';

let fake: FakeLlm;
let d: Daemon;
let home: string;
let files: string;

before(async () => {
  fake = await startFakeLlm();
  home = mkdtempSync(join(tmpdir(), 'ha-att-'));
  files = mkdtempSync(join(tmpdir(), 'ha-att-files-'));
  writeFileSync(join(files, 'notes.md'), '# Packing list\n- passport\n- umbrella\n');
  writeFileSync(join(files, 'report.pdf'), makePdf([['Budget 2027', 'Rent: 1200 per month'], ['Savings goal: 5000']]));
  writeFileSync(join(files, 'voice.wav'), Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(2000, 7)]));
  d = await startTestDaemon({
    homeDir: home,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, OPENAI_API_KEY: 'sk-att-test-key-0001', OPENAI_BASE_URL: `${fake.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' },
    webuiPort: 0,
    heartbeats: false,
  });
  await d.providers.setOrder(['openai']);
});
after(async () => {
  await d.stop();
  await fake.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(files, { recursive: true, force: true });
});

async function send(session: string, text: string, ...attach: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const args = attach.flatMap((f) => ['-f', join(files, f)]);
  const code = await main(['node', 'waiter', '--home', home, 'send', '--no-stream', '-s', session, ...args, text], { out: (t) => void (out += t), err: (t) => void (err += t) });
  process.exitCode = undefined;
  return { code, out, err };
}
const lastUserMessage = () => {
  const chats = fake.requests.filter((r) => r.path === '/v1/chat/completions');
  const msgs = chats.at(-1)!.body.messages as { role: string; content: unknown }[];
  return String(msgs.filter((m) => m.role === 'user').at(-1)!.content);
};

test('text, Markdown, PDF and audio reach the model; the audio is transcribed by the OpenAI source; the files are kept', async () => {
  fake.setTranscription((a) => `please remember to water the plants (${a.name}, ${a.fields.model})`);
  fake.enqueue({ text: 'Got your files.' });
  const r = await send('cli:files', 'what is in these?', 'notes.md', 'report.pdf', 'voice.wav');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /Got your files\./);
  const msg = lastUserMessage();
  assert.match(msg, /^what is in these\?/);
  assert.match(msg, /# Packing list\n- passport\n- umbrella/);
  assert.match(msg, /report\.pdf — PDF, 2 pages/);
  assert.match(msg, /Budget 2027\nRent: 1200 per month\n\nSavings goal: 5000/);
  assert.match(msg, /voice\.wav — audio \(audio\/wav\), 2\.0 KiB, transcribed by openai \(whisper-1\)/);
  assert.match(msg, /please remember to water the plants \(voice\.wav, whisper-1\)/);
  const stt = fake.requests.find((q) => q.format === 'transcription')!;
  assert.equal(stt.path, '/v1/audio/transcriptions');
  assert.equal(stt.headers.authorization, 'Bearer sk-att-test-key-0001');
  assert.equal(stt.body.file.name, 'voice.wav');
  assert.equal(stt.body.file.size, 2004);

  // Kept in the data folder, named in the session log.
  const events = await d.sessions.events('cli:files');
  const user = events.find((e) => e.kind === 'user')!;
  const atts = (user.data as { attachments: { name: string; path: string; kind: string }[] }).attachments;
  assert.deepEqual(atts.map((a) => a.kind), ['text', 'pdf', 'audio']);
  for (const a of atts) assert.ok(existsSync(join(home, a.path)), a.path);
  assert.deepEqual(readFileSync(join(home, atts[1].path)), readFileSync(join(files, 'report.pdf')));
});

test('no source that offers speech to text: the model is told, and says so; a source naming a transcription model then transcribes; a failing one is reported', async () => {
  await d.config.set('core.llm.sources.openai.enabled', false);
  await d.providers.addSource({ name: 'local', baseUrl: `${fake.url}/v1`, apiKey: 'sk-local-000000000', model: 'fake-model' });
  try {
    fake.setDefault((req) => ({ text: /not transcribed/.test(JSON.stringify(req.body)) ? 'Sorry, I could not transcribe your recording.' : 'ok' }));
    const r = await send('cli:voice', '', 'voice.wav');
    assert.equal(r.code, 0, r.err);
    assert.match(lastUserMessage(), /It was not transcribed: no configured LLM source offers speech to text\. Tell the person/);
    assert.match(r.out, /could not transcribe/, 'the agent says so');

    await d.providers.updateSource('local', { options: { transcription_model: 'whisper-large-v3' } });
    fake.setTranscription(() => 'turn off the oven');
    await send('cli:voice', 'listen', 'voice.wav');
    assert.match(lastUserMessage(), /transcribed by local \(whisper-large-v3\)[\s\S]*turn off the oven/);

    // A source kept for speech to text alone (no chat model) is not ready for chat, and still transcribes.
    await d.providers.addSource({ name: 'sttonly', baseUrl: `${fake.url}/v1`, apiKey: 'sk-stt-000000000' });
    await d.providers.updateSource('sttonly', { options: { transcription_model: 'whisper-tiny' } });
    await d.config.set('core.media.transcription.source', 'sttonly');
    assert.equal(d.providers.status().find((s) => s.name === 'sttonly')?.state, 'unconfigured');
    fake.setTranscription(() => 'water the plants');
    await send('cli:voice', 'and this', 'voice.wav');
    assert.match(lastUserMessage(), /transcribed by sttonly \(whisper-tiny\)[\s\S]*water the plants/);
    await d.config.set('core.media.transcription.source', '');
    await d.providers.removeSource('sttonly');

    fake.setTranscription(() => ({ status: 500 }));
    await send('cli:voice', 'again', 'voice.wav');
    assert.match(lastUserMessage(), /It could not be transcribed: local: HTTP 500 transcribing/);
    assert.doesNotMatch(lastUserMessage(), /sk-local-000000000/);
  } finally {
    fake.setDefault(() => ({ text: 'ok' }));
    await d.config.set('core.llm.sources.openai.enabled', true);
  }
});

test('bad input: an unreadable file, a file too big for the socket, a malformed attachment frame', async () => {
  const missing = await send('cli:bad', 'x', 'nope.txt');
  assert.equal(missing.code, 2);
  assert.match(missing.err, /cannot read .*nope\.txt/);
  writeFileSync(join(files, 'huge.bin'), Buffer.alloc(3 * 1024 * 1024 + 1));
  const huge = await send('cli:bad', 'x', 'huge.bin');
  assert.equal(huge.code, 2);
  assert.match(huge.err, /larger than 3 MiB/);
  const { DaemonClient } = await import('../src/waiter/daemon-client.js');
  const c = new DaemonClient(d.socketPath);
  await c.connect();
  try {
    await assert.rejects(c.request('send', { text: 'x', attachments: [{ name: 'a', mimeType: 'text/plain' }] }), /attachments/);
    await assert.rejects(c.request('send', { text: 'x', attachments: 'nope' }), /attachments/);
  } finally {
    c.close();
  }
});
