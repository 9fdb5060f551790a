/**
 * The daemon's errors in the Chinese WebUI (web/src/lib/error-words.ts), kept in step with the
 * daemon: each case makes the error through the REAL daemon's HTTP API, as the page's forms do,
 * and the page's translation of the answer must be Chinese — no English sentence left. A reason
 * reworded in the daemon fails here rather than showing English to a person reading Chinese.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { errorInWords, type ErrorParts } from '../web/src/lib/error-words.js';
import { zodInWords } from '../web/src/lib/zod-words.js';
import { MAX_KNOWLEDGE_FILE_BYTES } from '../src/spec/index.js';
import { makePdf } from './fixtures/make-pdf.js';
import yazl from 'yazl';

/** Three English words in a row: a sentence the translation left alone. */
const ENGLISH = /\b[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}\b/;

describe('daemon errors said in Chinese', { timeout: 60_000 }, () => {
  let d: Daemon;
  let home: string;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ErrorParts & { status: number }> => {
    const res = await fetch(`${d.url}${path}`, { method, headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json', ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    // The two envelopes, read as the page's client reads them (web/src/api/client.ts).
    const j = (await res.json()) as { ok?: boolean; error?: ErrorParts; value?: { error?: string; code?: string; details?: Record<string, unknown> } };
    assert.ok(!res.ok || j.ok === false, `${method} ${path} should fail: ${JSON.stringify(j)}`);
    const err: ErrorParts | undefined = j.error ?? (j.value?.error !== undefined ? { message: j.value.error, code: j.value.code, details: j.value.details } : undefined);
    assert.ok(err, JSON.stringify(j));
    return { ...err, status: res.status };
  };
  const mm = (op: string, args: Record<string, unknown>) => call('POST', '/api/memory-manager', { op, args });
  /** `firstLine`: only the sentence is the page's; the lines after it quote each source's own answer. */
  const saysChinese = (e: ErrorParts, expected: RegExp, firstLine = false) => {
    const zh = errorInWords(e, 'zh');
    // A command to type (`waiter …`) stays as it is typed.
    const prose = (firstLine ? zh.split('\n')[0] : zh).replace(/`[^`]*`/g, '');
    assert.doesNotMatch(prose, ENGLISH, `left in English: ${zh} (daemon: ${e.message})`);
    assert.match(zh, expected, `daemon: ${e.message}`);
    // In English the daemon's reason stays as it is written (zod's fixed forms in plain words).
    assert.equal(errorInWords(e, 'en'), zodInWords(e.message.trim(), 'en'));
  };

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'ha-error-words-'));
    // An OpenAI source whose server is not there: a turn fails with every source failing.
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
  });
  after(async () => {
    await d?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('chat and sessions', async () => {
    saysChinese(await call('POST', '/api/v1/chat', { text: '   ' }), /^消息是空的$/);
    saysChinese(await call('GET', '/api/v1/sessions/webui%3Anobody-here'), /^找不到对话：webui:nobody-here$/);
  });

  it('settings: the time zone, the persona file, own ids and the chat apps\' allowlists', async () => {
    const put = (key: string, value: unknown) => call('PUT', `/api/v1/settings/${encodeURIComponent(key)}`, { value });
    saysChinese(await put('core.agent.timezone', 'Mars/Olympus'), /core\.agent\.timezone 的值无效：未知的时区/);
    saysChinese(await put('core.agent.persona_file', '../../etc/passwd'), /的值无效：应为数据文件夹里的 \.md 或 \.txt 文件/);
    saysChinese(await put('core.identity.owner_ids', ['me']), /的值无效：.*id 由聊天应用和你在其中的账号组成/);
    // "Telegram:12345" and "tg:555" were stored and never matched a speaker (found by a walk).
    saysChinese(await put('core.identity.owner_ids', ['Telegram:12345']), /的值无效：.*Telegram:12345 永远匹配不上：请写成 telegram:12345/);
    saysChinese(await put('core.identity.owner_ids', ['tg:555']), /的值无效：.*tg:555 永远匹配不上：请写成 telegram:555/);
    assert.equal((await fetch(`${d.url}/api/v1/settings/core.identity.owner_ids`, { method: 'PUT', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ value: ['telegram:12345', 'matrix:@me:example.org'] }) })).status, 200, 'the right form, and another app as written');
    saysChinese(await put('plugin.telegram.allowed_user_ids', ['alice']), /的值无效：.*Telegram 用户 id 是一个数字/);
    saysChinese(await put('plugin.qq.allowed_user_ids', ['alice']), /的值无效：.*应为 QQ 号/);
    saysChinese(await put('plugin.qq.ws_url', 'http://127.0.0.1:3001'), /的值无效：应为 WebSocket 地址/);
    saysChinese(await put('plugin.qq.notify_target', 'bob'), /的值无效：应为 “private:<QQ 号>” 或 “group:<群号>”/);
    saysChinese(await put('core.no_such_thing', 1), /没有这个设置|找不到设置/);
  });

  it('knowledge: a taken name and a name that is not allowed', async () => {
    const create = (name: string) => call('PUT', `/api/v1/memory/knowledge/${encodeURIComponent(name)}`, { content: 'x' }, { 'if-none-match': '*' });
    const first = await fetch(`${d.url}/api/v1/memory/knowledge/Recipes`, { method: 'PUT', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json', 'if-none-match': '*' }, body: JSON.stringify({ content: 'soup' }) });
    assert.equal(first.status, 200, await first.text());
    saysChinese(await create('recipes'), /^已有名为“.+”的知识条目/);
    saysChinese(await create('a*b?'), /^知识条目名“a\*b\?”不可用/);
  });

  it('knowledge: a file that cannot be added (Add from file…)', async () => {
    const rawUpload = async (name: string, body: Uint8Array, file: string, type = 'application/octet-stream'): Promise<ErrorParts> => {
      const res = await fetch(`${d.url}/api/v1/memory/knowledge/${encodeURIComponent(name)}/file`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': type, 'x-filename': encodeURIComponent(file) }, body: new Uint8Array(body) });
      assert.ok(!res.ok, `${file} should be refused`);
      return ((await res.json()) as { error: ErrorParts }).error;
    };
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    saysChinese(await rawUpload('照片', png, '照片.png', 'image/png'), /^“照片\.png”不是知识库能读取的文件：请添加 Markdown、纯文本、PDF 或 HTML 文件（\.md、\.txt、\.pdf、\.html、\.htm）$/);
    saysChinese(await rawUpload('扫描件', makePdf([[]]), '扫描件.pdf', 'application/pdf'), /^“扫描件\.pdf”里没有可读的文字：它的页面只是图片（扫描件）。没有保存任何内容$/);
    saysChinese(await rawUpload('空白', new TextEncoder().encode('  \n'), '空白.md'), /^“空白\.md”里没有文字。没有保存任何内容$/);
    saysChinese(await rawUpload('长文', new Uint8Array(2 << 20).fill(0x61), '长文.txt'), /^“长文\.txt”有 2\.0 MB，一个知识条目最多 1 MB$/);
    const longPdf = makePdf(Array.from({ length: 300 }, () => Array.from({ length: 48 }, () => 'word '.repeat(18))));
    saysChinese(await rawUpload('长 PDF', longPdf, '长.pdf', 'application/pdf'), /^“长\.pdf”的文字有 \d\.\d MB，一个知识条目最多 1 MB$/);
    saysChinese(await rawUpload('坏的', new TextEncoder().encode('%PDF-1.7 cut'), '坏的.pdf', 'application/pdf'), /^“坏的\.pdf”无法作为 PDF 读取：文件已损坏，或不是 PDF$/);
    // A body declared over the limit is answered before it is sent (so only its first byte is).
    const tooBig = await new Promise<ErrorParts>((resolve, reject) => {
      const u = new URL(`${d.url}/api/v1/memory/knowledge/${encodeURIComponent('大')}/file`);
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/octet-stream', 'x-filename': encodeURIComponent('大.txt'), 'content-length': String(MAX_KNOWLEDGE_FILE_BYTES + 1) } });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => {
          resolve((JSON.parse(text) as { error: ErrorParts }).error);
          req.destroy();
        });
      });
      req.on('error', reject);
      req.write('a');
    });
    saysChinese(tooBig, /^“大\.txt”超过 25 MB：添加到知识库的文件最大 25 MB$/);
    // The name rules and the taken name are the "New" form's, said the same way.
    saysChinese(await rawUpload('a*b?', new TextEncoder().encode('x'), 'a.md'), /^知识条目名“a\*b\?”不可用/);
    saysChinese(await rawUpload('recipes', new TextEncoder().encode('x'), 'recipes.md'), /^已有名为“Recipes”的知识条目：打开它来编辑，或换一个名字$/);
  });

  it('a plugin package (.hmap) refused: a sentence first, in both languages, then what it names', async () => {
    const zip = (files: Record<string, string>) =>
      new Promise<Buffer>((resolve) => {
        const z = new yazl.ZipFile();
        for (const [n, t] of Object.entries(files)) z.addBuffer(Buffer.from(t), n);
        z.end();
        const chunks: Buffer[] = [];
        z.outputStream.on('data', (c: Buffer) => chunks.push(c));
        z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
      });
    const install = async (body: Uint8Array): Promise<ErrorParts> => {
      const res = await fetch(`${d.url}/api/v1/plugins/install`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/zip', 'x-filename': 'p.hmap' }, body: new Uint8Array(body) });
      assert.ok(!res.ok, 'the package should be refused');
      return ((await res.json()) as { error: ErrorParts }).error;
    };
    // Before: "hmap: not a zip archive: …" and "安装失败：hmap: the archive has no plugin.json" in English on a Chinese page.
    const notZip = await install(new TextEncoder().encode('just text, not a zip'));
    assert.equal(notZip.code, 'HMAP_BAD_ARCHIVE');
    assert.equal(errorInWords(notZip, 'en'), 'This file is not a plugin package (a .hmap file is a zip archive)');
    assert.equal(errorInWords(notZip, 'zh'), '这个文件不是插件包（.hmap 文件是 zip 压缩包）');
    const noManifest = await install(await zip({ 'index.js': 'export default {}' }));
    assert.equal(noManifest.code, 'HMAP_BAD_MANIFEST');
    assert.equal(errorInWords(noManifest, 'en'), "The package's plugin.json is missing or not right (the archive has no plugin.json)");
    assert.match(errorInWords(noManifest, 'zh'), /^插件包的 plugin\.json 缺失或有误/);
    const noVersion = await install(await zip({ 'plugin.json': JSON.stringify({ name: 'quotes', entry: 'index.js' }), 'index.js': 'export default {}' }));
    assert.equal(noVersion.code, 'HMAP_BAD_MANIFEST');
    assert.match(errorInWords(noVersion, 'zh'), /^插件包的 plugin\.json 缺失或有误（.*version/);
    // An entry outside the folder (made by hand: zip libraries refuse to write one): the entry is named.
    assert.equal(errorInWords({ code: 'HMAP_PATH_ESCAPE', message: 'hmap: entry "../../evil.txt" escapes the plugin folder', details: { entry: '../../evil.txt' } }, 'zh'), '插件包里有文件会写到插件文件夹之外，已拒绝（../../evil.txt）');
  });

  it('the library and the plan', async () => {
    const saved = await fetch(`${d.url}/api/memory-manager`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ op: 'memory.save', args: { id: 'err-words-1', title: 'Off', snapshot: 'kept out', enabled: false } }) });
    assert.equal(saved.status, 200, await saved.text());
    saysChinese(await mm('plan.addMemory', { id: 'err-words-1' }), /^记忆 err-words-1 已关闭，不能加入注入计划$/);
    saysChinese(await mm('memory.save', { id: 'err-words-1', snapshot: 'something else' }), /^记忆 err-words-1 已存在，它的快照保存后不可修改$/);
    saysChinese(await mm('memory.get', { id: 'no-such-memory' }), /^找不到记忆：no-such-memory$/);
  });

  it('people, providers and plugins', async () => {
    saysChinese(await call('POST', '/api/v1/people/link', { ids: ['telegram:42'], name: '' }), /.+/);
    const bob = await fetch(`${d.url}/api/v1/people/link`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ ids: ['telegram:77'], name: 'Bob', newPerson: true }) });
    assert.equal(bob.status, 200, await bob.text());
    saysChinese(await call('POST', '/api/v1/people/link', { ids: ['telegram:77'], name: 'Carol', newPerson: true }), /telegram:77 已属于 Bob/);
    saysChinese(await call('POST', '/api/v1/people/link', { ids: ['telegram:abc'], name: 'Dan', newPerson: true }), /^telegram:abc 不是 Telegram 用户/);
    saysChinese(await call('DELETE', '/api/v1/providers/openai'), /^“openai”是内置来源，不能删除/);
    saysChinese(await call('DELETE', '/api/v1/providers/nobody'), /^找不到 LLM 来源：nobody$/);
    saysChinese(await call('DELETE', '/api/v1/plugins/webui'), /^webui 是内置插件，不能移除/);
  });

  it('adding an LLM source: a name, an address and a key that cannot be; a duration', async () => {
    const add = (body: Record<string, unknown>) => call('POST', '/api/v1/providers', { api: 'openai', ...body });
    saysChinese(await add({ name: '我的模型', baseUrl: 'http://127.0.0.1:9/v1' }), /^LLM 来源的名称无效：来源名称只能用小写字母/);
    saysChinese(await add({ name: 'box2', baseUrl: '127.0.0.1:8000/v1' }), /^LLM 来源的地址无效：不是有效的网址/);
    saysChinese(await add({ name: 'box3', baseUrl: 'ftp://127.0.0.1/v1' }), /^LLM 来源的地址无效：地址必须以 http/);
    // A key pasted with a Chinese character or a full-width space: refused where it is set, not at the next call.
    saysChinese(await add({ name: 'box4', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-密钥' }), /^LLM 来源的 API key 无效：API key 只能包含/);
    saysChinese(await call('PUT', `/api/v1/settings/${encodeURIComponent('core.llm.sources.openai.api_key')}`, { value: 'sk-abc\u3000def' }), /api_key 的值无效：API key 只能包含/);
    saysChinese(await call('PUT', `/api/v1/settings/${encodeURIComponent('core.memory.rule_distill_interval')}`, { value: '十分钟' }), /的值无效：应为时长/);
  });

  it('LLM sources: a source without a key, one without a model, and a turn that every source failed', async () => {
    const test = async (name: string) => ((await (await fetch(`${d.url}/api/v1/providers/${name}/test`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}` } })).json()) as { result: { ok: boolean; code?: string; error?: string } }).result;
    const noKey = await test('deepseek');
    assert.equal(noKey.ok, false);
    saysChinese({ code: noKey.code, message: noKey.error ?? '' }, /^deepseek 还没有 API key：请在 WebUI 的“设置 → LLM 来源”里添加，或运行 `waiter providers update deepseek --key-stdin`$/);
    const added = await fetch(`${d.url}/api/v1/providers`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'box', baseUrl: 'http://127.0.0.1:9/v1', api: 'openai' }) });
    assert.equal(added.status, 201, await added.text());
    const noModel = await test('box');
    saysChinese({ code: noModel.code, message: noModel.error ?? '' }, /^box 还没有设置模型/);
    const out = await d.agent.injectInput({ sessionId: 'webui:error-words', source: 'webui', text: 'hello' }).done;
    assert.equal(out.error?.code, 'ALL_PROVIDERS_FAILED');
    saysChinese(out.error!, /^所有 LLM 来源都失败了：\n/, true);
  });
});
