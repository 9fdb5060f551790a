/**
 * A person's first message right after `homed` says it is ready runs with every built-in stage in
 * place. Readiness does not wait for slow plugins (ready_wait_ms), so a turn could start while the
 * memory manager was still starting and go to the model without its memory block (the
 * memory-manager e2e's second daemon could see this on a loaded machine). Turns now wait for the
 * built-ins' first start; the message is recorded at once. Here a built-in whose start is held by
 * the test registers its stage only when released — after the turn was accepted — and the model
 * must still see what the stage adds. No timing: the order of events is what is checked.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigRegistry, coreConfigDefaults } from '../src/config/index.js';
import type { PluginDefinition } from '../src/spec/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';

let llm: FakeLlm;
let home: string;
before(async () => {
  llm = await startFakeLlm();
  home = mkdtempSync(join(tmpdir(), 'ha-first-turn-'));
});
after(async () => {
  await llm?.close();
  rmSync(home, { recursive: true, force: true });
});

test('a turn sent while a built-in is still starting runs once it is up, with its stage', { timeout: 120_000 }, async () => {
  // Ready the moment the plugins are asked to start, as on a machine where they are slow.
  const cfg = new ConfigRegistry({ dbPath: join(home, 'config.db'), logger: { warn() {} } });
  cfg.open();
  cfg.register(coreConfigDefaults());
  await cfg.set('core.plugins.ready_wait_ms', 0);
  cfg.close();

  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const slow: PluginDefinition = {
    name: 'slow-stage',
    async start(sdk) {
      await held;
      sdk.registerStage('pre_action', (ctx) => void ctx.messages.push({ role: 'system', source: 'slow-stage', content: 'SLOW-STAGE-BLOCK: the cat is called Mochi' }));
    },
  };
  const d = await startTestDaemon({
    homeDir: home,
    env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' },
    webuiPort: 0,
    heartbeats: false,
    plugins: [slow],
    unsettled: true,
  });
  try {
    assert.equal(d.registry.get('slow-stage')?.state, 'starting', 'ready while the built-in is still starting');
    llm.enqueue({ text: 'Your cat is Mochi.' });
    const ticket = d.agent.injectInput({ sessionId: 'webui:first', source: 'webui', text: 'What is my cat called?' });
    await ticket.accepted;
    // The message is in the session log although no turn may run yet.
    assert.ok((await d.sessions.events('webui:first')).some((e) => e.kind === 'user' && e.text === 'What is my cat called?'));
    release();
    const out = await ticket.done;
    assert.equal(out.status, 'ok');
    const sent = JSON.stringify(llm.requests.filter((r) => r.format === 'openai-chat').at(-1)?.body);
    assert.match(sent, /SLOW-STAGE-BLOCK/, 'the first turn carried the stage of the built-in that was still starting');
  } finally {
    release();
    await d.stop();
  }
});
