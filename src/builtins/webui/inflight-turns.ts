/**
 * Which turn each session has in flight, kept from the bus (`turn_start` / `turn_end`), so a
 * chat message for a busy session becomes an interrupt (C-2) instead of a queued turn.
 */
export class InflightTurns {
  private readonly bySession = new Map<string, string>();

  /** Feeds one bus event. */
  onEvent(event: string, payload: unknown): void {
    const p = (payload ?? {}) as { turnId?: unknown; sessionId?: unknown };
    if (typeof p.sessionId !== 'string' || typeof p.turnId !== 'string') return;
    if (event === 'turn_start') this.bySession.set(p.sessionId, p.turnId);
    else if (event === 'turn_end' && this.bySession.get(p.sessionId) === p.turnId) this.bySession.delete(p.sessionId);
  }

  /** The in-flight turn of a session, if any. */
  turnOf(sessionId: string): string | undefined {
    return this.bySession.get(sessionId);
  }

  clear(): void {
    this.bySession.clear();
  }
}
