import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigRegistry, coreConfigDefaults } from '../config/index.js';
import { OWNER_SPEAKER_ID, type ContextEvent, type PluginLogger } from '../spec/index.js';
import { MemorySystem } from '../memory/index.js';
import { eventDocument } from '../memory/documents/index.js';
import { ManualScheduler } from '../memory/heartbeat/index.js';
import { aboutPerson } from './memory-about.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-about-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('about me: what the owner said in the CLI or the WebUI (no speaker recorded) is listed from every tier; a channel person sees only theirs', async () => {
  const home = path.join(root, 'h');
  fs.mkdirSync(home, { recursive: true });
  const config = new ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: { info() {}, warn() {}, error() {} } as never });
  config.open();
  config.register(coreConfigDefaults());
  const log: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} };
  const mem = new MemorySystem({ homeDir: home, config, log, scheduler: new ManualScheduler(Date.now()) });
  await mem.open();
  try {
    let i = 0;
    const ev = (input: string, who?: string): ContextEvent => {
      i++;
      const channel = who ? 'telegram' : 'cli';
      return { id: `e${i}`, timestamp: Date.UTC(2026, 0, i), kind: 'user', source: channel, channel, sessionId: `${channel}:1`, input, response: '', refs: [`${channel}:1#${i}`], ...(who ? { speaker: { id: who, name: 'Alice' } } : {}) };
    };
    // The owner (no speaker) and Alice (telegram:42): one turn each in the archive, the warm documents and the context window.
    mem.archive.putMany([eventDocument(ev('I grew up in Hangzhou'), 0), eventDocument(ev('Alice here: my cat is Mochi', 'telegram:42'), 0)]);
    mem.docs.restore([eventDocument(ev('I play tennis on Sundays'), 0), eventDocument(ev('Alice here: I practise violin', 'telegram:42'), 0)]);
    const live = ({ id: _id, timestamp: _at, ...e }: ContextEvent) => mem.context.append(e);
    live(ev('My sister Anna lives in Berlin'));
    live(ev('Alice here: off to Paris', 'telegram:42'));

    const me = await aboutPerson(mem, { names: ['Owner', OWNER_SPEAKER_ID], speakerIds: [OWNER_SPEAKER_ID] });
    assert.deepEqual(
      me.documents.map((d) => `${d.tier}: ${d.text}`),
      ['context: My sister Anna lives in Berlin', 'document: I play tennis on Sundays', 'archive: I grew up in Hangzhou'],
    );
    assert.ok(me.documents.every((d) => d.turnId?.startsWith('cli:1#') && d.sessionId === 'cli:1'), 'each names its source turn');

    const alice = await aboutPerson(mem, { names: ['Alice'], speakerIds: ['telegram:42'] });
    assert.deepEqual(alice.documents.map((d) => d.tier).sort(), ['archive', 'context', 'document']);
    assert.ok(alice.documents.every((d) => d.text.startsWith('Alice here') && d.speaker?.id === 'telegram:42'), JSON.stringify(alice.documents));
  } finally {
    await mem.close();
    config.close();
  }
});
