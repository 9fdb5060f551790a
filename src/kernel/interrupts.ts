import type { ChatMessage } from '../spec/index.js';

export interface PendingInterrupt {
  sessionId?: string;
  source: string;
  text: string;
  at: number;
  /** Called once the interrupt is in a session log (as an `interrupt` event or a new turn's input). */
  recorded?: () => void;
}

/** The interrupt prefix the model sees (seed: 以 [打断消息] 格式注入消息历史). */
export const INTERRUPT_PREFIX = '[打断消息]';

/** Formats queued interrupts as the user messages that the next LLM call sees (C-2 b). */
export function interruptMessages(items: PendingInterrupt[]): ChatMessage[] {
  return items.map((i) => ({ role: 'user', content: `${INTERRUPT_PREFIX} ${i.text}`, source: 'interrupt' }));
}
