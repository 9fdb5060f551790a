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

/** Percentile by nearest rank of an unsorted sample. */
function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

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

async function rawFetch(h: KernelHarness, n: number): Promise<number[]> {
  const body = JSON.stringify({
    model: 'fake-model',
    stream: true,
    stream_options: { include_usage: true },
    messages: [
      { role: 'system', content: 'You are a benchmark.' },
      { role: 'user', content: 'hello' },
    ],
  });
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(`${h.fake.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench' }, body });
    await res.text();
    out.push(performance.now() - t0);
  }
  h.fake.requests.length = 0;
  return out;
}

/** Runs `n` turns (after `warm` warm-up turns); returns turn times and kernel overheads. */
async function turns(h: KernelHarness, t: ReturnType<typeof timedLlm>, n: number, warm: number, withTool: boolean): Promise<{ turn: number[]; overhead: number[] }> {
  const turn: number[] = [];
  const overhead: number[] = [];
  for (let i = 0; i < warm + n; i++) {
    if (withTool) h.fake.enqueue({ toolCalls: [{ name: 'bench_echo', arguments: { x: String(i) } }] }, { text: 'done' });
    else h.fake.enqueue({ text: 'ok' });
    t.take();
    const t0 = performance.now();
    const out = await h.agent.injectInput({ sessionId: SESSION, source: 'bench', text: `message ${i}` }).done;
    const dt = performance.now() - t0;
    const inLlm = t.take();
    if (out.status !== 'ok') throw new Error(`bench turn failed: ${out.status} ${out.error?.message ?? ''}`);
    h.fake.requests.length = 0;
    if (i < warm) continue;
    turn.push(dt);
    overhead.push(dt - inLlm);
  }
  return { turn, overhead };
}

async function scenario(memory: boolean, n: number, warm: number): Promise<{ raw: number[]; llm: number[]; plain: { turn: number[]; overhead: number[] }; tool: { turn: number[]; overhead: number[] } }> {
  const t = timedLlm();
  const h = await startHarness({ wrapLlm: t.wrap, sessions: memory ? new MemorySessions() : undefined });
  try {
    h.agent.stages.registerTool({ name: 'bench_echo', description: 'echo', parameters: { type: 'object', properties: { x: { type: 'string' } } }, handler: (a) => String(a.x) }, 'bench');
    await rawFetch(h, warm);
    const raw = await rawFetch(h, n);
    const plain = await turns(h, t, n, warm, false);
    const llm = t.calls.slice(-n);
    const tool = await turns(h, t, Math.ceil(n / 2), Math.ceil(warm / 2), true);
    return { raw, llm, plain, tool };
  } finally {
    await h.close();
  }
}

/** The kernel benchmark rows. */
export async function run(opts: { turns?: number; warmup?: number } = {}): Promise<BenchRow[]> {
  const n = opts.turns ?? 300;
  const warm = opts.warmup ?? 30;
  const mem = await scenario(true, n, warm);
  const disk = await scenario(false, n, warm);
  const raw = 'raw fetch to fake LLM (stream)';
  return [
    row(raw, 'ms', mem.raw),
    row('LLM call via provider manager', 'ms', mem.llm, raw),
    row('turn, 1 LLM round, in-memory sessions', 'ms', mem.plain.turn, raw),
    row('kernel overhead / turn, in-memory sessions (target p95 < 2)', 'ms', mem.plain.overhead),
    row('kernel overhead / 2-round tool turn, in-memory sessions', 'ms', mem.tool.overhead),
    row('turn, 1 LLM round, JSONL sessions (fdatasync)', 'ms', disk.plain.turn, raw),
    row('kernel overhead / turn, JSONL sessions', 'ms', disk.plain.overhead),
    row('kernel overhead / 2-round tool turn, JSONL sessions', 'ms', disk.tool.overhead),
  ];
}
