/**
 * Decision 0370 in the real daemon: a file the person sent on Telegram is kept twice (the
 * channel's copy under `media/telegram/<chat>/`, the kernel's under `media/<date>/`); `waiter
 * memory forget --turn … --yes` deletes both, counts them in its preview and its report, an
 * export made after holds neither, and an export made before, imported again, does not bring them
 * back — while the files of a turn that stays stay. The fake Telegram
 * Bot API and the scripted fake LLM on loopback.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { main } from '../src/waiter/main.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import { startFakeBotApi, type FakeBotApi } from '../src/builtins/telegram/__fixtures__/fake-bot-api.js';

const require = createRequire(import.meta.url);
const yauzl = require('yauzl') as typeof import('yauzl');

const OWNER = { id: 4242, first_name: 'Olivia' };
const SID = `telegram:${OWNER.id}`;

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The names of a zip's entries. */
async function zipNames(file: string): Promise<string[]> {
  const zf = await new Promise<import('yauzl').ZipFile>((res, rej) => yauzl.open(file, { lazyEntries: true }, (e, z) => (e ? rej(e) : res(z!))));
  const names: string[] = [];
  await new Promise<void>((res, rej) => {
    zf.on('entry', (e: import('yauzl').Entry) => {
      names.push(e.fileName);
      zf.readEntry();
    });
    zf.on('end', () => res());
    zf.on('error', rej);
    zf.readEntry();
  });
  zf.close();
  return names;
}

/** Every file under `dir`, from `root`. */
function filesUnder(root: string, dir = root): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(root, join(dir, e.name)) : [relative(root, join(dir, e.name))]));
}

