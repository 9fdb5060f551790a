import { test } from 'node:test';
import assert from 'node:assert/strict';
import { titleFromConversation, titleFromMessage } from './session-title.js';

test('a session title from the first message: first line, collapsed, cut at a word near 40 characters', () => {
  assert.equal(titleFromMessage('  hello   there \nsecond line'), 'hello there');
  assert.equal(titleFromMessage('Plan my trip to Kyoto next spring, with temples and gardens please'), 'Plan my trip to Kyoto next spring, with…');
  assert.equal(titleFromMessage('\n\n  \nlater line'), 'later line');
  // Chinese has no spaces: cut at 40 characters.
  const zh = '帮我规划一下明年春天去京都的旅行，我想看寺庙和庭园，还想吃抹茶甜点，顺便去奈良看看小鹿';
  assert.equal(titleFromMessage(zh), `${[...zh].slice(0, 40).join('')}…`);
  assert.equal(titleFromMessage('', ['invoice-2024.pdf']), 'invoice-2024.pdf');
  assert.equal(titleFromMessage('   '), '');
});

test('a chat on a chat app is named after who or where it is', () => {
  assert.equal(titleFromConversation({ title: 'Wen  Li', platform: 'telegram' }), 'Wen Li · Telegram');
  assert.equal(titleFromConversation({ title: '家庭群', platform: 'qq' }), '家庭群 · QQ');
  assert.equal(titleFromConversation({ title: 'Ops', platform: 'matrix' }), 'Ops · matrix');
  assert.equal(titleFromConversation({ title: 'x'.repeat(60), platform: 'qq' }), `${'x'.repeat(40)}… · QQ`);
  // No name from the channel: the first message names it, as before.
  assert.equal(titleFromConversation({ title: '  ', platform: 'qq' }), '');
  assert.equal(titleFromConversation(undefined), '');
});
