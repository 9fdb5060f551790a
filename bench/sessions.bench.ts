/**
 * Reading a long session (the chat view reads its session after every turn): `events()` of a
 * 5,000-event session from a freshly opened store (parses the JSONL log: the baseline) against
 * later reads of the same session (kept in memory and current through appends), and the page a
 * chat opens with — the newest 200 events — from a store that does not hold the log in memory
 * (read backwards from the log's end).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchRow } from './run.js';
import { SessionStore } from '../src/sessions/index.js';
import { percentile as pct } from './stats.js';

const EVENTS = 5000;const round = (x: number) => Math.round(x * 1000) / 1000;

export async function run(): Promise<BenchRow[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-bench-sessions-'));
  const dir = path.join(root, 'sessions');
  try {
    const writer = new SessionStore({ dir, logger: { warn: () => {} } });
    await writer.open();
    const id = 'webui:bench';
    await writer.create({ channel: 'webui', id });
    const text = '这是一段用于基准测试的对话内容，包含一些中文和 some English words. '.repeat(4);
    for (let i = 0; i < EVENTS; i += 2) {
      const t = writer.nextTurn(id);
      await Promise.all([writer.append(id, { turnId: t.turnId, kind: 'user', text }), writer.append(id, { turnId: t.turnId, kind: 'assistant', text, data: { status: 'ok' } })]);
    }
    await writer.close();
    const cold: number[] = [];
    const warm: number[] = [];
    const tail: number[] = [];
    for (let rep = 0; rep < 15; rep++) {
      const store = new SessionStore({ dir, logger: { warn: () => {} } });
      await store.open();
      let t0 = performance.now();
      const page = await store.events(id, { beforeSeq: EVENTS + 1, limit: 200 });
      tail.push(performance.now() - t0);
      if (page.length !== 200 || page[199].seq !== EVENTS) throw new Error('the newest page is not the end of the log');
      t0 = performance.now();
      const n = (await store.events(id)).length;
      cold.push(performance.now() - t0);
      if (n !== EVENTS) throw new Error(`read ${n} events, wrote ${EVENTS}`);
      for (let i = 0; i < 10; i++) {
        t0 = performance.now();
        await store.events(id);
        warm.push(performance.now() - t0);
      }
      await store.close();
    }
    const row = (name: string, xs: number[], baseline?: string): BenchRow => ({ name, unit: 'ms', p50: round(pct(xs, 50)), p95: round(pct(xs, 95)), n: xs.length, baseline });
    const base = `session events() of ${EVENTS} events, first read (parses the log)`;
    return [row(base, cold), row(`session events() of ${EVENTS} events, later reads (in memory)`, warm, base), row(`session newest page (200) of ${EVENTS} events, not in memory (read from the log's end)`, tail, base)];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((rows) => console.table(rows), (e) => {
    console.error(e);
    process.exit(1);
  });
}
