/**
 * Human-readable rendering of command results (waiter's default output). `--json` output never
 * passes through here: scripts get the daemon's values as they are (epoch milliseconds).
 */
import type { StoreSalvage } from '../spec/index.js';

import stringWidth from 'string-width';
import { localStamp, resolveTimeZone } from '../spec/index.js';

/** Keys whose values are points in time: `at`, `createdAt`, `startedAt`, `validFrom`, `coolDownUntil` … */
const DATE_KEY = /(?:^at|At|^until|Until|^since|Since|^validFrom|^validTo|^timestamp|Timestamp)$/;

/** Epoch milliseconds from 2001 to 2286: plausible timestamps, not counts or ids. */
const isEpochMs = (n: number) => Number.isFinite(n) && n >= 1e12 && n < 1e13;

/** An ISO 8601 date-time as the daemon writes it (`2026-12-01T23:44:10.123Z`). */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** The zone times are shown in: `core.agent.timezone` as the daemon resolves it, once known (decision 0270). */
let displayZone: string | undefined;

/**
 * Shows waiter's times in the person's zone (`core.agent.timezone`; "" or not a zone = the
 * machine's). Set once per command from the daemon's setting; before that, the machine's zone.
 */
export function setDisplayZone(setting: unknown): void {
  displayZone = resolveTimeZone(setting);
}

/**
 * A point in time as people read it in waiter's output: wall-clock time in the person's zone to the
 * minute, `2026-12-01 23:44`. Every human rendering of a time in waiter goes through here.
 */
export function formatWhen(ms: number): string {
  return localStamp(ms, displayZone ?? resolveTimeZone(''));
}

/** The value of a date-like key as text when it is a timestamp; otherwise undefined. */
function whenOf(key: string, v: unknown): string | undefined {
  if (!DATE_KEY.test(key)) return undefined;
  if (typeof v === 'number' && isEpochMs(v)) return formatWhen(v);
  if (typeof v === 'string' && ISO.test(v)) {
    const ms = Date.parse(v);
    if (Number.isFinite(ms)) return formatWhen(ms);
  }
  return undefined;
}

/** Human-readable rendering of a command result: key/value lines, tables for lists of objects. */
export function renderHuman(value: unknown, indent = ''): string {
  if (value === null || value === undefined) return `${indent}(none)`;
  if (typeof value !== 'object') return `${indent}${String(value)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}(empty)`;
    if (value.every((v) => v && typeof v === 'object' && !Array.isArray(v))) return table(value as Record<string, unknown>[], indent);
    return value.map((v) => renderHuman(v, indent + '- ')).join('\n');
  }
  return Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => (v && typeof v === 'object' ? `${indent}${k}:\n${renderHuman(v, indent + '  ')}` : `${indent}${k}: ${v === undefined ? '' : (whenOf(k, v) ?? (typeof v === 'number' ? numberText(v) : String(v)))}`))
    .join('\n');
}

/** A number as people read it: integers as they are, fractions (scores, confidences) to two places. */
function numberText(n: number): string {
  return Number.isInteger(n) || !Number.isFinite(n) ? String(n) : String(Math.round(n * 100) / 100);
}

/** `text` cut to `max` terminal columns (a CJK character takes two), with an ellipsis when cut. */
function fit(text: string, max: number): string {
  if (stringWidth(text) <= max) return text;
  let out = '';
  let w = 0;
  for (const { segment } of graphemes.segment(text)) {
    const sw = stringWidth(segment);
    if (w + sw > max - 1) break;
    out += segment;
    w += sw;
  }
  return `${out}…`;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function cell(key: string, v: unknown): string {
  if (v === null || v === undefined) return '';
  const when = whenOf(key, v);
  if (when !== undefined) return when;
  if (typeof v === 'number') return numberText(v);
  if (typeof v === 'object') return fit(JSON.stringify(v), 60);
  return fit(String(v).replace(/\s+/g, ' '), 80);
}

/** Pads to `width` terminal columns: Chinese text lines up with the Latin around it. */
const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - stringWidth(text)));

