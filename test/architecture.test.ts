/**
 * The dependency direction of ARCHITECTURE.md, checked on the source: a change that breaks it
 * fails here instead of rotting quietly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

interface Edge {
  from: string;
  to: string;
  spec: string;
}

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const f of files(src)) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith('.')) continue;
      out.push({ from: relative(src, f), to: relative(src, resolve(dirname(f), spec)).replace(/\.js$/, '.ts'), spec });
    }
  }
  return out;
}

const isTest = (p: string) => /\.test\.ts$/.test(p) || p.includes(`${sep}__fixtures__${sep}`);
const top = (p: string) => p.split(sep)[0];

test('src/fs (leaf helpers) imports nothing outside itself', () => {
  const bad = edges().filter((e) => top(e.from) === 'fs' && top(e.to) !== 'fs');
  assert.deepEqual(bad, []);
});

test('src/vector (leaf vector math) imports nothing outside itself', () => {
  const bad = edges().filter((e) => top(e.from) === 'vector' && top(e.to) !== 'vector');
  assert.deepEqual(bad, []);
});

test('src/spec imports nothing outside itself', () => {
  const bad = edges().filter((e) => top(e.from) === 'spec' && top(e.to) !== 'spec');
  assert.deepEqual(bad, []);
});

test('the kernel imports only spec, log and fs (no builtin, plugin, memory or provider)', () => {
  const bad = edges().filter((e) => top(e.from) === 'kernel' && !isTest(e.from) && !['kernel', 'spec', 'log', 'fs'].includes(top(e.to)));
  assert.deepEqual(bad, []);
});

test('built-in plugins use only the SDK and the contracts', () => {
  const bad = edges().filter((e) => {
    if (top(e.from) !== 'builtins' || isTest(e.from)) return false;
    const [, plugin] = e.from.split(sep);
    const [t, tPlugin] = e.to.split(sep);
    if (t === 'sdk' || t === 'spec') return false;
    if (t === 'builtins' && (tPlugin === plugin || tPlugin === 'shared' || e.from.split(sep).length === 2)) return false;
    return true;
  });
  assert.deepEqual(bad, []);
});

test('across subsystems, only index.ts (the public surface) is imported', () => {
  const bad = edges().filter((e) => {
    if (isTest(e.from)) return false;
    const a = e.from.split(sep);
    const b = e.to.split(sep);
    if (a[0] === b[0]) return false;
    if (b[0] === 'spec' || b[0] === 'builtins') return false;
    // one level of subsystem: src/<sub>/index.ts, or src/<sub>/<part>/index.ts for memory parts
    const file = b[b.length - 1];
    return file !== 'index.ts';
  });
  // The waiter shares the socket client with homed's status probe; that is its public surface too.
  const allowed = bad.filter((e) => !(e.from.startsWith(`daemon${sep}`) && e.to === `waiter${sep}daemon-client.ts`));
  assert.deepEqual(allowed, []);
});

test('the WebUI talks to the daemon only over HTTP (no imports from src/ except spec types)', () => {
  const web = join(root, 'web', 'src');
  if (!existsSync(web)) return;
  const bad: string[] = [];
  for (const f of files(web)) {
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith('.')) continue;
      const target = relative(root, resolve(dirname(f), spec));
      if (target.startsWith(`src${sep}`) && !target.startsWith(`src${sep}spec`)) bad.push(`${relative(root, f)} → ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});
