/**
 * `waiter memory …`, `waiter knowledge …`, `waiter library …`, `waiter plugins`, `waiter changes`
 * (§8) through the real socket of an in-process daemon: each command reaches its subsystem.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { DaemonClient } from '../src/waiter/daemon-client.js';
import { buildProgram } from '../src/waiter/main.js';

let d: Daemon;
let c: DaemonClient;
let home: string;

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'ha-w-'));
  d = await startTestDaemon({ homeDir: home, env: { HOME: process.env.HOME, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false, transfer: { scryptLogN: 10 } });
  c = new DaemonClient(d.socketPath);
  await c.connect();
});
after(async () => {
  c.close();
  await d.stop();
  rmSync(home, { recursive: true, force: true });
});

test('knowledge put/get/search/list/delete', async () => {
  const put = await c.request<{ name: string; content: string }>('knowledge.put', { name: 'wifi', content: '家里的 WiFi 密码是 sunflower-42' });
  assert.equal(put.name, 'wifi');
  const hits = await c.request<{ name: string }[]>('knowledge.search', { query: 'WiFi 密码' });
  assert.equal(hits[0]?.name, 'wifi');
  assert.ok((await c.request<{ name: string }[]>('knowledge.list')).some((k) => k.name === 'wifi'));
  await assert.rejects(c.request('knowledge.put', { name: '../escape', content: 'x' }), /name|invalid/i);
  await c.request('knowledge.delete', { name: 'wifi' });
  await assert.rejects(c.request('knowledge.get', { name: 'wifi' }), /not found/i);
});

test('memory stats, graph and document search', async () => {
  await d.memory.memoryAPI().commit([{ subject: 'Alice', predicate: 'lives_in', object: 'Hangzhou', subjectType: 'person' }]);
  const g = await c.request<{ entities: { name: string }[] }>('memory.graph', { query: 'Alice' });
  assert.ok(g.entities.some((e) => e.name === 'Alice'));
  const stats = await c.request<Record<string, unknown>>('memory.stats');
  assert.ok(stats.graph, JSON.stringify(stats));
  d.memory.docs.commit('The spare key is under the blue flower pot', { refs: ['t#1'] });
  const hits = await c.request<{ text: string }[]>('memory.search', { query: 'spare key' });
  assert.match(hits[0]?.text ?? '', /blue flower pot/);
});

test('memory edits: commit a fact, rename an entity, merge two, add a document', async () => {
  const stored = await c.request<{ stored: number }>('memory.commit', { triples: [{ subject: 'Bob', predicate: 'works_at', object: 'ACME' }, { subject: 'Robert', predicate: 'likes', object: 'tea' }] });
  assert.equal(stored.stored, 2);
  const renamed = await c.request<{ name: string; type: string }>('memory.edit-entity', { name: 'ACME', patch: { name: 'ACME Corp', type: 'organization' } });
  assert.equal(renamed.name, 'ACME Corp');
  await c.request('memory.merge', { keep: 'Bob', drop: 'Robert' });
  const g = await c.request<{ entities: { name: string }[]; relations: { subject: string; object: string }[] }>('memory.graph', { entity: 'Bob', depth: 1 });
  assert.ok(g.relations.some((r) => r.subject === 'Bob' && r.object === 'tea'), 'relations moved to the kept entity');
  assert.ok(!g.entities.some((e) => e.name === 'Robert'));
  await assert.rejects(c.request('memory.commit', { triples: [] }), /triples/);
  const doc = await c.request<{ id: string }>('memory.add-doc', { text: 'The router password is taped under the desk' });
  assert.ok(doc.id);
  const hits = await c.request<{ id: string }[]>('memory.search', { query: 'router password' });
  assert.equal(hits[0]?.id, doc.id);
});

test('library commands go through the memory-manager API', async () => {
  const saved = await c.request<{ id: string }>('library', { op: 'memory.save', args: { title: 'Allergy', snapshot: 'The user is allergic to peanuts.' } });
  assert.match(saved.id, /^[A-Za-z0-9_-]{3,64}$/);
  const plan = await c.request<{ memories: { id: string }[] }>('library', { op: 'plan.addMemory', args: { id: saved.id } });
  assert.ok(plan.memories.some((m) => m.id === saved.id));
  await assert.rejects(c.request('library', { op: 'memory.get', args: { id: '../../etc/passwd' } }), /id/i);
  await assert.rejects(c.request('library', { op: 'no.such.op' }), /op/i);
});

test('plugins and changes; unknown arguments get clear errors', async () => {
  const plugins = await c.request<{ name: string; state: string }[]>('plugins.list');
  for (const name of ['cli', 'webui', 'memory-manager', 'files', 'timer', 'mcp', 'cmd']) assert.equal(plugins.find((p) => p.name === name)?.state, 'running', name);
  assert.ok(Array.isArray(await c.request('changes.list')));
  await assert.rejects(c.request('plugins.reload', { name: 'no-such-plugin' }), /no-such-plugin/);
  await assert.rejects(c.request('config.get', {}), /key/);
});

test('plugin and skill folders added while the daemon runs: `plugins reload <name>` and `plugins rescan` start them', async () => {
  const quotes = join(home, 'plugins', 'quotes');
  mkdirSync(quotes, { recursive: true });
  writeFileSync(join(quotes, 'plugin.json'), JSON.stringify({ name: 'quotes', version: '1.0.0', entry: 'index.js', permissions: [] }));
  writeFileSync(join(quotes, 'index.js'), "import { definePlugin } from 'homeagent/sdk';\nexport default definePlugin({ name: 'quotes', start(sdk) { sdk.registerTool({ name: 'quote_today', description: 'q', parameters: { type: 'object', properties: {} }, handler: () => 'simple' }); } });\n");
  const info = await c.request<{ name: string; kind: string; state: string; tools: string[] }>('plugins.reload', { name: 'quotes' });
  assert.deepEqual([info.kind, info.state, info.tools], ['external', 'running', ['quote_today']]);

  mkdirSync(join(home, 'plugins', 'dice'));
  writeFileSync(join(home, 'plugins', 'dice', 'main.lua'), 'function start() register_tool("dice_roll", "roll", { type = "object", properties = json.object() }, function(a) return "4" end) end');
  mkdirSync(join(home, 'skills', 'code-review'), { recursive: true });
  writeFileSync(join(home, 'skills', 'code-review', 'SKILL.md'), '---\nname: code-review\ndescription: Review a diff.\n---\nRead the whole diff first.\n');
  const r = await c.request<{ found: string[]; plugins: { name: string; state: string }[] }>('plugins.rescan');
  assert.deepEqual(r.found, ['code-review', 'dice']);
  assert.deepEqual(r.plugins.map((p) => `${p.name}:${p.state}`), ['code-review:running', 'dice:running']);
  // A second rescan finds nothing new and leaves the running ones alone.
  assert.deepEqual((await c.request<{ found: string[] }>('plugins.rescan')).found, []);
  assert.equal((await c.request<{ name: string; state: string }[]>('plugins.list')).find((p) => p.name === 'quotes')?.state, 'running');
  // A name with no folder stays unknown; a path is not a name.
  await assert.rejects(c.request('plugins.reload', { name: '../plugins/quotes' }), /not found/i);
});

test('the waiter program parses every documented command (usage errors exit 2)', async () => {
  const program = buildProgram();
  const names = program.commands.map((cmd) => cmd.name());
  for (const n of ['chat', 'send', 'interrupt', 'status', 'sessions', 'config', 'providers', 'plugins', 'memory', 'knowledge', 'library', 'changes']) assert.ok(names.includes(n), n);
  const { main } = await import('../src/waiter/main.js');
  assert.equal(await main(['node', 'waiter', 'config', 'get']), 2, 'missing argument is a usage error');
  // An empty or blank message is the same mistake as none (it used to reach the daemon and exit 1).
  for (const argv of [['send', ''], ['send', '  '], ['send'], ['interrupt', ' ']]) assert.equal(await main(['node', 'waiter', ...argv]), 2, argv.join(' '));
  // Every command and subcommand says in its help what it does, in words (no spec ids like "(M-8)").
  const walk = (c: typeof program, path: string): string[] => c.commands.flatMap((sub) => [...(sub.description().trim() && !/\([A-Z]-\d+[a-z]?\)/.test(sub.description()) ? [] : [`${path} ${sub.name()}`]), ...walk(sub, `${path} ${sub.name()}`)]);
  assert.deepEqual(walk(program, 'waiter'), []);
});

test('every `waiter …` command the daemon\'s own messages name exists (a refusal once named `waiter forget`)', async () => {
  const { readdirSync, readFileSync, statSync } = await import('node:fs');
  const program = buildProgram();
  const files = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith('.ts') && !n.endsWith('.test.ts') ? [join(dir, n)] : []));
  const src = new URL('../src', import.meta.url).pathname;
  const unknown: string[] = [];
  for (const f of files(src)) {
    for (const m of readFileSync(f, 'utf8').matchAll(/`waiter ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)?)/g)) {
      const [first, second] = m[1].split(' ');
      const cmd = program.commands.find((c) => c.name() === first);
      if (!cmd) unknown.push(`${f.slice(src.length + 1)}: waiter ${first}`);
      // A second word names a subcommand when the command has them (else it is an argument).
      else if (second && cmd.commands.length && !cmd.commands.some((c) => c.name() === second)) unknown.push(`${f.slice(src.length + 1)}: waiter ${first} ${second}`);
    }
  }
  assert.deepEqual(unknown, []);
});

test('SPEC §9: `waiter plugins install` shows the package and installs only when confirmed; `waiter webui` prints the sign-in link', async () => {
  const { writeFileSync, existsSync } = await import('node:fs');
  const { execFile } = await import('node:child_process');
  const yazl = (await import('yazl')).default;
  const marker = join(home, 'cli-plugin-ran');
  const z = new yazl.ZipFile();
  z.addBuffer(Buffer.from(JSON.stringify({ name: 'cli-hello', version: '0.3.0', entry: 'index.js', description: 'says hello', permissions: ['llm'] })), 'plugin.json');
  z.addBuffer(Buffer.from(`import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x'); export default { name: 'cli-hello', start() {} };`), 'index.js');
  z.end();
  const zip = await new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    z.outputStream.on('data', (ch: Buffer) => chunks.push(ch));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
  const file = join(home, 'cli-hello.hmap');
  writeFileSync(file, zip);
  // Asynchronously: the daemon answering the socket lives in this very process.
  const waiter = (...args: string[]) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'src', 'waiter', 'main.ts'), '--home', home, ...args], { encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ status: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
  // No terminal to ask on, no --yes: shown, left pending, exit 1, nothing ran.
  const asked = await waiter('plugins', 'install', file);
  assert.equal(asked.status, 1, asked.stderr);
  assert.match(asked.stdout, /cli-hello 0\.3\.0[\s\S]*permissions: llm/);
  assert.match(asked.stderr, /waiter plugins confirm cli-hello/);
  assert.deepEqual(d.registry.pending().map((p) => p.name), ['cli-hello']);
  assert.equal(existsSync(marker), false);
  assert.match((await waiter('plugins', 'pending')).stdout, /cli-hello/);
  assert.equal((await waiter('plugins', 'discard', 'cli-hello')).status, 0);
  assert.deepEqual(d.registry.pending(), []);
  // --yes installs and starts it.
  const yes = await waiter('plugins', 'install', file, '--yes');
  assert.equal(yes.status, 0, yes.stderr);
  assert.equal(d.registry.get('cli-hello')?.state, 'running');
  assert.equal(existsSync(marker), true);
  const link = await waiter('webui');
  assert.equal(link.status, 0, link.stderr);
  assert.equal(link.stdout.trim(), `${d.url}/?token=${encodeURIComponent(d.authToken)}`);
  // A token the user configured (plugin.webui.token) is the one the WebUI accepts: the link carries it.
  await d.config.set('plugin.webui.token', 'my-own-token-1234567890');
  try {
    const own = await waiter('webui');
    assert.equal(own.status, 0, own.stderr);
    assert.equal(own.stdout.trim(), `${d.url}/?token=my-own-token-1234567890`);
    const ok = await fetch(`${d.url}/api/v1/status`, { headers: { authorization: 'Bearer my-own-token-1234567890' } });
    assert.equal(ok.status, 200);
  } finally {
    await d.config.reset('plugin.webui.token');
  }
});

test('waiter people link/rename/unlink/list and memory about/delete-fact over the socket', async () => {
  const linked = await c.request<{ id: string; name: string; ids: string[] }>('people.link', { ids: ['telegram:77', 'qq:7007'], name: 'Carol' });
  assert.deepEqual(linked.ids, ['qq:7007', 'telegram:77']);
  await assert.rejects(c.request('people.link', { ids: 'telegram:77' }), /list of speaker ids/);
  await assert.rejects(c.request('people.link', { ids: ['qq:7007'], to: 'owner' }), /already linked/);
  assert.equal((await c.request<{ name: string }>('people.rename', { person: 'qq:7007', name: 'Caroline' })).name, 'Caroline');
  await assert.rejects(c.request('people.rename', { person: 'nobody here', name: 'x' }), /not found/i);
  await d.memory.memoryAPI().commit([{ subject: 'Caroline', predicate: 'plays', object: 'cello' }]);
  d.memory.docs.commit('Caroline plays cello on Fridays', { refs: ['w#1'] });
  const about = await c.request<{ person: { name: string; ids: string[] }; facts: { id: number; object: string }[]; documents: { text: string }[] }>('memory.about', { person: 'caroline' });
  assert.equal(about.person.name, 'Caroline');
  const fact = about.facts.find((f) => f.object === 'cello');
  assert.ok(fact, JSON.stringify(about.facts));
  assert.ok(about.documents.some((x) => /Fridays/.test(x.text)));
  // `waiter memory about` as text: the person, each fact with its #id, the turns with their source.
  const { main } = await import('../src/waiter/main.js');
  let out = '';
  const code = await main(['node', 'waiter', '--home', home, 'memory', 'about', 'Caroline'], { out: (t) => void (out += t), err: () => undefined });
  assert.equal(code, 0, out);
  assert.match(out, /About Caroline — qq:7007, telegram:77/);
  // When facts appear: the rule distiller's interval, as the WebUI says it (found by a new-user walk).
  assert.match(out, /drawn from what you say a few seconds after you say it, and again every 10m, core\.memory\.rule_distill_interval/);
  assert.match(out, new RegExp(`#${fact.id} Caroline plays cello`));
  assert.match(out, /Caroline plays cello on Fridays {2}← w#1/);
  // `waiter memory correct-fact #id value`: the value changes, the fact stays (and is then deleted below).
  let corrected = '';
  assert.equal(await main(['node', 'waiter', '--home', home, '--json', 'memory', 'correct-fact', `#${fact.id}`, 'viola'], { out: (t) => void (corrected += t), err: () => undefined }), 0, corrected);
  assert.equal(JSON.parse(corrected).corrected.object, 'viola');
  await assert.rejects(c.request('memory.correct-fact', { id: '../x', object: 'y' }), /not a fact id/);
  assert.deepEqual(await c.request('memory.delete-fact', { id: `#${fact.id}` }), { deleted: fact.id });
  await assert.rejects(c.request('memory.delete-fact', { id: String(fact.id) }), /not found/i);
  await assert.rejects(c.request('memory.delete-fact', { id: '../x' }), /not a fact id/);
  // The deletion is in the history as the user's, and undo brings the fact back (K-3).
  const hist = await c.request<{ id: string; actor: string; op: string; target: string }[]>('memory.history', { subject: 'Caroline' });
  const del = hist.find((h) => h.op === 'delete' && h.target === `relation:${fact.id}`);
  assert.ok(del, JSON.stringify(hist));
  assert.equal(del.actor, 'user');
  await c.request('memory.undo', { id: del.id });
  const back = await c.request<{ facts: { object: string }[] }>('memory.about', { person: 'caroline' });
  assert.ok(back.facts.some((f) => f.object === 'viola'), 'undo restored the deleted fact (as corrected)');
  assert.equal((await c.request<{ removed: boolean }>('people.unlink', { id: 'qq:7007' })).removed, false);
  assert.equal((await c.request<{ removed: boolean }>('people.unlink', { id: 'telegram:77' })).removed, true);
  assert.deepEqual((await c.request<{ id: string }[]>('people.list')).map((p) => p.id), ['owner']);
});

test('K-2/K-3: `waiter memory forget` shows what will go and forgets only with --yes; `history` and `undo`', async () => {
  const { main } = await import('../src/waiter/main.js');
  const run = async (...args: string[]) => {
    let out = '';
    let err = '';
    const code = await main(['node', 'waiter', '--home', home, ...args], { out: (t) => void (out += t), err: (t) => void (err += t) });
    return { code, out, err };
  };
  await d.sessions.create({ channel: 'cli', id: 'cli:forget' });
  const { turnId } = d.sessions.nextTurn('cli:forget');
  await d.sessions.append('cli:forget', { turnId, kind: 'user', text: 'the locker combination is 3141' });
  d.memory.context.append({ kind: 'user', source: 'cli', channel: 'cli', sessionId: 'cli:forget', refs: [turnId], input: 'the locker combination is 3141', response: '' });
  // No terminal to ask on and no --yes: shown, nothing forgotten, exit 1.
  const asked = await run('memory', 'forget', '3141');
  assert.equal(asked.code, 1);
  assert.match(asked.out, new RegExp(`${turnId}[\\s\\S]*locker combination is 3141`));
  assert.match(asked.err, /--yes/);
  assert.match(JSON.stringify(await c.request('memory.search', { query: 'locker combination' })), /3141/);
  const dry = await run('memory', 'forget', '--turn', turnId, '--dry-run');
  assert.equal(dry.code, 0);
  const yes = await run('memory', 'forget', '3141', '--yes');
  assert.equal(yes.code, 0, yes.err);
  assert.match(yes.out, /forgotten: turns 1/);
  assert.doesNotMatch(JSON.stringify(await c.request('memory.search', { query: 'locker combination 3141' })), /3141/);
  assert.doesNotMatch(JSON.stringify(await d.sessions.events('cli:forget')), /3141/);
  assert.equal((await run('memory', 'forget', 'nothing-matches-this-xyz', '--yes')).code, 1, 'nothing to forget is a failure');
  assert.equal((await run('memory', 'forget')).code, 2, 'no target is a usage error');
  // History and undo.
  await c.request('memory.commit', { triples: [{ subject: 'Clara', predicate: 'likes', object: 'sailing' }] });
  const hist = await run('--json', 'memory', 'history', 'Clara');
  const list = JSON.parse(hist.out) as { id: string; op: string; actor: string; tool?: string }[];
  assert.equal(list[0].op, 'create');
  assert.equal((await run('memory', 'undo', list[0].id)).code, 0);
  assert.equal(d.memory.graph.matchingFacts(['sailing']).length, 0);
  assert.equal((await run('memory', 'undo', list[0].id)).code, 1, 'undone already');
  assert.match((await run('memory', 'history', 'Clara')).out, /undone by #/);
});

test('0520: `waiter memory forget --turn … --keep-fact <id>` keeps the fact without its turn; an id not in the preview is a usage error and forgets nothing', async () => {
  const { main } = await import('../src/waiter/main.js');
  const run = async (...args: string[]) => {
    let out = '';
    let err = '';
    const code = await main(['node', 'waiter', '--home', home, ...args], { out: (t) => void (out += t), err: (t) => void (err += t) });
    return { code, out, err };
  };
  const sid = 'cli:keepfact';
  await d.sessions.create({ channel: 'cli', id: sid });
  const { turnId } = d.sessions.nextTurn(sid);
  const text = '我叫小林，住在杭州';
  await d.sessions.append(sid, { turnId, kind: 'user', text });
  d.memory.context.append({ kind: 'user', source: 'cli', channel: 'cli', sessionId: sid, refs: [turnId], input: text, response: '' });
  await d.memory.heartbeats.runOnce('rules');
  const name = d.memory.graph.relationsOf('user', 'name').find((r) => r.object === '小林')!;
  assert.ok(name, 'the distiller took the name');
  const dry = await run('memory', 'forget', '--turn', turnId, '--keep-fact', `#${name.id}`, '--dry-run');
  assert.equal(dry.code, 0, dry.err);
  assert.match(dry.out, new RegExp(`#${name.id} {2}user name 小林 .*\\(kept: --keep-fact, without its turn\\)`));
  const unknown = await run('memory', 'forget', '--turn', turnId, '--keep-fact', '987654', '--yes');
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /--keep-fact 987654: no such fact in what would be forgotten \(nothing was forgotten\)/);
  assert.equal((await run('memory', 'forget', '--turn', turnId, '--keep-fact', 'abc', '--yes')).code, 2);
  assert.equal(d.host.services.use('host.memory-control')!.isTombstoned(turnId), false, 'nothing was forgotten');
  const yes = await run('memory', 'forget', '--turn', turnId, '--keep-fact', String(name.id), '--yes');
  assert.equal(yes.code, 0, yes.err);
  assert.match(yes.out, /forgotten: turns 1, .*\nkept: 1 fact, without the forgotten turns/);
  assert.equal(d.memory.graph.relation(name.id)?.object, '小林');
  assert.equal(d.memory.graph.relation(name.id)?.sentence, undefined);
  assert.equal(d.memory.graph.relationsOf('user', 'lives_in').filter((r) => r.object === '杭州').length, 0);
  // Over the socket, a fact the turn did not give is refused by the daemon too.
  await assert.rejects(c.request('memory.forget', { turnIds: [turnId], keepRelationIds: [987654] }), /fact/);
});

test('waiter export --passphrase-env / import --dry-run / import: the whole memory through the socket, with progress', async () => {
  const { main } = await import('../src/waiter/main.js');
  const run = async (...args: string[]) => {
    let out = '';
    let err = '';
    const code = await main(['node', 'waiter', '--home', home, '--json', ...args], { out: (t) => void (out += t), err: (t) => void (err += t) });
    return { code, out, err };
  };
  await d.memory.knowledge.create('trip', 'Lisbon in May');
  process.env.HA_TEST_PASS = 'river-9';
  const file = join(home, 'out', 'backup.zip.age');
  // A folder that is not there is refused, not made (a typo in the path).
  const missing = await run('export', file, '--passphrase-env', 'HA_TEST_PASS');
  assert.equal(missing.code, 1);
  assert.match(missing.err, /there is no folder .*out: create it first/);
  (await import('node:fs')).mkdirSync(join(home, 'out'));
  const ex = await run('export', file, '--passphrase-env', 'HA_TEST_PASS');
  assert.equal(ex.code, 0, ex.err);
  assert.match(ex.err, /"event":"progress","phase":"pack"/);
  assert.match(JSON.parse(ex.out).file.name, /backup\.zip\.age/);
  assert.equal((await run('export', file)).code, 1, 'an existing file is never replaced');
  assert.doesNotMatch(ex.err, /note:/);
  // A name that says another format is written all the same, with a note of what it really is.
  const tgz = await run('export', join(home, 'out', 'backup.tar.gz'));
  assert.equal(tgz.code, 0, tgz.err);
  assert.match(tgz.err, /note: the archive is a zip file whatever its name; "backup\.tar\.gz" does not end in \.zip/);
  const wrong = await run('import', file, '--passphrase-env', 'HOME');
  assert.equal(wrong.code, 1);
  assert.match(wrong.err, /TRANSFER_WRONG_PASSPHRASE/);
  const dry = await run('import', file, '--passphrase-env', 'HA_TEST_PASS', '--dry-run', '--mode', 'keep-both');
  assert.equal(dry.code, 0, dry.err);
  assert.equal(JSON.parse(dry.out).report.parts.knowledge.same >= 1, true);
  const imp = await run('import', file, '--passphrase-env', 'HA_TEST_PASS', '--mode', 'overwrite');
  assert.equal(imp.code, 0, imp.err);
  assert.equal(JSON.parse(imp.out).state, 'done');
  assert.equal((await run('import', file, '--mode', 'sideways')).code, 2);
  delete process.env.HA_TEST_PASS;
});

test('waiter shows times in core.agent.timezone, not the machine\'s zone (decision 0270)', async () => {
  const { execFile } = await import('node:child_process');
  const { localStamp } = await import('../src/spec/index.js');
  const waiter = (...args: string[]) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'src', 'waiter', 'main.ts'), '--home', home, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, TZ: 'Asia/Shanghai' } }, (err, stdout, stderr) =>
        resolve({ status: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
  await c.request('knowledge.put', { name: 'zone-note', content: 'a note to show a time' });
  const entry = (await c.request<{ name: string; updatedAt: number }[]>('knowledge.list')).find((k) => k.name === 'zone-note');
  assert.ok(entry?.updatedAt, 'the list carries the time it shows');
  await d.config.set('core.agent.timezone', 'America/New_York');
  try {
    const out = await waiter('knowledge', 'list');
    assert.equal(out.status, 0, out.stderr);
    assert.ok(out.stdout.includes(localStamp(entry.updatedAt, 'America/New_York')), out.stdout);
    assert.ok(!out.stdout.includes(localStamp(entry.updatedAt, 'Asia/Shanghai')), out.stdout);
  } finally {
    await d.config.reset('core.agent.timezone');
    await c.request('knowledge.delete', { name: 'zone-note' });
  }
});

test('waiter output that does not fit a pipe buffer arrives whole (it exits only once stdout has drained)', async () => {
  const { execFile } = await import('node:child_process');
  // 200,000 characters: three times the 64 KiB a pipe takes at once.
  const content = Array.from({ length: 4000 }, (_, i) => `line ${String(i).padStart(4, '0')} of the long entry, padded to fifty chars.`).join('\n');
  await c.request('knowledge.put', { name: 'long-entry', content });
  const out = await new Promise<string>((resolve, reject) => {
    // Through a pipe whose reader starts late (`| (sleep 1; cat)`), as `| less` or a busy `jq`: what
    // did not fit the pipe is still queued in waiter when its command is done.
    const q = (x: string) => `'${x.replace(/'/g, `'\\''`)}'`;
    const cmd = [process.execPath, '--import', 'tsx', join(import.meta.dirname, '..', 'src', 'waiter', 'main.ts'), '--home', home, '--json', 'knowledge', 'get', 'long-entry'].map(q).join(' ');
    const child = execFile('sh', ['-c', `${cmd} | (sleep 1; cat)`], { encoding: 'utf8', timeout: 30_000, maxBuffer: 10 * 1024 * 1024 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin?.end();
  });
  assert.ok(out.length > 200_000, `got ${out.length} characters`);
  assert.equal((JSON.parse(out) as { content: string }).content, content);
});

test('`waiter --version` prints the package version and exits 0, with no daemon needed', async () => {
  const { spawnSync } = await import('node:child_process');
  const { readFileSync } = await import('node:fs');
  const version = (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'src', 'waiter', 'main.ts'), '--version'], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, HOMEAGENT_HOME: join(home, 'nowhere') } });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), version);
});

test('`status` lists each chat channel\'s own state, as its Channels card shows it (a running plugin may be a stopped channel)', async () => {
  await d.config.set('plugin.telegram.bot_token', '123456:AAbad-token-for-the-test-only-xx');
  await d.config.set('plugin.telegram.api_root', 'http://127.0.0.1:9');
  try {
    let channels: { name: string; status: string; detail?: string }[] = [];
    for (let i = 0; i < 100; i++) {
      channels = (await c.request<{ channels: typeof channels }>('status')).channels;
      if (channels.find((x) => x.name === 'telegram')?.status !== 'idle') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const tg = channels.find((x) => x.name === 'telegram');
    assert.ok(tg, JSON.stringify(channels));
    assert.notEqual(tg.status, 'running', 'an unreachable Bot API is not reported as running');
    assert.ok(tg.detail, 'it says why');
    assert.ok(channels.some((x) => x.name === 'qq'));
  } finally {
    await d.config.reset('plugin.telegram.bot_token');
    await d.config.reset('plugin.telegram.api_root');
  }
});

test('waiter whose reader closes the pipe early (`| head -c 100`) stops quietly, without a stack trace', async () => {
  const { execFile } = await import('node:child_process');
  const content = 'x'.repeat(1_000_000);
  await c.request('knowledge.put', { name: 'epipe-entry', content });
  const q = (x: string) => `'${x.replace(/'/g, `'\\''`)}'`;
  const cmd = [process.execPath, '--import', 'tsx', join(import.meta.dirname, '..', 'src', 'waiter', 'main.ts'), '--home', home, 'knowledge', 'get', 'epipe-entry'].map(q).join(' ');
  const stderr = await new Promise<string>((resolve, reject) => {
    const child = execFile('sh', ['-c', `${cmd} | head -c 100 >/dev/null`], { encoding: 'utf8', timeout: 30_000 }, (err, _out, err2) => (err && !err2 ? reject(err) : resolve(err2)));
    child.stdin?.end();
  });
  assert.doesNotMatch(stderr, /EPIPE|at .*\(|Node\.js v/, stderr);
});

test('0620: `waiter providers take` shows a held adapter\'s code and takes it only when confirmed; one that replaces a shipped adapter needs --replace', async () => {
  const { execFile } = await import('node:child_process');
  const { existsSync, readFileSync } = await import('node:fs');
  const waiter = (...args: string[]) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'src', 'waiter', 'main.ts'), '--home', home, ...args], { encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ status: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
  const code = '-- HELD-BY-AN-IMPORT\nlocal base = import_adapter("openai-compatible")\ntransform_request = base.transform_request\n';
  mkdirSync(join(home, 'adapters', 'imported'), { recursive: true });
  writeFileSync(join(home, 'adapters', 'imported', 'cli-vendor.lua'), code);
  writeFileSync(join(home, 'adapters', 'imported', 'openai.lua'), code);
  assert.match((await waiter('providers', 'held')).stdout, /cli-vendor[\s\S]*openai/);
  assert.equal((await waiter('providers', 'show-held', 'cli-vendor')).stdout, code);
  // No terminal to ask on, no --yes: the code is shown, nothing is taken.
  const asked = await waiter('providers', 'take', 'cli-vendor');
  assert.equal(asked.status, 1, asked.stderr);
  assert.ok(asked.stdout.includes(code.trimEnd()), asked.stdout);
  assert.match(asked.stderr, /not taken/);
  assert.equal(existsSync(join(home, 'adapters', 'cli-vendor.lua')), false);
  // Named like a shipped adapter: --yes is not enough.
  const shipped = await waiter('providers', 'take', 'openai', '--yes');
  assert.equal(shipped.status, 1);
  assert.match(shipped.stderr, /--replace/);
  assert.equal(existsSync(join(home, 'adapters', 'openai.lua')), false);
  const yes = await waiter('providers', 'take', 'cli-vendor', '--yes');
  assert.equal(yes.status, 0, yes.stderr);
  assert.equal(readFileSync(join(home, 'adapters', 'cli-vendor.lua'), 'utf8'), code);
  assert.ok((await c.request<{ adapters: string[] }>('providers.list')).adapters.includes('cli-vendor'));
});
