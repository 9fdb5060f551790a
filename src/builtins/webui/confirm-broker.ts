import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../../sdk/index.js';
import type { ConfirmService, PendingConfirm } from '../../spec/confirm.js';

export type { PendingConfirm };

/** What the broker needs from the webui: its connected SSE clients and a way to publish to them. */
export interface ConfirmChannel {
  /** Number of connected WebUI (SSE) clients. */
  clients(): number;
  publish(event: 'confirm_request' | 'confirm_resolved', payload: unknown): void;
}

/**
 * `host.confirm` provided by the webui (P-7, `src/spec/confirm.ts`): each question is published
 * to the SPA as `confirm_request`, answered through `POST /api/v1/confirm/:id`, and resolves
 * false ("denied") after `timeoutMs()`, at `stop()`, or at once when no WebUI client is
 * connected (a headless daemon never waits; {@link reachable} tells callers that case apart). Every outcome is published as `confirm_resolved`
 * `{id, approved, reason: 'user' | 'timeout' | 'stopped'}` so other open tabs close the dialog.
 */
export class ConfirmBroker implements ConfirmService {
  private readonly pending = new Map<string, { info: PendingConfirm; done: (approved: boolean, reason: string) => void }>();

  constructor(
    private readonly channel: ConfirmChannel,
    private readonly timeoutMs: () => number,
  ) {}

  /** False while no WebUI page is open: nobody would see the question. */
  reachable(): boolean {
    return this.channel.clients() > 0;
  }

  ask(request: { plugin: string; sessionId: string; title: string; detail: string }): Promise<boolean> {
    if (!this.reachable()) return Promise.resolve(false);
    const timeoutMs = this.timeoutMs();
    const info: PendingConfirm = {
      id: randomUUID(),
      plugin: String(request.plugin).slice(0, 200),
      sessionId: String(request.sessionId ?? '').slice(0, 500),
      title: String(request.title).slice(0, 500),
      detail: String(request.detail).slice(0, 8000),
      expiresAt: Date.now() + timeoutMs,
      timeoutMs,
    };
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false, 'timeout'), timeoutMs);
      timer.unref?.();
      const done = (approved: boolean, reason: string) => {
        if (!this.pending.delete(info.id)) return;
        clearTimeout(timer);
        this.channel.publish('confirm_resolved', { id: info.id, approved, reason });
        resolve(approved);
      };
      this.pending.set(info.id, { info, done });
      this.channel.publish('confirm_request', info);
    });
  }

  /** Answers a pending confirmation; NotFoundError when it is unknown or already answered / timed out. */
  answer(id: string, approved: boolean): void {
    const p = this.pending.get(id);
    if (!p) throw new NotFoundError('confirmation', id);
    p.done(approved, 'user');
  }

  /** The questions still waiting (for a page opened after they were asked). */
  list(): PendingConfirm[] {
    return [...this.pending.values()].map((p) => ({ ...p.info }));
  }

  /** Denies everything still waiting. Safe twice. */
  stop(): void {
    for (const p of [...this.pending.values()]) p.done(false, 'stopped');
  }
}
