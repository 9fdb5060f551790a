/**
 * The WebUI says what the daemon says in English about its built-ins in Chinese too
 * (web/src/lib/builtin-texts.ts): every built-in plugin's description (the skills list included),
 * every seeded LLM source's name that is not a product's own, every adapter (decision 0530). A
 * plugin, source or adapter added to the daemon fails here until the page has its words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BUILTIN_PLUGIN_NAMES, builtinPlugins } from '../src/builtins/index.js';
import { SkillCatalog, skillsPlugin } from '../src/plugins/index.js';
import { SEEDED_SOURCES } from '../src/providers/provider-config.js';
import { PLUGIN_ZH, adapterLabel, pluginDescription, sourceLabel } from '../web/src/lib/builtin-texts.js';
import { CHANNEL_WORD_CODES } from '../src/builtins/shared/channel-words.js';
import { dict } from '../web/src/i18n-dict.js';

/** Product names kept as they are in Chinese (decision 0530). */
const PRODUCT_NAMES = new Set(['DeepSeek', 'OpenAI', 'Anthropic', 'Google Gemini']);

test('every built-in plugin has a Chinese description in the WebUI; English is the server’s own', () => {
  const missing = BUILTIN_PLUGIN_NAMES.filter((n) => !PLUGIN_ZH[n]);
  assert.deepEqual(missing, []);
  // The skills list is built in too, started by the daemon beside the others (src/plugins).
  for (const p of [...builtinPlugins(), skillsPlugin(new SkillCatalog())]) {
    assert.equal(pluginDescription('en', p.name, p.description), p.description);
    if (p.description) assert.notEqual(pluginDescription('zh', p.name, p.description), p.description, p.name);
  }
});

test("every seeded LLM source is named in Chinese, or is a product's own name", () => {
  const left = SEEDED_SOURCES.filter((s) => sourceLabel('zh', s) === s.label && !PRODUCT_NAMES.has(s.label)).map((s) => s.label);
  assert.deepEqual(left, []);
  assert.equal(sourceLabel('zh', { name: 'ollama', label: 'Ollama (local)' }), 'Ollama（本机）');
  assert.equal(sourceLabel('en', { name: 'ollama', label: 'Ollama (local)' }), 'Ollama (local)');
  // A source the person added keeps the name they gave it, even one named like a seeded one.
  assert.equal(sourceLabel('zh', { name: 'qwen', label: 'Qwen (DashScope)', custom: true }), 'Qwen (DashScope)');
});

test('every adapter the daemon ships is said in words; one the person wrote keeps its name', () => {
  const ids = readdirSync(join(resolve(import.meta.dirname, '..'), 'src', 'providers', 'adapters')).filter((f) => f.endsWith('.lua')).map((f) => f.slice(0, -4));
  assert.ok(ids.includes('openai-compatible'));
  assert.deepEqual(ids.filter((id) => adapterLabel('zh', id) === id), []);
  assert.equal(adapterLabel('zh', 'openai-compatible'), 'OpenAI 兼容接口');
  assert.equal(adapterLabel('en', 'openai-compatible'), 'OpenAI-compatible API');
  assert.equal(adapterLabel('zh', 'my-own'), 'my-own');
});

test('every code a chat channel words its state or test result with is worded by the page in both languages (decision 0680)', () => {
  const missing = CHANNEL_WORD_CODES.filter((c) => !(dict.en as Record<string, string>)[`channels.say.${c}`] || !(dict.zh as Record<string, string>)[`channels.say.${c}`]);
  assert.deepEqual(missing, []);
});
