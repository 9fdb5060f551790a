import type { CliStreamEvent } from '../spec/index.js';

/** Where waiter writes: the terminal, or a caller's sinks (tests run `main` in process). */
export interface WaiterIo {
  out(text: string): void;
  err(text: string): void;
  /** stderr is a terminal: colours and progress redrawn on one line (else plain lines for a log). */
  errTty?: boolean;
}

/**
 * Prints a turn as it streams (`waiter send`, `waiter chat`): the answer on stdout, reasoning and
 * tool calls on stderr — each starting on its own line — coloured only on a terminal.
 */
export function streamPrinter(io: WaiterIo, json: boolean): (e: CliStreamEvent) => void {
  let inText = false;
  let inReasoning = false;
  // Colours only on a terminal: in a file they are escape codes.
  const paint = (code: string, s: string) => (io.errTty ? `\x1b[${code}m${s}\x1b[0m` : s);
  return (e: CliStreamEvent) => {
    if (json) {
      io.out(JSON.stringify({ event: e.event, ...e.data }) + '\n');
      return;
    }
    if (e.event === 'delta') {
      // The answer starts on its own line after the reasoning (they ran together).
      if (inReasoning) io.err('\n');
      inReasoning = false;
      io.out(String(e.data.text));
      inText = true;
    } else if (e.event === 'reasoning') {
      if (inText) io.out('\n');
      inText = false;
      io.err(paint('2', String(e.data.text)));
      inReasoning = true;
    } else if (e.event === 'tool_start') {
      io.err(`${inText || inReasoning ? '\n' : ''}${paint('36', `→ ${e.data.name}(${String(e.data.arguments).slice(0, 200)})`)}\n`);
      inText = false;
      inReasoning = false;
    } else if (e.event === 'tool_end') {
      io.err(`${paint('36', `← ${e.data.rejected ? 'rejected: ' + e.data.rejected : String(e.data.result).slice(0, 200)}`)}\n`);
    }
  };
}