function table(rows: Record<string, unknown>[], indent: string): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))].slice(0, 8);
  const widths = cols.map((c) => Math.max(stringWidth(c), ...rows.map((r) => stringWidth(cell(c, r[c])))));
  const line = (vals: string[]) => indent + vals.map((v, i) => pad(v, widths[i])).join('  ').trimEnd();
  return [line(cols), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => cell(c, r[c]))))].join('\n');
}

/**
 * What was read back of a damaged store (decisions 0280, 0310), in a table cell's few words:
 * memory-control's tombstones, exclusions and history; any other store's rows kept of those read,
 * left out, the damaged pages and the settings dropped (by key).
 */
export function salvageSummary(s: Partial<StoreSalvage>): string {
  if (s.tombstones !== undefined) {
    const lost = s.tombstonesLostAtMost === 0 ? 'none lost' : s.tombstonesLostAtMost === null || s.tombstonesLostAtMost === undefined ? 'loss unknown' : `up to ${s.tombstonesLostAtMost} lost`;
    return `${s.tombstones} tombstones (${lost}), ${s.exclusions ?? 0} exclusions, ${s.changes ?? 0} history`;
  }
  const parts = [`${s.kept ?? 0}/${s.read ?? 0} rows`];
  if (s.skipped) parts.push(`${s.skipped} left out`);
  if (s.unreadablePages) parts.push(`${s.unreadablePages} ${s.unreadablePages === 1 ? 'page' : 'pages'} lost`);
  if (s.freePagesSkipped) parts.push(`${s.freePagesSkipped} free ${s.freePagesSkipped === 1 ? 'page' : 'pages'} skipped`);
  if (s.droppedKeys?.length) parts.push(`dropped: ${s.droppedKeys.join(' ')}`);
  return parts.join(', ');
}

/**
 * `waiter status` as people read it: the stores set aside at start show what was read back of
 * them as words (the raw counts are in `--json`).
 */
export function statusView(full: Record<string, unknown>): Record<string, unknown> {
  // The V8 heap settings are for diagnosis (decision 0220): in `--json`, not in what people read.
  const { v8: _v8, ...status } = full;
  const aside = status.setAside;
  if (!Array.isArray(aside)) return status;
  return {
    ...status,
    setAside: aside.map((a: Record<string, unknown>) => {
      const { salvaged, ...rest } = a;
      return salvaged && typeof salvaged === 'object' ? { ...rest, readBack: salvageSummary(salvaged as Parameters<typeof salvageSummary>[0]) } : rest;
    }),
  };
}

/**
 * An import's report as people read it: one table row per part with its counts (only the columns
 * some part has a number in), then what was renamed and the notes; empty maps are left out.
 */
/**
 * After an import that held back what would reach every conversation (the injection plan, the
 * persona, convention memories — decision 0350): the command that takes it. Undefined when nothing was held.
 */
export function heldHint(file: string, mode: string, held: unknown): string | undefined {
  if (!Array.isArray(held) || held.length === 0) return undefined;
  const quoted = /^[\w./@:+-]+$/.test(file) ? file : JSON.stringify(file);
  return `\nHeld back because it would reach every conversation: ${held.join(', ')}.\nRead the report above, then take it with: waiter import ${quoted} --approve-injected${mode !== 'skip' ? ` --mode ${mode}` : ''}\n`;
}

export function importView(dryRun: boolean, report: Record<string, unknown>): Record<string, unknown> {
  const { parts, ...rest } = report;
  const out: Record<string, unknown> = { dryRun };
  if (parts && typeof parts === 'object') {
    const rows = Object.entries(parts as Record<string, Record<string, unknown>>).map(([part, counts]) => ({ part, ...counts }));
    const cols = new Set(rows.flatMap((r) => Object.entries(r).filter(([k, v]) => k === 'part' || (typeof v === 'number' && v !== 0) || typeof v !== 'number').map(([k]) => k)));
    out.parts = rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => cols.has(k))));
  }
  const empty = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' ? Object.values(v as object).every(empty) : false);
  for (const [k, v] of Object.entries(rest)) if (!empty(v)) out[k] = v;
  return out;
}
