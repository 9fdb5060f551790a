import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { extractKeywords, jiebaLoaded, lexicalTokens, surfaceWords } from './tokenizer.js';

const require = createRequire(import.meta.url);

test('jieba: nothing loads for English; Chinese text loads the segmenter only; keywords load the TF-IDF extractor', () => {
  assert.deepEqual(jiebaLoaded(), { segmenter: false, keywords: false });
  assert.deepEqual(lexicalTokens('The cats were running home'), ['cat', 'run', 'home']);
  assert.deepEqual(jiebaLoaded(), { segmenter: false, keywords: false });

  const zh = lexicalTokens('我喜欢在北京吃烤鸭');
  assert.ok(zh.includes('北京') && zh.includes('烤鸭'), zh.join(','));
  assert.ok(surfaceWords('今天去天安门').includes('天安门'));
  assert.deepEqual(jiebaLoaded(), { segmenter: true, keywords: false }, 'indexing Chinese text does not load the keyword dictionary');

  assert.ok(extractKeywords('今天我们去北京天安门看升旗', 3).includes('天安门'));
  assert.deepEqual(jiebaLoaded(), { segmenter: true, keywords: true });
});

test('jieba: the dictionary files are not kept in memory after the dictionaries are built', () => {
  lexicalTokens('我喜欢在北京吃烤鸭');
  extractKeywords('今天我们去北京天安门看升旗', 3);
  // @node-rs/jieba/dict.js holds both files (11 MiB of buffers) for as long as it is in the module cache.
  const dictJs = require.resolve('@node-rs/jieba/dict.js');
  assert.equal(require.cache[dictJs], undefined, 'dict.js was never required');
});
