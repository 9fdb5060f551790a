import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PluginError } from '../spec/index.js';
import { createTestHost, ScriptedLlm } from '../sdk/testing/index.js';
import { FIXTURES, fixtureHome } from './__fixtures__/fixture-home.js';
import { parseSkill } from './skill-catalog.js';

test('parseSkill reads front-matter and instructions; bad files get SKILL_BAD_FILE', () => {
  const s = parseSkill('---\nname: x-y\ndescription: >\n  Does\n  things\n---\n\nStep 1.\n', 'SKILL.md');
  assert.deepEqual({ ...s, file: undefined }, { name: 'x-y', description: 'Does things', instructions: 'Step 1.', file: undefined });
  for (const bad of ['no front matter', '---\nname: [unclosed\n---\nx', '---\ndescription: d\n---\nx', '---\nname: ok\n---\nx', '---\nname: "../evil"\ndescription: d\n---\n']) {
    assert.throws(() => parseSkill(bad, 'SKILL.md'), (e: unknown) => e instanceof PluginError && e.code === 'SKILL_BAD_FILE', bad);
  }
});

test('P-5: skills from <home>/skills and from plugin folders are listed in the prompt and loaded with skill_load', async (t) => {
  const homeDir = fixtureHome('ext-with-skill');
  mkdirSync(join(homeDir, 'skills'));
  cpSync(join(FIXTURES, 'skill-haiku'), join(homeDir, 'skills', 'haiku'), { recursive: true });
  mkdirSync(join(homeDir, 'skills', 'broken'));
  writeFileSync(join(homeDir, 'skills', 'broken', 'SKILL.md'), 'no front matter here');
  const llm = new ScriptedLlm([{ toolCalls: [{ name: 'skill_load', arguments: { name: 'haiku-writer' } }] }, { text: 'an old silent pond' }]);
  const h = await createTestHost({ homeDir, llm });
  t.after(async () => {
    await h.close();
    rmSync(homeDir, { recursive: true, force: true });
  });
  assert.equal(h.plugin('haiku-writer')?.kind, 'skill');
  assert.equal(h.plugin('haiku-writer')?.state, 'running');
  assert.equal(h.plugin('release-notes')?.state, 'running');
  assert.equal(h.plugin('broken')?.state, 'failed');
  assert.match(h.plugin('broken')!.lastError!, /front-matter/);
  const prompt = await h.systemPrompt();
  assert.match(prompt, /- haiku-writer: Write a haiku \(5-7-5 syllables\) about any topic the user gives\./);
  assert.match(prompt, /- release-notes: Draft release notes/);
  assert.doesNotMatch(prompt, /Never explain the poem/, 'instructions are loaded on demand only');
  assert.match(await h.callTool('skill_load', { name: 'haiku-writer' }), /Never explain the poem unless asked/);
  await assert.rejects(h.callTool('skill_load', { name: 'nope' }), /skill not found: nope/);
  // Whole turn: the model loads the skill, the instructions reach the next LLM call.
  const outcome = await h.send('write a haiku about ponds');
  assert.equal(outcome.text, 'an old silent pond');
  assert.match(JSON.stringify(llm.requests[1].messages), /Never explain the poem/);
  // Disabling a skill removes it from the list.
  await h.registry.disable('haiku-writer');
  assert.doesNotMatch(await h.systemPrompt(), /haiku-writer/);
  // Editing SKILL.md + reload picks up the change.
  writeFileSync(join(homeDir, 'plugins', 'ext-with-skill', 'skills', 'release-notes', 'SKILL.md'), '---\nname: release-notes\ndescription: Changed description\n---\nNew body');
  await h.registry.reload('release-notes');
  assert.match(await h.systemPrompt(), /- release-notes: Changed description/);
  assert.equal(await h.callTool('skill_load', { name: 'release-notes' }), '# Skill: release-notes\n\nNew body');
});
