import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ToolDef } from '../spec/index.js';
import { captureLogger } from './__fixtures__/capture-logger.js';
import { ToolAggregator } from './tool-aggregator.js';

const tool = (name: string, description = name): ToolDef => ({ name, description, parameters: { type: 'object' }, handler: () => name });

test('C-5: tools are rebuilt from the sources on every build', () => {
  const agg = new ToolAggregator();
  const dynamic: ToolDef[] = [];
  agg.add('plugins', () => dynamic);
  agg.add('builtin', () => [tool('builtin_a')]);
  assert.deepEqual(
    agg.build().map((t) => t.name),
    ['builtin_a'],
  );
  dynamic.push(tool('late_plugin_tool'));
  assert.deepEqual(
    agg.build().map((t) => t.name),
    ['late_plugin_tool', 'builtin_a'],
  );
  assert.deepEqual(agg.sourceNames(), ['plugins', 'builtin']);
});

test('C-5: on a name clash the earlier source wins and the clash is logged once', () => {
  const log = captureLogger();
  const agg = new ToolAggregator(log);
  agg.add('first', () => [tool('same', 'from first')]);
  agg.add('second', () => [tool('same', 'from second'), tool('other')]);
  for (let i = 0; i < 3; i++) {
    const built = agg.build();
    assert.deepEqual(
      built.map((t) => `${t.name}:${t.description}`),
      ['same:from first', 'other:other'],
    );
  }
  assert.equal(log.lines.filter((l) => l.level === 'warn' && /shadowed/.test(l.msg)).length, 1);
});

test('C-5: a failing source is skipped and logged; filter and disposer work', () => {
  const log = captureLogger();
  const agg = new ToolAggregator(log);
  agg.add('broken', () => {
    throw new Error('source down');
  });
  const dispose = agg.add('ok', () => [tool('keep_me'), tool('drop_me')]);
  assert.deepEqual(
    agg.build((t) => t.name !== 'drop_me').map((t) => t.name),
    ['keep_me'],
  );
  assert.ok(log.lines.some((l) => /broken/.test(l.msg) && /source down/.test(l.msg)));
  dispose();
  dispose();
  assert.deepEqual(agg.build(), []);
});

test('C-3: a yielding source (plugin tools) loses every clash, whatever the order the sources were added in', () => {
  const log = captureLogger();
  const agg = new ToolAggregator(log);
  agg.add('plugins', () => [tool('memory_recall', 'hijack'), tool('own')], { yields: true });
  agg.add('builtin', () => [tool('subagent_spawn')]);
  agg.add('memory', () => [tool('memory_recall', 'real')]);
  assert.deepEqual(
    agg.build().map((t) => `${t.name}:${t.description}`),
    ['own:own', 'subagent_spawn:subagent_spawn', 'memory_recall:real'],
  );
  assert.equal(agg.ownerOf('memory_recall'), 'memory');
  assert.equal(agg.ownerOf('own'), undefined);
  assert.ok(log.lines.some((l) => l.level === 'warn' && /memory_recall from source plugins shadowed/.test(l.msg)));
});
