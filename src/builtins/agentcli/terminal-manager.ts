import { basename } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as ptyTypes from '@lydell/node-pty';
import { HomeAgentError, NotFoundError, ValidationError } from '../../spec/index.js';
import { OutputRing, stripAnsi } from './output-ring.js';
import { childEnv } from '../shared/index.js';

// The native PTY module is loaded on the first terminal, not at daemon start.
const requireLazy = createRequire(import.meta.url);
let ptyMod: typeof ptyTypes | undefined;
const pty = (): typeof ptyTypes => (ptyMod ??= requireLazy('@lydell/node-pty') as typeof ptyTypes);

/** Limits and defaults of the terminal sessions. */
export interface TerminalLimits {
  maxSessions: number;
  bufferChars: number;
  /** Programs that may be started (exact names or paths). */
  programs: string[];
}

/** One PTY session as the tools show it. */
export interface TerminalInfo {
  id: string;
  program: string;
  args: string[];
  cwd: string;
  pid: number;
  ownerSession: string;
  startedAt: number;
  exited?: { code: number; signal?: number };
}

interface Session {
  info: TerminalInfo;
  pty: ptyTypes.IPty;
  ring: OutputRing;
  cursor: number;
  waiters: Set<() => void>;
  lastActive: number;
}

/**
 * PTY terminal sessions (P-7 `agentcli`) on `@lydell/node-pty`: open a program in a
 * pseudo-terminal, write to it, read its output from a bounded ring (escape sequences removed),
 * close it. `onExit` lets the plugin report a finished session.
 */
export class TerminalManager {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly limits: () => TerminalLimits,
    private readonly onExit?: (info: TerminalInfo, tail: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Closes sessions nobody wrote to or read from for `idleMs`; returns their ids. */
  sweep(idleMs: number): string[] {
    const cutoff = this.now() - idleMs;
    const idle = [...this.sessions.values()].filter((s) => s.lastActive < cutoff).map((s) => s.info.id);
    for (const id of idle) this.close(id);
    return idle;
  }

  list(): TerminalInfo[] {
    return [...this.sessions.values()].map((s) => ({ ...s.info }));
  }

  open(req: { program?: string; args?: string[]; cwd: string; cols?: number; rows?: number; ownerSession: string; env?: Record<string, string> }): TerminalInfo {
    const lim = this.limits();
    const program = req.program ?? lim.programs[0];
    if (!program) throw new ValidationError('no program is allowed (setting plugin.agentcli.programs is empty)');
    if (!lim.programs.includes(program)) {
      throw new ValidationError(`program ${JSON.stringify(program)} is not allowed; allowed: ${lim.programs.join(', ')} (setting plugin.agentcli.programs)`, { program });
    }
    const running = [...this.sessions.values()].filter((s) => !s.info.exited).length;
    if (running >= lim.maxSessions) throw new HomeAgentError('LIMIT', `too many terminal sessions (max ${lim.maxSessions}); close one first`, { details: { max: lim.maxSessions } });
    const p = pty().spawn(program, req.args ?? [], {
      name: 'dumb',
      cols: req.cols ?? 120,
      rows: req.rows ?? 40,
      cwd: req.cwd,
      env: childEnv(process.env, { TERM: 'dumb', PAGER: 'cat', GIT_PAGER: 'cat', ...(req.env ?? {}) }),
    });
    const id = `term-${randomBytes(3).toString('hex')}`;
    const s: Session = {
      info: { id, program: basename(program), args: req.args ?? [], cwd: req.cwd, pid: p.pid, ownerSession: req.ownerSession, startedAt: Date.now() },
      pty: p,
      ring: new OutputRing(lim.bufferChars),
      cursor: 0,
      waiters: new Set(),
      lastActive: this.now(),
    };
    const wake = () => {
      for (const w of s.waiters) w();
      s.waiters.clear();
    };
    p.onData((d) => {
      s.ring.append(d);
      wake();
    });
    p.onExit(({ exitCode, signal }) => {
      s.info.exited = { code: exitCode, signal: signal || undefined };
      wake();
      // A session closed by the tool is not reported back.
      if (this.sessions.has(id)) this.onExit?.({ ...s.info }, stripAnsi(s.ring.tail(2000)));
    });
    this.sessions.set(id, s);
    return { ...s.info };
  }

  write(id: string, input: string): void {
    const s = this.get(id);
    if (s.info.exited) throw new ValidationError(`terminal ${id} has exited (code ${s.info.exited.code})`, { id });
    s.lastActive = this.now();
    s.pty.write(input);
  }

  /**
   * Output since the last read. With `waitMs`, waits until output has been quiet for
   * `quietMs` (or the program exits, or `waitMs` passes) so a command's answer is complete.
   */
  async read(id: string, opts: { waitMs?: number; quietMs?: number; maxChars?: number } = {}): Promise<{ text: string; dropped: number; exited?: TerminalInfo['exited'] }> {
    const s = this.get(id);
    s.lastActive = this.now();
    const deadline = Date.now() + Math.min(opts.waitMs ?? 0, 30_000);
    const quiet = opts.quietMs ?? 300;
    while (!s.info.exited && Date.now() < deadline) {
      const before = s.ring.end;
      await new Promise<void>((res) => {
        const t = setTimeout(done, Math.min(quiet, Math.max(0, deadline - Date.now())));
        function done() {
          clearTimeout(t);
          s.waiters.delete(done);
          res();
        }
        s.waiters.add(done);
      });
      if (s.ring.end === before && s.ring.end > s.cursor) break;
    }
    const r = s.ring.since(s.cursor);
    s.cursor = r.next;
    let text = stripAnsi(r.text);
    const max = opts.maxChars ?? 20_000;
    let dropped = r.dropped;
    if (text.length > max) {
      dropped += text.length - max;
      text = text.slice(-max);
    }
    return { text, dropped, exited: s.info.exited };
  }

  /** Kills the session's process and forgets it. */
  close(id: string): TerminalInfo {
    const s = this.get(id);
    this.sessions.delete(id);
    if (!s.info.exited) {
      try {
        s.pty.kill('SIGKILL');
      } catch {}
    }
    return { ...s.info };
  }

  /** Closes every session. Safe to call twice. */
  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.close(id);
  }

  private get(id: string): Session {
    const s = this.sessions.get(id);
    if (!s) throw new NotFoundError('terminal session', id);
    return s;
  }
}