describe('forget takes the files sent with a turn (decision 0370)', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let tg: FakeBotApi;
  let d: Daemon;
  let home: string;

  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${d.url}${path}`, { ...init, headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' } });
    return (await res.json()) as Record<string, unknown> & { value?: unknown };
  };
  const set = async (key: string, value: unknown) => {
    const r = await api(`/api/v1/settings/${key}`, { method: 'PUT', body: JSON.stringify({ value }) });
    assert.equal(r.ok, true, `${key}: ${JSON.stringify(r)}`);
  };
  const waiter = async (...args: string[]) => {
    let out = '';
    let err = '';
    const code = await main(['node', 'waiter', '--home', home, ...args], { out: (t) => void (out += t), err: (t) => void (err += t) });
    return { code, out, err };
  };
  /** Sends a text file from the owner's Telegram; returns its turn id once answered. */
  const sendFile = async (fileId: string, name: string, body: string, caption: string): Promise<string> => {
    const before = (await d.sessions.events(SID).catch(() => [])).filter((e) => e.kind === 'assistant').length;
    tg.addFile(fileId, Buffer.from(body), `documents/${fileId}.txt`);
    tg.pushMessage(OWNER, { document: { file_id: fileId, file_name: name, mime_type: 'text/plain', file_size: body.length }, caption });
    await until(async () => (await d.sessions.events(SID).catch(() => [])).filter((e) => e.kind === 'assistant').length > before, `the answer to ${name}`);
    const user = (await d.sessions.events(SID)).filter((e) => e.kind === 'user').at(-1)!;
    assert.ok(user.text.includes(caption));
    return user.turnId;
  };

  before(async () => {
    llm = await startFakeLlm();
    llm.setDefault(() => ({ text: 'Got your file.' }));
    tg = await startFakeBotApi();
    home = mkdtempSync(join(tmpdir(), 'ha-forget-files-'));
    const env = { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9', HOMEAGENT_TELEGRAM_BOT_TOKEN: tg.token, HOMEAGENT_TELEGRAM_API_ROOT: tg.url };
    d = await startTestDaemon({ homeDir: home, env, webuiPort: 0, heartbeats: false, transfer: { scryptLogN: 10 } });
    await set('plugin.telegram.allowed_user_ids', [String(OWNER.id)]);
    await set('plugin.telegram.poll_timeout_s', 1);
    await until(async () => ((await api('/api/v1/channels/telegram')).value as { status: string }).status === 'running', 'telegram running');
  });
  after(async () => {
    await d?.stop();
    await Promise.all([llm?.close(), tg?.close()]);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('a Telegram file is kept twice; forgetting its turn deletes both, counts them, and an export after holds neither; another turn keeps its files', async () => {
    const media = join(home, 'media');
    const forgotten = await sendFile('doc-secret', 'notes.txt', 'my passport number is X1234567', 'my notes');
    const kept = await sendFile('doc-kept', 'shopping.txt', 'milk, eggs, bread', 'the shopping list');
    const all = filesUnder(media);
    const secretCopies = all.filter((f) => f.endsWith('notes.txt'));
    const keptCopies = all.filter((f) => f.endsWith('shopping.txt'));
    // Both copies: the channel's (media/telegram/<chat>/<message id>-notes.txt) and the kernel's (media/<date>/notes.txt).
    assert.equal(secretCopies.length, 2, all.join(', '));
    assert.ok(secretCopies.some((f) => f.startsWith(join('telegram', String(OWNER.id)))), all.join(', '));
    assert.equal(keptCopies.length, 2, all.join(', '));
    for (const f of secretCopies) assert.equal(readFileSync(join(media, f), 'utf8'), 'my passport number is X1234567');
    const transfer = d.host.services.use('host.transfer')!;
    const beforeForget = join(home, 'before.zip');
    assert.equal((await transfer.exportTo({ file: beforeForget })).state, 'done');
    assert.equal((await zipNames(beforeForget)).filter((n) => n.endsWith('notes.txt')).length, 2, 'the export before the forget holds both copies');

    const preview = await waiter('memory', 'forget', '--turn', forgotten, '--dry-run');
    assert.equal(preview.code, 0, preview.err);
    assert.match(preview.out, /2 files sent with them/);
    const plan = (await api('/api/v1/memory/forget/preview', { method: 'POST', body: JSON.stringify({ turnIds: [forgotten] }) })) as { plan?: { files?: number } };
    assert.equal(plan.plan?.files, 2, JSON.stringify(plan));

    const res = await waiter('memory', 'forget', '--turn', forgotten, '--yes');
    assert.equal(res.code, 0, res.err);
    assert.match(res.out, /forgotten: turns 1,.* files 2/);
    for (const f of secretCopies) assert.equal(existsSync(join(media, f)), false, `${f} is still there`);
    for (const f of keptCopies) assert.equal(readFileSync(join(media, f), 'utf8'), 'milk, eggs, bread', `${f} of the kept turn ${kept} went`);

    const out = join(home, 'after.zip');
    assert.equal((await transfer.exportTo({ file: out })).state, 'done');
    const names = await zipNames(out);
    assert.deepEqual(names.filter((n) => n.includes('notes.txt')), [], 'the export holds no copy of the forgotten file');
    assert.equal(names.filter((n) => n.startsWith('media/') && n.endsWith('shopping.txt')).length, 2, names.filter((n) => n.startsWith('media/')).join(', '));

    // The export from before the forget, imported again: the forgotten turn stays out, and so do its files.
    const job = await transfer.stageImport({ file: beforeForget });
    const applied = await transfer.applyImport(job.id, { mode: 'overwrite' });
    await transfer.discard(job.id);
    assert.equal(applied.state, 'done', JSON.stringify(applied));
    for (const f of secretCopies) assert.equal(existsSync(join(media, f)), false, `${f} came back with the import`);
    assert.equal(applied.report?.parts.media?.forgotten, 2, JSON.stringify(applied.report?.parts.media));
    for (const f of keptCopies) assert.equal(readFileSync(join(media, f), 'utf8'), 'milk, eggs, bread');
  });
});
