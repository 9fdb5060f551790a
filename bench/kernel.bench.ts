/**
 * Kernel overhead per turn (C-1…C-8) against a zero-latency fake LLM over loopback HTTP.
 *
 * Every LLM call the kernel makes is timed at the LLM port, so the kernel's own share of a turn is
 * exact per turn: overhead = turn wall time − time inside LLM calls. A raw `fetch` of the same kind
 * of streaming request to the fake server is measured in the same run as the HTTP baseline. Two
 * session stores: the real JSONL SessionStore (durable: fdatasync per event) and an in-memory
 * port, to separate the kernel's CPU cost from the disk syncs of the session log.
 * Target: p95 kernel overhead < 2 ms (in-memory sessions).
 */
import type { SessionEvent, SessionInfo } from '../src/spec/index.js';
import type { LlmPort, SessionPort } from '../src/kernel/index.js';
import { startHarness, SESSION, type KernelHarness } from '../src/kernel/__fixtures__/kernel-harness.js';
import type { BenchRow } from './run.js';
import { percentile as pct } from './stats.js';

/** Percentile by nearest rank of an unsorted sample. */
function row(name: string, unit: string, xs: number[], baseline?: string): BenchRow {
  return { name, unit, p50: pct(xs, 50), p95: pct(xs, 95), n: xs.length, ...(baseline ? { baseline } : {}) };
}

/** Sessions kept in memory: the kernel's SessionPort without disk. */
class MemorySessions implements SessionPort {
  private readonly infos = new Map<string, SessionInfo & { events: SessionEvent[]; counter: number }>();
  async ensure(id: string, channel: string): Promise<SessionInfo> {
    let s = this.infos.get(id);
    if (!s) this.infos.set(id, (s = { id, channel, title: '', createdAt: Date.now(), updatedAt: Date.now(), turns: 0, lastSeq: 0, events: [], counter: 0 }));
    return s;
  }
  nextTurn(sessionId: string): { turnId: string; turnSeq: number } {
    const s = this.infos.get(sessionId);
    const n = (s ? ++s.counter : 1) as number;
    return { turnId: `${sessionId}#${n}`, turnSeq: n };
  }
  async append(id: string, event: Omit<SessionEvent, 'seq' | 'at'> & { at?: number }): Promise<SessionEvent> {
    const s = this.infos.get(id)!;
    const ev: SessionEvent = { ...event, seq: ++s.lastSeq, at: event.at ?? Date.now() };
    s.events.push(ev);
    if (s.events.length > 1000) s.events.splice(0, 500);
    return ev;
  }
}

/** Times every LLM call; `take()` returns the time spent inside calls since the last take. */
function timedLlm(): { wrap: (llm: LlmPort) => LlmPort; take: () => number; calls: number[] } {
  let inside = 0;
  const calls: number[] = [];
  return {
    calls,
    take: () => {
      const v = inside;
      inside = 0;
      return v;
    },
    wrap: (llm) => ({
      available: () => llm.available(),
      run: async (req, opts) => {
        const t0 = performance.now();
        try {
          return await llm.run(req, opts);
        } finally {
          const dt = performance.now() - t0;
          inside += dt;
          calls.push(dt);
        }
      },
    }),
  };
}

/** One streaming request like the provider's, straight to the fake server. */
async function rawFetch(h: KernelHarness): Promise<number> {
  const body = JSON.stringify({
    model: 'fake-model',
    stream: true,
    stream_options: { include_usage: true },
    messages: [
      { role: 'system', content: 'You are a benchmark.' },
      { role: 'user', content: 'hello' },
    ],
  });
  const t0 = performance.now();
  const res = await fetch(`${h.fake.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench' }, body });
  await res.text();
  const dt = performance.now() - t0;
  h.fake.requests.length = 0;
  return dt;
}

interface Setup {
  h: KernelHarness;
  t: ReturnType<typeof timedLlm>;
  turn: number[];
  overhead: number[];
  toolOverhead: number[];
  llm: number[];
}

async function setup(memory: boolean): Promise<Setup> {
  const t = timedLlm();
  const h = await startHarness({ wrapLlm: t.wrap, sessions: memory ? new MemorySessions() : undefined });
  h.agent.stages.registerTool({ name: 'bench_echo', description: 'echo', parameters: { type: 'object', properties: { x: { type: 'string' } } }, handler: (a) => String(a.x) }, 'bench');
  return { h, t, turn: [], overhead: [], toolOverhead: [], llm: [] };
}

/** One turn; records wall time and kernel overhead (wall time minus time inside LLM calls). */
async function turn(s: Setup, i: number, withTool: boolean, record: boolean): Promise<void> {
  const { h, t } = s;
  if (withTool) h.fake.enqueue({ toolCalls: [{ name: 'bench_echo', arguments: { x: String(i) } }] }, { text: 'done' });
  else h.fake.enqueue({ text: 'ok' });
  t.take();
  const before = t.calls.length;
  const t0 = performance.now();
  const out = await h.agent.injectInput({ sessionId: SESSION, source: 'bench', text: `message ${i}` }).done;
  const dt = performance.now() - t0;
  const inLlm = t.take();
  if (out.status !== 'ok') throw new Error(`bench turn failed: ${out.status} ${out.error?.message ?? ''}`);
  h.fake.requests.length = 0;
  if (!record) return;
  if (withTool) s.toolOverhead.push(dt - inLlm);
  else {
    s.turn.push(dt);
    s.overhead.push(dt - inLlm);
    s.llm.push(...t.calls.slice(before));
  }
}

/**
 * The kernel benchmark rows. Samples of the two session stores and the raw-fetch baseline are
 * interleaved, so background load hits them alike.
 */
export async function run(opts: { turns?: number; warmup?: number } = {}): Promise<BenchRow[]> {
  const n = opts.turns ?? 300;
  const warm = opts.warmup ?? 30;
  const mem = await setup(true);
  const disk = await setup(false);
  const raw: number[] = [];
  try {
    for (let i = 0; i < warm + n; i++) {
      const record = i >= warm;
      const r = await rawFetch(mem.h);
      if (record) raw.push(r);
      await turn(mem, i, false, record);
      await turn(disk, i, false, record);
      if (i % 2 === 0) {
        await turn(mem, i, true, record);
        await turn(disk, i, true, record);
      }
    }
  } finally {
    await mem.h.close();
    await disk.h.close();
  }
  const rawName = 'raw fetch to fake LLM (stream)';
  return [
    row(rawName, 'ms', raw),
    row('LLM call via provider manager', 'ms', mem.llm, rawName),
    row('turn, 1 LLM round, in-memory sessions', 'ms', mem.turn, rawName),
    row('kernel overhead / turn, in-memory sessions (target p95 < 2)', 'ms', mem.overhead),
    row('kernel overhead / 2-round tool turn, in-memory sessions', 'ms', mem.toolOverhead),
    row('turn, 1 LLM round, JSONL sessions (fdatasync)', 'ms', disk.turn, rawName),
    row('kernel overhead / turn, JSONL sessions', 'ms', disk.overhead),
    row('kernel overhead / 2-round tool turn, JSONL sessions', 'ms', disk.toolOverhead),
  ];
}
