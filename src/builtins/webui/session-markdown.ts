import type { SessionEvent, SessionInfo } from '../../sdk/index.js';
import { localStamp, localStampWithOffset, systemTimeZone } from '../../spec/index.js';

/** Longest tool argument / result text quoted in an export (the log keeps it whole). */
const TOOL_TEXT_CHARS = 600;

function clip(text: string, n: number): string {
  const chars = Array.from(text);
  return chars.length > n ? `${chars.slice(0, n).join('')} …` : text;
}

/** Quotes text as a Markdown blockquote (each line). */
function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

/** A fenced block whose fence is longer than any backtick run inside. */
function fenced(text: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

/** Who said a user message: the speaker a chat channel named, else the owner. */
function speakerOf(ev: SessionEvent, you: string): string {
  const s = ev.data?.speaker as { name?: unknown; id?: unknown } | undefined;
  if (s && typeof s === 'object') return String(s.name ?? s.id ?? you);
  return you;
}

/**
 * A session as Markdown (the chat's "export"): title, where and when, then each turn — the
 * person's message (with its speaker and attachments), tool calls in short, the reply, errors.
 * `events` are what a reader sees (deleted turns already left out). Times are the wall clock of
 * `zone` (the person's, decision 0270), named in the heading.
 */
export function sessionMarkdown(info: SessionInfo, events: readonly SessionEvent[], now = Date.now(), zone = systemTimeZone()): string {
  const when = (at: number) => localStamp(at, zone);
  const out: string[] = [
    `# ${info.title || info.id}`,
    '',
    `- Session: \`${info.id}\` (${info.channel})`,
    `- Started: ${localStampWithOffset(info.createdAt, zone)}`,
    `- Exported: ${localStampWithOffset(now, zone)}`,
    `- Times: ${zone}`,
    '',
  ];
  let n = 0;
  let lastTurn = '';
  // A failed turn logs its error message as the reply too: it is written once, as the error.
  const errors = new Set(events.filter((e) => e.kind === 'error').map((e) => `${e.turnId}\n${e.text}`));
  for (const ev of events) {
    const d = ev.data ?? {};
    if (ev.kind === 'user') {
      if (ev.turnId !== lastTurn) {
        n++;
        lastTurn = ev.turnId;
        out.push(`## ${n}. ${speakerOf(ev, 'You')} · ${when(ev.at)}`, '');
      } else out.push('**(while the agent was working)**', '');
      if (ev.text) out.push(ev.text, '');
      const files = Array.isArray(d.attachments) ? (d.attachments as { name?: string; mimeType?: string; path?: string }[]) : [];
      for (const f of files) out.push(`- 📎 ${f.name ?? f.mimeType ?? 'file'}${f.path ? ` (\`${f.path}\`)` : ''}`);
      if (files.length) out.push('');
    } else if (ev.kind === 'interrupt') {
      out.push(quote(`Interrupt: ${ev.text}`), '');
    } else if (ev.kind === 'tool_call') {
      out.push(`<details><summary>Tool call: ${String(d.name ?? ev.text)}</summary>`, '', fenced(clip(String(d.arguments ?? ''), TOOL_TEXT_CHARS)), '');
    } else if (ev.kind === 'tool_result') {
      out.push(fenced(clip(ev.text, TOOL_TEXT_CHARS)), '', '</details>', '');
    } else if (ev.kind === 'assistant') {
      if (ev.turnId !== lastTurn) {
        // a message without a person's question (a reminder, a notice)
        n++;
        lastTurn = ev.turnId;
        out.push(`## ${n}. HomeAgent · ${when(ev.at)}`, '');
      } else if (errors.has(`${ev.turnId}\n${ev.text}`)) continue;
      else out.push(`**HomeAgent:**`, '');
      if (!errors.has(`${ev.turnId}\n${ev.text}`)) out.push(ev.text, '');
    } else if (ev.kind === 'system' && ev.text) {
      out.push(quote(ev.text), '');
    } else if (ev.kind === 'error') {
      out.push(quote(`Error (${String(d.code ?? 'ERROR')}): ${ev.text}`), '');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** A file name for an export: the title's letters and digits (any script), else the session id. */
export function exportFileName(info: SessionInfo): string {
  const base = (info.title || info.id).replace(/[^\p{L}\p{N}_-]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 80);
  return `${base || 'session'}.md`;
}
