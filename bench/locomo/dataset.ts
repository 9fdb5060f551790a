import { readFileSync } from 'node:fs';

/** One turn of a LoCoMo conversation, in order. */
export interface Turn {
  diaId: string;
  speaker: string;
  /** `speaker: text [shares caption]` — the text every system indexes. */
  text: string;
  session: number;
  /** Index of the turn within its session. */
  index: number;
  /** Session date (epoch ms). */
  sessionTime: number;
}

export interface Question {
  question: string;
  category: number;
  evidence: string[];
}

export interface Conversation {
  id: string;
  speakers: [string, string];
  turns: Turn[];
  questions: Question[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC). */
export function parseSessionDate(s: string): number {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(s);
  if (!m) throw new Error(`unparseable session date: ${s}`);
  let h = Number(m[1]) % 12;
  if (m[3].toLowerCase() === 'pm') h += 12;
  const month = MONTHS.indexOf(m[5].toLowerCase());
  if (month < 0) throw new Error(`unknown month in ${s}`);
  return Date.UTC(Number(m[6]), month, Number(m[4]), h, Number(m[2]));
}

/** The text of a turn as every system in the benchmark sees it. */
export function turnText(t: { speaker: string; text: string; blip_caption?: string }): string {
  return `${t.speaker}: ${t.text}${t.blip_caption ? ` [shares ${t.blip_caption}]` : ''}`;
}

/**
 * Loads the dataset. Only turns, session dates and questions are read — never the authors'
 * observation / summary fields. Malformed evidence lists are split on `;`, `,` and spaces;
 * unknown ids are dropped; a question without evidence is skipped.
 */
export function loadLocomo(path: string): Conversation[] {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as {
    sample_id: string;
    conversation: Record<string, unknown>;
    qa: { question: string; category: number; evidence?: unknown }[];
  }[];
  return raw.map((c) => {
    const conv = c.conversation;
    const sessions = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const turns: Turn[] = [];
    for (const n of sessions) {
      const date = parseSessionDate(String(conv[`session_${n}_date_time`]));
      const list = conv[`session_${n}`] as { speaker: string; dia_id: string; text: string; blip_caption?: string }[];
      list.forEach((t, i) => turns.push({ diaId: t.dia_id, speaker: t.speaker, text: turnText(t), session: n, index: i, sessionTime: date }));
    }
    const ids = new Set(turns.map((t) => t.diaId));
    const questions: Question[] = [];
    for (const q of c.qa) {
      if (q.category < 1 || q.category > 4) continue;
      const ev = (Array.isArray(q.evidence) ? q.evidence : [q.evidence])
        .flatMap((e) => String(e ?? '').split(/[;,\s]+/))
        .map((e) => e.trim())
        .filter((e) => ids.has(e));
      if (ev.length === 0) continue;
      questions.push({ question: q.question, category: q.category, evidence: [...new Set(ev)] });
    }
    return { id: c.sample_id, speakers: [String(conv.speaker_a), String(conv.speaker_b)], turns, questions };
  });
}
