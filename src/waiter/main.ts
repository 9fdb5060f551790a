#!/usr/bin/env node
/**
 * `waiter` — the HomeAgent command-line client (§8). Talks to `homed` over its Unix socket.
 * Human output by default, `--json` for scripts. Exit codes: 0 ok, 1 command failed,
 * 2 usage error, 3 daemon not running.
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Command, CommanderError } from 'commander';
import { homePaths, packageVersion, resolveHome, signInUrl } from '../paths/index.js';
import { KnowledgeFileError, TIME_ZONE_KEY, type CliCommand, type CliStreamEvent } from '../spec/index.js';
import { DaemonClient, DaemonNotRunningError } from './daemon-client.js';
import { formatWhen, heldHint, importView, renderHuman, setDisplayZone, statusView } from './output.js';
import { forgetCommand, historyRow, terminalAsk } from './memory-control-commands.js';
import type { HeldAdapterSource, MemoryChange, TransferLeftOut } from '../spec/index.js';
import { streamPrinter, type WaiterIo } from './stream-printer.js';
import { knowledgePutSummary, readKnowledgeFile } from './knowledge-file.js';

export type { WaiterIo } from './stream-printer.js';

const EXIT = { ok: 0, failed: 1, usage: 2, notRunning: 3 } as const;

/** The process's own terminal (stdout, stderr). */
const terminal: WaiterIo = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
  get errTty() {
    return process.stderr.isTTY === true;
  },
};
let io: WaiterIo = terminal;

interface GlobalOpts {
  json?: boolean;
  home?: string;
}

function parseValue(raw: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return raw;
  }
  // 1e309 parses to Infinity, which JSON sends as null: said here, not as "received null".
  if (typeof v === 'number' && !Number.isFinite(v)) throw new UsageError(`${raw} is too large a number`);
  return v;
}

async function withClient<T>(opts: GlobalOpts, fn: (c: DaemonClient) => Promise<T>): Promise<T> {
  const home = opts.home ? resolveHome({ HOMEAGENT_HOME: opts.home }) : resolveHome();
  const c = new DaemonClient(homePaths(home).socket);
  await c.connect();
  // Human output shows times in the person's zone, which is a daemon setting (decision 0270).
  if (!opts.json) await c.request<{ value?: unknown }>('config.get', { key: TIME_ZONE_KEY }).then((i) => setDisplayZone(i?.value), () => undefined);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

/** A wrong flag value found after parsing: printed, exit code 2 (usage). */
class UsageError extends Error {}

/** A whole number from 1 to `max` from a flag, or a usage error naming the flag. */
function positiveInt(raw: string, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < 1 || n > max) throw new UsageError(`${flag} takes a whole number from 1 to ${max}, not "${raw}"`);
  return n;
}

/** All of standard input as text (an API key piped in, a file …). */
function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (c: string) => (s += c));
    process.stdin.on('end', () => resolve(s));
    process.stdin.on('error', reject);
  });
}

/**
 * A passphrase for `export` / `import`: from the named environment variable, else typed on the
 * terminal without echo (twice for an export), else the first line of standard input.
 */
async function passphrase(o: { passphrase?: boolean; passphraseEnv?: string }, confirm: boolean): Promise<string | undefined> {
  if (o.passphraseEnv) {
    const v = process.env[o.passphraseEnv];
    if (!v) throw new UsageError(`environment variable ${o.passphraseEnv} is not set`);
    return v;
  }
  if (!o.passphrase) return undefined;
  if (!process.stdin.isTTY) {
    const line = (await readStdin()).split(/\r?\n/)[0];
    if (!line) throw new UsageError('no passphrase on standard input');
    return line;
  }
  const ask = (q: string) =>
    new Promise<string>((done) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      const out = rl as unknown as { _writeToOutput: (s: string) => void };
      process.stderr.write(q);
      out._writeToOutput = () => {};
      rl.question('', (a) => {
        rl.close();
        process.stderr.write('\n');
        done(a);
      });
    });
  const first = await ask('passphrase: ');
  if (!first) throw new UsageError('the passphrase must not be empty');
  if (confirm && (await ask('again: ')) !== first) throw new UsageError('the passphrases differ');
  return first;
}

/**
 * Progress on stderr: one line rewritten on a terminal; in a file (a log), a line each time `step`
 * changes (a phase, a tenth) — not one endless line of carriage returns.
 */
function progressLine(): (now: string, step: string) => void {
  let last: string | undefined;
  return (now, step) => {
    if (io.errTty) return io.err(`\r${now}        `);
    if (step !== last) io.err(`${now}\n`);
    last = step;
  };
}

/** Prints transfer progress on one line of stderr (JSON lines with --json). */
function transferProgress(opts: GlobalOpts) {
  const line = progressLine();
  return (e: CliStreamEvent) => {
    if (e.event !== 'progress') return;
    const d = e.data as { phase: string; done: number; total: number };
    if (opts.json) return io.err(JSON.stringify({ event: 'progress', ...d }) + '\n');
    line(`${d.phase}: ${d.total ? `${Math.floor((100 * d.done) / d.total)}%` : d.done}`, `${d.phase}:${d.total ? Math.floor((10 * d.done) / d.total) : ''}`);
  };
}

function print(opts: GlobalOpts, value: unknown): void {
  io.out((opts.json ? JSON.stringify(value, null, 2) : renderHuman(value)) + '\n');
}

/** Runs one daemon command and prints its result. */
function simple(program: Command, cmd: CliCommand, args: (...a: string[]) => Record<string, unknown> = () => ({})) {
  return async (...a: unknown[]) => {
    const opts = program.opts<GlobalOpts>();
    const strArgs = a.filter((x): x is string => typeof x === 'string');
    const result = await withClient(opts, (c) => c.request(cmd, args(...strArgs)));
    print(opts, result);
  };
}

/** `waiter people [list]`: one row per person with their linked ids. */
function peopleList(program: Command) {
  return async () => {
    const opts = program.opts<GlobalOpts>();
    const list = await withClient(opts, (c) => c.request<{ id: string; name: string; owner: boolean; ids: string[] }[]>('people.list', {}));
    print(opts, opts.json ? list : list.map((p) => ({ id: p.id, name: p.owner ? `${p.name} (owner)` : p.name, ids: p.ids.join(', ') || '—' })));
  };
}

/** The answer of `memory.about` (see src/builtins/shared/about-person.ts). */
interface AboutView {
  person: { id?: string; name: string; owner: boolean; ids: string[]; known: boolean };
  facts: { id: number; subject: string; predicate: string; object: string; validFrom?: number; validTo?: number; sources: { turnId?: string; sessionId: string; createdAt: number }[] }[];
  memories: { id: string; title: string; speaker?: { id: string; name?: string }; updatedAt: string; why: string }[];
  documents: { tier: string; text: string; sessionId: string; turnId?: string; createdAt: number; speaker?: { id: string; name?: string } }[];
  library: boolean;
}

const day = (ms: number | undefined) => (ms ? formatWhen(ms).slice(0, 10) : '');

/** `waiter memory about` as text: facts, memories, turns, each line with where it came from. */
function aboutText(a: AboutView, factsEvery?: string): string {
  const out: string[] = [];
  const who = a.person.owner ? `${a.person.name} (you)` : a.person.name;
  out.push(`About ${who}${a.person.ids.length ? ` — ${a.person.ids.join(', ')}` : ''}${a.person.known || a.person.owner ? '' : ' (not in the people registry: searched by name)'}`);
  out.push('', `Facts (${a.facts.length}) — correct one: waiter memory correct-fact <#id> <value>; delete one: waiter memory delete-fact <#id>`);
  // Facts come from the rule distiller's runs: a few seconds after each message, and on its interval.
  if (factsEvery) out.push(`  (drawn from what you say a few seconds after you say it, and again every ${factsEvery}, core.memory.rule_distill_interval)`);
  for (const f of a.facts) {
    const held = f.validFrom || f.validTo ? ` [${day(f.validFrom) || '…'} → ${day(f.validTo) || 'now'}]` : '';
    const src = f.sources[0];
    out.push(`  #${f.id} ${f.subject} ${f.predicate} ${f.object}${held}${src ? `  ← ${src.turnId ?? src.sessionId} ${day(src.createdAt)}` : ''}`);
  }
  out.push('', a.library ? `Library memories (${a.memories.length}) — edit: waiter library show <id>` : 'Library: the memory-manager is not running');
  for (const m of a.memories) out.push(`  ${m.id} ${m.title}${m.speaker ? ` — said by ${m.speaker.name ?? m.speaker.id}` : ''} (${m.why}, ${day(Date.parse(m.updatedAt)) || m.updatedAt.slice(0, 10)})`);
  out.push('', `Turns (${a.documents.length})`);
  for (const d of a.documents) out.push(`  [${day(d.createdAt)} ${d.tier}${d.speaker ? ` · ${d.speaker.name ?? d.speaker.id}` : ''}] ${d.text.replace(/\s+/g, ' ').slice(0, 120)}  ← ${d.turnId ?? d.sessionId}`);
  return `${out.join('\n')}\n`;
}

/** A recall hit as the daemon sends it (spec RecallHit). */
/** The answer of `memory.why`: a turn's injected blocks and their sources. */
interface TurnWhy {
  turnId: string;
  injected: { source: string; forgotten?: boolean; title?: string; text: string; sources: { tier: string; id: string; text: string; at?: number; sessionId?: string; turnId?: string; seq?: number; speaker?: { id: string; name?: string } }[] }[];
}

interface RecallHitView {
  tier: string;
  text: string;
  score: number;
  createdAt: number;
  sessionId: string;
  channel: string;
  speaker?: { id: string; name?: string };
}

/** One line of `waiter memory search`: when, which tier, where, who, what. */
function recallRow(h: RecallHitView): Record<string, string> {
  return {
    tier: h.tier,
    date: h.createdAt ? formatWhen(h.createdAt) : '',
    session: h.sessionId,
    channel: h.channel,
    speaker: h.speaker ? (h.speaker.name ?? h.speaker.id) : '',
    score: h.score.toFixed(2),
    text: h.text,
  };
}

/** Media types by extension for `send --file` (the daemon also judges by name and content). */
const MIME: Record<string, string> = {
  pdf: 'application/pdf', md: 'text/markdown', markdown: 'text/markdown', txt: 'text/plain', csv: 'text/csv', json: 'application/json', html: 'text/html',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  mp3: 'audio/mpeg', wav: 'audio/wav', m4a: 'audio/mp4', ogg: 'audio/ogg', opus: 'audio/ogg', webm: 'audio/webm', flac: 'audio/flac',
};

/** Files for `send --file`, base64 for the socket. Larger than 3 MiB → a usage error. */
function readAttachments(files: string[]): { name: string; mimeType: string; data: string }[] {
  return files.map((f) => {
    let bytes: Buffer;
    try {
      bytes = readFileSync(f);
    } catch (e) {
      throw new UsageError(`cannot read ${f}: ${(e as Error).message}`);
    }
    if (bytes.length > 3 * 1024 * 1024) throw new UsageError(`${f} is larger than 3 MiB; attach it in the WebUI (50 MiB) instead`);
    const name = basename(f);
    const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
    return { name, mimeType: MIME[ext] ?? 'application/octet-stream', data: bytes.toString('base64') };
  });
}

/**
 * In `waiter chat` with no model: the setup steps are printed in full once; later replies say so in
 * one line and point to what works without a model (found by a walk: ten lines under every message).
 */
export const NO_MODEL_AGAIN = '(No model connected yet: the steps to connect one are above. 还没有连接模型，方法见上文。What I remember of you works without one / 不连模型也能看记忆: waiter memory about)';

async function send(opts: GlobalOpts, c: DaemonClient, text: string, sessionId: string | undefined, stream: boolean, files: { name: string; mimeType: string; data: string }[] = [], shown?: { noModel: boolean }): Promise<number> {
  let streamed = false;
  const onEvent = stream
    ? (e: CliStreamEvent) => {
        if (e.event === 'delta') streamed = true;
        streamPrinter(io, !!opts.json)(e);
      }
    : undefined;
  const outcome = await c.request<{ text: string; status: string; turnId: string; error?: { code: string; message: string } }>('send', { text, sessionId, stream, ...(files.length ? { attachments: files } : {}) }, onEvent);
  const noModel = outcome.error?.code === 'NO_PROVIDER_CONFIGURED';
  if (opts.json) io.out(JSON.stringify(outcome) + '\n');
  else if (noModel && shown?.noModel) io.out((streamed ? '\n' : '') + NO_MODEL_AGAIN + '\n');
  else if (!streamed || outcome.status !== 'ok') io.out((streamed ? '\n' : '') + outcome.text + '\n');
  else io.out('\n');
  if (noModel && shown) shown.noModel = true;
  // No LLM source is a failure too (§8): the reply says how to configure one, the code says it failed.
  return outcome.status === 'ok' || outcome.status === 'short-circuit' ? EXIT.ok : EXIT.failed;
}

/**
 * The interactive chat. Lines are read while a reply streams: `/interrupt <text>` goes to the
 * daemon at once (the reply in flight is cut short and the agent takes the text into account,
 * C-2); other lines wait their turn and are sent when the reply has finished.
 */
async function chat(opts: GlobalOpts, c: DaemonClient, sessionId: string): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: 'you> ' });
  const queue: string[] = [];
  // Whether this chat has printed the no-model setup steps once already.
  const shown = { noModel: false };
  let busy = false;
  let closing = false;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const pump = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      while (queue.length) {
        const text = queue.shift()!;
        io.out('agent> ');
        const code = await send(opts, c, text, sessionId, true, [], shown).catch((e: Error) => {
          io.err(`waiter: ${e.message}\n`);
          return EXIT.failed;
        });
        if (code !== EXIT.ok) process.exitCode = code;
      }
    } finally {
      busy = false;
    }
    if (closing) done();
    else rl.prompt();
  };
  rl.on('line', (line) => {
    const text = line.trim();
    if (text === '/quit' || text === '/exit') {
      rl.close();
      return;
    }
    if (text === '/help' || text === '/?') {
      io.out('/interrupt <text>  cut the reply short and say this instead\n/quit              leave (also /exit, Ctrl-D)\nanything else      is sent to the agent; lines typed while it answers wait their turn\n');
      if (!busy) rl.prompt();
      return;
    }
    if (text === '/interrupt' || text.startsWith('/interrupt ')) {
      const what = text.slice('/interrupt'.length).trim();
      if (!what) {
        io.err('usage: /interrupt <text>\n');
        return;
      }
      // Nothing to cut short: it is a message like any other (and its answer is shown here).
      if (!busy) {
        queue.push(what);
        void pump();
        return;
      }
      c.request('interrupt', { text: what, sessionId }).then(
        () => io.err(busy ? '\x1b[2m(interrupting…)\x1b[0m\n' : ''),
        (e: Error & { code?: string }) => {
          // This chat's message still waits behind another conversation's turn: nothing of it to
          // cut short yet, so the text goes after it, not lost.
          if (e.code === 'CONFLICT') {
            queue.push(what);
            io.err('\x1b[2m(nothing of this chat is running yet: sent after your message)\x1b[0m\n');
            void pump();
          } else io.err(`waiter: ${e.message}\n`);
        },
      );
      return;
    }
    if (!text) {
      if (!busy) rl.prompt();
      return;
    }
    queue.push(text);
    void pump();
  });
  rl.on('close', () => {
    closing = true;
    if (!busy) done();
  });
  rl.prompt();
  await finished;
}

/** `waiter plugins install`: stage, show the manifest, ask (unless --yes), then confirm or discard. */
async function installPlugin(opts: GlobalOpts, c: DaemonClient, bytes: Buffer, yes: boolean): Promise<number> {
  const p = await c.request<{ name: string; version: string; description?: string; permissions: string[]; dependencies: string[]; replaces?: string }>('plugins.install', { data: bytes.toString('base64') });
  if (!opts.json) {
    process.stdout.write(
      [
        `${p.name} ${p.version}${p.replaces ? ` (replaces ${p.replaces})` : ''}`,
        p.description ? `  ${p.description}` : '',
        `  permissions: ${p.permissions.length ? p.permissions.join(', ') : 'none'}`,
        p.dependencies.length ? `  needs: ${p.dependencies.join(', ')}` : '',
        '  A plugin is code that runs as you, in its own process.',
      ]
        .filter(Boolean)
        .join('\n') + '\n',
    );
  }
  let ok = yes;
  if (!ok) {
    if (!process.stdin.isTTY) {
      process.stderr.write(`waiter: not installed — confirm with \`waiter plugins confirm ${p.name}\`, or pass --yes\n`);
      if (opts.json) process.stdout.write(JSON.stringify({ pending: p }) + '\n');
      return EXIT.failed;
    }
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await new Promise<string>((resolve) => rl.question(`Install and start ${p.name}? [y/N] `, resolve));
    rl.close();
    ok = /^y(es)?$/i.test(answer.trim());
  }
  if (!ok) {
    await c.request('plugins.discard', { name: p.name });
    process.stdout.write(opts.json ? JSON.stringify({ discarded: p.name }) + '\n' : `not installed; ${p.name} was discarded\n`);
    return EXIT.failed;
  }
  print(opts, await c.request('plugins.confirm', { name: p.name }));
  return EXIT.ok;
}

/**
 * The person's yes to taking or discarding a held adapter: `--yes`, or a y at the terminal's
 * question. Without a terminal and without --yes, nothing is done; a no says the file stays.
 */
async function yesToHeld(opts: GlobalOpts, yes: boolean | undefined, question: string, done: 'taken' | 'discarded'): Promise<boolean> {
  if (yes === true) return true;
  if (!process.stdin.isTTY) {
    process.stderr.write(`waiter: not ${done} — run it in a terminal to confirm, or pass --yes\n`);
    return false;
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const answer = await new Promise<string>((resolve) => rl.question(`${question} [y/N] `, resolve));
  rl.close();
  if (/^y(es)?$/i.test(answer.trim())) return true;
  process.stdout.write(opts.json ? JSON.stringify({ [done]: false }) + '\n' : `not ${done}; it stays in adapters/imported/\n`);
  return false;
}

/**
 * `waiter providers take`: show the held adapter — its code, what it would replace, the sources that
 * would run it — ask (unless --yes), then take exactly the bytes shown (decision 0620).
 */
async function takeAdapter(opts: GlobalOpts, c: DaemonClient, name: string, o: { replace?: boolean; yes?: boolean }): Promise<number> {
  const h = await c.request<HeldAdapterSource>('providers.held', { name });
  if (!opts.json) {
    const used = h.usedBy.map((s) => `${s.name} (${s.enabled ? 'on' : 'off'})`).join(', ');
    process.stdout.write(
      [
        `----- adapters/imported/${h.name}.lua (${h.bytes} bytes, sha256 ${h.sha256}) -----`,
        h.source.endsWith('\n') ? h.source.slice(0, -1) : h.source,
        '-----',
        h.replaces === 'yours' ? `  It replaces your adapters/${h.name}.lua (which is kept in adapters/replaced/).` : h.replaces === 'shipped' ? `  It replaces the ${h.name} adapter HomeAgent ships.` : '',
        `  Sources that would run it: ${used || 'none yet'}.`,
        '  An adapter is code: it sees every prompt sent to its sources and their API keys.',
      ]
        .filter(Boolean)
        .join('\n') + '\n',
    );
  }
  if (h.replaces && !o.replace) {
    process.stderr.write(`waiter: not taken — it replaces ${h.replaces === 'yours' ? `your adapters/${h.name}.lua` : `the shipped ${h.name} adapter`}; pass --replace to take it all the same\n`);
    return EXIT.failed;
  }
  if (!(await yesToHeld(opts, o.yes, `Take adapter ${h.name} into use?`, 'taken'))) return EXIT.failed;
  print(opts, await c.request('providers.take', { name: h.name, sha256: h.sha256, replace: o.replace === true }));
  return EXIT.ok;
}

/**
 * `waiter providers discard`: delete a held adapter the person does not want from
 * adapters/imported/ — the bytes named by the SHA-256 just read, after a yes (or --yes).
 */
async function discardAdapter(opts: GlobalOpts, c: DaemonClient, name: string, o: { yes?: boolean }): Promise<number> {
  const h = await c.request<HeldAdapterSource>('providers.held', { name });
  if (!(await yesToHeld(opts, o.yes, `Delete adapters/imported/${h.name}.lua (${h.bytes} bytes)? The archive it came from still has it.`, 'discarded'))) return EXIT.failed;
  print(opts, await c.request('providers.discard', { name: h.name, sha256: h.sha256 }));
  return EXIT.ok;
}

export function buildProgram(): Command {
  const program = new Command('waiter')
    .description('HomeAgent command-line client')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--json', 'machine-readable JSON output')
    .option('--home <dir>', 'data folder (default $HOMEAGENT_HOME or ~/.homeagent)')
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.out(t), writeErr: (t) => io.err(t) })
    .showHelpAfterError();

  program
    .command('chat')
    .description('interactive chat with streaming replies (/interrupt <text> interrupts a reply as it streams, /quit leaves)')
    .option('-s, --session <id>', 'session id', 'cli:default')
    .action(async (o: { session: string }) => {
      const opts = program.opts<GlobalOpts>();
      await withClient(opts, (c) => chat(opts, c, o.session));
    });

  program
    .command('send [text...]')
    .description('send one message and print the reply')
    .option('-s, --session <id>', 'session id', 'cli:default')
    .option('--no-stream', 'print only the final reply')
    .option('-f, --file <path>', 'attach a file: text, Markdown, code, PDF, audio or an image (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .action(async (words: string[], o: { session: string; stream: boolean; file?: string[] }) => {
      const opts = program.opts<GlobalOpts>();
      const files = readAttachments(o.file ?? []);
      if (!words.join(' ').trim() && !files.length) throw new UsageError('send needs a message or a --file');
      const code = await withClient(opts, (c) => send(opts, c, words.join(' '), o.session, o.stream, files));
      process.exitCode = code;
    });

  program
    .command('interrupt <text...>')
    .description('interrupt the agent (aborts the running LLM call and injects the text)')
    .option('-s, --session <id>', 'session id')
    .action(async (words: string[], o: { session?: string }) => {
      const opts = program.opts<GlobalOpts>();
      if (!words.join(' ').trim()) throw new UsageError('interrupt needs the text to inject');
      print(opts, await withClient(opts, (c) => c.request('interrupt', { text: words.join(' '), sessionId: o.session })));
    });

  program
    .command('status')
    .description('daemon status, endpoints (WebUI URL), providers and plugins')
    .action(async () => {
      const opts = program.opts<GlobalOpts>();
      const s = await withClient(opts, (c) => c.request<Record<string, unknown>>('status'));
      print(opts, opts.json ? s : statusView(s));
    });

  const sessions = program.command('sessions').description('list sessions, or show one').action(simple(program, 'sessions.list'));
  sessions.command('list').description('every conversation, newest first').action(simple(program, 'sessions.list'));
  sessions
    .command('show <id>')
    .description('one conversation: its newest events')
    .option('-n, --limit <n>', 'events', '200')
    .action(async (id: string, o: { limit: string }) => {
      const opts = program.opts<GlobalOpts>();
      print(opts, await withClient(opts, (c) => c.request('sessions.show', { id, limit: positiveInt(o.limit, '--limit') })));
    });

  const config = program.command('config').description('read and change settings');
  config.command('get <key>').description('one setting: its value, default and where it comes from').action(simple(program, 'config.get', (key) => ({ key })));
  // A value fixed for this run (homed --port) hides what set/reset stores: the daemon's warning
  // goes to stderr so that the printed `origin: override` is not read as success.
  const configChange = (cmd: CliCommand, args: (...a: string[]) => Record<string, unknown>) => async (...a: unknown[]) => {
    const opts = program.opts<GlobalOpts>();
    const info = await withClient(opts, (c) => c.request<{ warning?: string }>(cmd, args(...a.filter((x): x is string => typeof x === 'string'))));
    if (opts.json || !info.warning) return print(opts, info);
    const { warning, ...rest } = info;
    print(opts, rest);
    io.err(`waiter: warning: ${warning}\n`);
  };
  config.command('set <key> <value>').description('value is parsed as JSON when it parses, else taken as a string').action(configChange('config.set', (key, value) => ({ key, value: parseValue(value) })));
  config.command('reset <key>').description('back to its default').action(configChange('config.reset', (key) => ({ key })));
  config.command('list [prefix]').description('every setting (or those under a prefix, e.g. core.llm)').action(simple(program, 'config.list', (prefix) => ({ prefix })));

  const providers = program.command('providers').description('LLM sources: list, add, update, remove, order, test, models').action(simple(program, 'providers.list'));
  providers.command('list').description('the LLM sources, their state and model').action(simple(program, 'providers.list'));
  providers.command('order <names...>').description('set the fallback order').action(async (names: string[]) => {
    const opts = program.opts<GlobalOpts>();
    print(opts, await withClient(opts, (c) => c.request('providers.order', { names })));
  });
  providers
    .command('test <name>')
    .description('send a tiny request to one source (exit code 1 when it fails)')
    .action(async (name: string) => {
      const opts = program.opts<GlobalOpts>();
      const r = await withClient(opts, (c) => c.request<{ ok: boolean }>('providers.test', { name }));
      print(opts, r);
      if (!r.ok) process.exitCode = EXIT.failed;
    });
  const sourceOptions = (cmd: Command, adding: boolean): Command =>
    cmd
      .option('--base-url <url>', `API base URL, e.g. https://api.example.com/v1${adding ? ' (required)' : ''}`)
      .option('--api <kind>', 'openai (any OpenAI-compatible endpoint, default) or anthropic (Anthropic-compatible)')
      .option('--adapter <name>', 'a Lua adapter by name instead of --api')
      .option('--model <model>', 'the model to use')
      .option('--models <list>', 'comma-separated models this source offers (for the model picker)')
      .option('--label <text>', 'display name')
      .option('--key <key>', 'API key (visible in your shell history; prefer --key-stdin or --key-env)')
      .option('--key-stdin', 'read the API key from standard input')
      .option('--key-env <var>', 'take the API key from this environment variable')
      .option('--disabled', 'add it switched off')
      .option('--enabled', 'switch it on');
  type SourceFlags = { baseUrl?: string; api?: string; adapter?: string; model?: string; models?: string; label?: string; key?: string; keyStdin?: boolean; keyEnv?: string; disabled?: boolean; enabled?: boolean };
  const sourceFields = async (o: SourceFlags): Promise<Record<string, unknown>> => {
    let apiKey = o.key;
    if (o.keyEnv) {
      apiKey = process.env[o.keyEnv];
      if (apiKey === undefined) throw new UsageError(`environment variable ${o.keyEnv} is not set`);
      // Empty is a typo or an unset variable in the shell, not "remove the key" (that is --key "").
      if (!apiKey.trim()) throw new UsageError(`environment variable ${o.keyEnv} is empty: no key was changed (to remove the key, pass --key "")`);
    }
    if (o.keyStdin) {
      apiKey = (await readStdin()).trim();
      if (!apiKey) throw new UsageError('no API key on standard input: no key was changed (to remove the key, pass --key "")');
    }
    const out: Record<string, unknown> = {};
    if (o.baseUrl !== undefined) out.baseUrl = o.baseUrl;
    if (o.api !== undefined) out.api = o.api;
    if (o.adapter !== undefined) out.adapter = o.adapter;
    if (o.model !== undefined) out.model = o.model;
    if (o.models !== undefined) out.models = o.models.split(',').map((m) => m.trim()).filter(Boolean);
    if (o.label !== undefined) out.label = o.label;
    if (apiKey !== undefined) out.apiKey = apiKey;
    if (o.disabled) out.enabled = false;
    else if (o.enabled) out.enabled = true;
    return out;
  };
  sourceOptions(providers.command('add <name>').description('add an LLM source: any OpenAI- or Anthropic-compatible endpoint'), true).action(async (name: string, o: SourceFlags) => {
    const opts = program.opts<GlobalOpts>();
    if (!o.baseUrl?.trim()) throw new UsageError('providers add needs --base-url <url>, the address of the API (e.g. http://127.0.0.1:8000/v1)');
    const source = { name, ...(await sourceFields(o)) };
    print(opts, await withClient(opts, (c) => c.request('providers.add', { source })));
  });
  sourceOptions(providers.command('update <name>').description("change a source's URL, key, model …"), false).action(async (name: string, o: SourceFlags) => {
    const opts = program.opts<GlobalOpts>();
    const patch = await sourceFields(o);
    print(opts, await withClient(opts, (c) => c.request('providers.update', { name, patch })));
  });
  providers.command('remove <name>').description('remove a source you added (its key too)').action(simple(program, 'providers.remove', (name) => ({ name })));
  providers.command('models <name>').description("the models the source's API offers").action(simple(program, 'providers.models', (name) => ({ name })));
  providers.command('held').description('Lua adapters an import put in adapters/imported/, where nothing runs them').action(simple(program, 'providers.held'));
  providers
    .command('show-held <name>')
    .description("print a held adapter's code")
    .action(async (name: string) => {
      const opts = program.opts<GlobalOpts>();
      const h = await withClient(opts, (c) => c.request<HeldAdapterSource>('providers.held', { name }));
      if (opts.json) print(opts, h);
      else process.stdout.write(h.source.endsWith('\n') ? h.source : `${h.source}\n`);
    });
  providers
    .command('take <name>')
    .description('show a held adapter (its code, what it replaces, the sources that use it), then take it into use once you confirm')
    .option('--replace', 'also when it replaces an adapter here (yours is kept in adapters/replaced/)')
    .option('-y, --yes', 'take it without asking')
    .action(async (name: string, o: { replace?: boolean; yes?: boolean }) => {
      const opts = program.opts<GlobalOpts>();
      process.exitCode = await withClient(opts, (c) => takeAdapter(opts, c, name, o));
    });
  providers
    .command('discard <name>')
    .description('delete a held adapter you do not want from adapters/imported/ (asks first)')
    .option('-y, --yes', 'discard it without asking')
    .action(async (name: string, o: { yes?: boolean }) => {
      const opts = program.opts<GlobalOpts>();
      process.exitCode = await withClient(opts, (c) => discardAdapter(opts, c, name, o));
    });

  const plugins = program.command('plugins').description('plugins: list, enable, disable, reload, install').action(simple(program, 'plugins.list'));
  plugins.command('list').description('every plugin, its kind and state').action(simple(program, 'plugins.list'));
  plugins.command('enable <name>').description('enable a plugin and start it').action(simple(program, 'plugins.enable', (name) => ({ name })));
  plugins.command('disable <name>').description('stop a plugin and keep it off').action(simple(program, 'plugins.disable', (name) => ({ name })));
  plugins.command('reload <name>').description('restart a plugin with its current settings (a new folder of that name is picked up)').action(simple(program, 'plugins.reload', (name) => ({ name })));
  plugins.command('rescan').description('pick up plugin and skill folders added since the daemon started, and start them').action(simple(program, 'plugins.rescan'));
  plugins
    .command('install <file.hmap>')
    .description('unpack and check a package, show what it asks for, then install and start it once you confirm')
    .option('-y, --yes', 'install without asking')
    .action(async (file: string, o: { yes?: boolean }) => {
      const opts = program.opts<GlobalOpts>();
      process.exitCode = await withClient(opts, (c) => installPlugin(opts, c, readFileSync(file), !!o.yes));
    });
  plugins.command('pending').description('packages uploaded (e.g. in the WebUI) and waiting for confirmation').action(simple(program, 'plugins.pending'));
  plugins.command('confirm <name>').description('install and start a pending package').action(simple(program, 'plugins.confirm', (name) => ({ name })));
  plugins.command('discard <name>').description('throw a pending package away').action(simple(program, 'plugins.discard', (name) => ({ name })));

  program
    .command('webui')
    .description('print the WebUI sign-in link (it carries this install\'s secret: do not share it)')
    .action(async () => {
      const opts = program.opts<GlobalOpts>();
      // The daemon says which token its WebUI accepts (a configured plugin.webui.token wins over
      // the per-install secret in <data>/auth-token).
      const { url, token } = await withClient(opts, (c) => c.request<{ url: string; token: string }>('webui.sign-in'));
      process.stdout.write(opts.json ? JSON.stringify({ url, signIn: signInUrl(url, token) }) + '\n' : `${signInUrl(url, token)}\n`);
    });

  program
    .command('mcp')
    .description('an MCP server on stdio over HomeAgent memory, for Claude Desktop, Cursor … (relays to the daemon\'s /mcp with this install\'s token)')
    .action(async () => {
      const opts = program.opts<GlobalOpts>();
      const status = await withClient(opts, (c) => c.request<{ endpoints?: Record<string, string> }>('status'));
      const baseUrl = status.endpoints?.webui;
      if (!baseUrl) throw new Error('the daemon\'s HTTP server (webui plugin) is not running, and MCP is served there (see logs/homed.log)');
      const token = (await withClient(opts, (c) => c.request<{ url: string; token: string }>('webui.sign-in'))).token;
      const { runMcpBridge } = await import('./mcp-bridge.js');
      await runMcpBridge({ baseUrl, token, log: (line) => process.stderr.write(`${line}\n`) });
    });

  const people = program.command('people').description("who is who across chat channels: link one person's ids (telegram:42, qq:10001) so their facts follow them").action(peopleList(program));
  people.command('list').description('everyone linked, with their ids').action(peopleList(program));
  people
    .command('link <ids...>')
    .description('link speaker ids into one person (the person one of them already belongs to, --to, or a new one)')
    .option('--to <person>', 'a person id (owner for yourself)')
    .option('--name <name>', 'the name of a new person, or a new name')
    .action(async (ids: string[], o: { to?: string; name?: string }) => {
      const opts = program.opts<GlobalOpts>();
      print(opts, await withClient(opts, (c) => c.request('people.link', { ids, to: o.to, name: o.name })));
    });
  people.command('unlink <id>').description('unlink a speaker id (a person left without ids is removed)').action(simple(program, 'people.unlink', (id) => ({ id })));
  people.command('rename <person> <name>').description('rename a person (by id, name, a linked speaker id, or "me")').action(simple(program, 'people.rename', (person, name) => ({ person, name })));

  const memory = program.command('memory').description('the memory tiers: context, documents, graph');
  memory.command('stats').description('how much each memory tier holds').action(simple(program, 'memory.stats'));
  memory
    .command('about [person]')
    .description('what HomeAgent holds about you (default) or a person: graph facts, library memories, turns — each with its source')
    .action(async (person: string | undefined) => {
      const opts = program.opts<GlobalOpts>();
      const [about, every] = await withClient(opts, (c) =>
        Promise.all([c.request<AboutView>('memory.about', { person }), c.request<{ value?: unknown }>('config.get', { key: 'core.memory.rule_distill_interval' }).then((i) => (typeof i?.value === 'string' ? i.value : undefined), () => undefined)]),
      );
      if (opts.json) print(opts, about);
      else io.out(aboutText(about, every));
    });
  memory.command('context').description('what is in the context window now').action(simple(program, 'memory.context'));
  memory.command('docs').description('the newest documents of the document tier').option('-n, --limit <n>').action(simple(program, 'memory.docs'));
  memory
    .command('search <query...>')
    .description('recall over the memory tiers (context, documents, cold archive, graph facts), with provenance; the curated library has its own: waiter library search')
    .option('-n, --limit <n>', 'hits', '10')
    .action(async (q: string[], o: { limit: string }) => {
      const opts = program.opts<GlobalOpts>();
      const hits = await withClient(opts, (c) => c.request<RecallHitView[]>('memory.search', { query: q.join(' '), limit: Number(o.limit) || 10 }));
      print(opts, opts.json ? hits : hits.map(recallRow));
    });
  memory
    .command('reindex')
    .description('rebuild the cold archive from the session logs (what no memory tier holds is archived again and distilled into graph facts by the rules; safe to repeat)')
    .action(async () => {
      const opts = program.opts<GlobalOpts>();
      const line = progressLine();
      const result = await withClient(opts, (c) =>
        c.request('memory.reindex', {}, (e) => {
          if (e.event !== 'progress') return;
          const d = e.data as { sessions: number; totalSessions: number; added: number; facts?: number };
          if (opts.json) return io.err(JSON.stringify({ event: 'progress', ...d }) + '\n');
          line(`reindex: ${d.sessions}/${d.totalSessions} sessions, ${d.added} turns added${d.facts !== undefined ? `, ${d.facts} facts distilled` : ''}`, String(d.totalSessions ? Math.floor((10 * d.sessions) / d.totalSessions) : 0));
        }),
      );
      if (!opts.json && io.errTty) io.err('\n');
      print(opts, result);
    });
  memory
    .command('why <turn>')
    .description('what was put into the model\'s context in a turn (<session>#<n>, or a session: its last turn), and where each item came from')
    .action(async (turn: string) => {
      const opts = program.opts<GlobalOpts>();
      const r = await withClient(opts, (c) => c.request<TurnWhy>('memory.why', { turn }));
      if (opts.json) return print(opts, r);
      if (!r.injected.length) return console.log(`${r.turnId}: nothing from memory was put into the context`);
      console.log(r.turnId);
      const gone = r.injected.filter((b) => b.forgotten).length;
      for (const b of r.injected) {
        if (b.forgotten) continue;
        console.log(`\n${b.title || b.source} (${b.sources.length} source${b.sources.length === 1 ? '' : 's'})`);
        for (const s of b.sources) {
          const when = s.at ? formatWhen(s.at) : '';
          const where = s.turnId ?? (s.sessionId ? `${s.sessionId}${s.seq !== undefined ? ` seq ${s.seq}` : ''}` : '');
          const who = s.speaker && s.speaker.id !== 'user' ? ` · ${s.speaker.name ?? s.speaker.id}` : '';
          console.log(`  - [${s.tier}${when ? ` · ${when}` : ''}${who}] ${s.text}${where ? `  ← ${where}` : ''}`);
        }
      }
      if (gone) console.log(`\n(${gone} block${gone === 1 ? '' : 's'} put into this turn ${gone === 1 ? 'was' : 'were'} forgotten since: what ${gone === 1 ? 'it' : 'they'} held and where it came from are gone)`);
    });
  memory.command('graph [query]').description('facts of the knowledge graph (matching a query, or around one entity)').option('-e, --entity <name>').action(async (query: string | undefined, o: { entity?: string }) => {
    const opts = program.opts<GlobalOpts>();
    print(opts, await withClient(opts, (c) => c.request('memory.graph', { query, entity: o.entity })));
  });
  memory.command('delete-fact <id>').description('delete one graph fact (its #id from memory about / search)').action(simple(program, 'memory.delete-fact', (id) => ({ id })));
  memory
    .command('correct-fact <id> <value>')
    .description('correct one graph fact\'s value (its #id from memory about): "you live in 杭州" → 上海; the wrong value is not distilled again')
    .action(simple(program, 'memory.correct-fact', (id, value) => ({ id, object: value })));
  memory.command('delete-doc <id>').description('delete one document of the document tier').action(simple(program, 'memory.delete-doc', (id) => ({ id })));
  memory.command('commit <subject> <predicate> <object>').description('add a fact to the knowledge graph').action(simple(program, 'memory.commit', (subject, predicate, object) => ({ triples: [{ subject, predicate, object }] })));
  memory
    .command('edit-entity <name>')
    .description('rename or retype an entity')
    .option('--rename <newName>', 'its new name (facts about it follow)')
    .option('--type <type>', 'what it is: person, place, pet, organization …')
    .action(async (name: string, o: { rename?: string; type?: string }) => {
      const opts = program.opts<GlobalOpts>();
      print(opts, await withClient(opts, (c) => c.request('memory.edit-entity', { name, patch: { name: o.rename, type: o.type } })));
    });
  memory.command('merge <keep> <drop>').description('merge entity <drop> into <keep>').action(simple(program, 'memory.merge', (keep, drop) => ({ keep, drop })));
  memory.command('add-doc <text...>').description('store a document in the document tier').action(async (words: string[]) => {
    const opts = program.opts<GlobalOpts>();
    print(opts, await withClient(opts, (c) => c.request('memory.add-doc', { text: words.join(' ') })));
  });
  memory.command('delete-entity <name>').description('delete an entity and every fact about it').action(simple(program, 'memory.delete-entity', (name) => ({ name })));
  memory
    .command('forget [words...]')
    .description('forget every trace of something: shows what will go (turns, facts, notes, library memories, knowledge-base entries), then asks (or --yes)')
    .option('-t, --turn <id...>', 'forget these turns (<session>#<n>)')
    .option('-m, --memory <id...>', 'forget these library memories or knowledge-base entries (ids from the preview)')
    .option('-f, --fact <id...>', 'forget these graph facts (relation ids)')
    .option('--memories', 'also remove the library memories and knowledge-base entries that mention the words')
    .option('-k, --keep <id...>', 'keep these library memories or quoting turns of the preview (a summary made from the turns, or another turn that quotes them, is removed with them otherwise)')
    .option('--keep-fact <id...>', 'keep these facts of the preview (#id): one made from the forgotten turns stays in the graph without them')
    .option('--dry-run', 'only show what would go')
    .option('-y, --yes', 'forget without asking')
    .action(async (words: string[], o: { turn?: string[]; memory?: string[]; fact?: string[]; memories?: boolean; keep?: string[]; keepFact?: string[]; dryRun?: boolean; yes?: boolean }) => {
      const opts = program.opts<GlobalOpts>();
      const query = words.join(' ').trim();
      if (!query && !o.turn?.length && !o.memory?.length && !o.fact?.length) {
        io.err('waiter: say what to forget: words, --turn <id>, --memory <id> or --fact <id>\n');
        process.exitCode = EXIT.usage;
        return;
      }
      const req = { ...(query ? { query } : {}), ...(o.turn ? { turnIds: o.turn } : {}), ...(o.memory ? { memoryIds: o.memory } : {}), ...(o.fact ? { relationIds: o.fact.map(Number) } : {}) };
      process.exitCode = await withClient(opts, (c) => forgetCommand(c, { out: io.out, err: io.err, json: !!opts.json, ask: terminalAsk() }, req, o));
    });
  memory
    .command('history [subject]')
    .description('every change to memory (facts, entities, library, documents, exclusions) with who made it, when and from which turn')
    .option('--target <target>', 'one thing: relation:<id>, a memory id, a turn id')
    .option('-n, --limit <n>', 'changes', '50')
    .action(async (subject: string | undefined, o: { target?: string; limit: string }) => {
      const opts = program.opts<GlobalOpts>();
      const limit = positiveInt(o.limit, '--limit', 1000);
      const list = await withClient(opts, (c) => c.request<MemoryChange[]>('memory.history', { subject, target: o.target, limit }));
      print(opts, opts.json ? list : list.map(historyRow));
    });
  memory.command('undo <changeId>').description('undo one change from `waiter memory history`').action(simple(program, 'memory.undo', (id) => ({ id })));
  memory.command('exclude <turnIds...>').description('exclude turns from every memory tier (kept aside; `restore` brings them back)').action(async (ids: string[]) => {
    const opts = program.opts<GlobalOpts>();
    print(opts, await withClient(opts, (c) => c.request('memory.exclude', { turnIds: ids })));
  });
  memory.command('restore <turnIds...>').description('bring excluded turns back into every memory tier').action(async (ids: string[]) => {
    const opts = program.opts<GlobalOpts>();
    print(opts, await withClient(opts, (c) => c.request('memory.restore', { turnIds: ids })));
  });

  const knowledge = program.command('knowledge').description('the knowledge base');
  knowledge.command('list').description('every entry of the knowledge base').action(simple(program, 'knowledge.list'));
  knowledge.command('get <name>').description('one entry, whole').action(simple(program, 'knowledge.get', (name) => ({ name })));
  knowledge
    .command('put <name> <file>')
    .description('create an entry from a file: Markdown, text, PDF or HTML (- for stdin); --replace to write over an entry of that name')
    .option('--replace', 'replace the entry of that name if there is one (Undo in the memory history brings the old text back)')
    .action(async (name: string, file: string, o: { replace?: boolean }) => {
      const opts = program.opts<GlobalOpts>();
      // Read here, where the file is; only its text is sent. Every refusal (not a kind it reads, no
      // text in it, over 1 MB of text) is said before sending — a text over the socket's frame was
      // refused as "socket frame is larger than …".
      // An HTML file or a PDF gets the daemon's time limit for reading one (asked first; its default when the daemon does not answer).
      const limit = (key: string) =>
        withClient(opts, (c) => c.request<{ value?: unknown }>('config.get', { key })).then(
          (i) => (typeof i?.value === 'number' ? i.value : undefined),
          () => undefined,
        );
      const htmlTimeoutMs = await limit('core.media.html_timeout_ms');
      const pdfTimeoutMs = await limit('core.media.pdf_timeout_ms');
      const read = await readKnowledgeFile(file, { htmlTimeoutMs, pdfTimeoutMs }).catch((e: unknown) => {
        throw e instanceof KnowledgeFileError || (e as { code?: string }).code === 'FILE_NOT_READ' ? new UsageError((e as Error).message) : e;
      });
      await withClient(opts, (c) => c.request('knowledge.put', { name, content: read.text, create: o.replace !== true })).catch((e: Error & { code?: string; details?: { name?: string } }) => {
        if (e.code !== 'CONFLICT') throw e;
        throw new UsageError(`there is a knowledge entry named "${e.details?.name ?? name}" already: pass --replace to write over it, or choose another name`);
      });
      print(opts, knowledgePutSummary(name, read));
    });
  knowledge.command('search <query...>').description('entries matching the words, best first').action(async (q: string[]) => {
    const opts = program.opts<GlobalOpts>();
    print(opts, await withClient(opts, (c) => c.request('knowledge.search', { query: q.join(' ') })));
  });
  knowledge.command('delete <name>').description('delete one entry').action(simple(program, 'knowledge.delete', (name) => ({ name })));

  const lib = program.command('library').description('the curated memory library (memory-manager)');
  const libOp = (op: string, build: (...a: string[]) => Record<string, unknown> = () => ({}), session?: (...a: string[]) => string | undefined) =>
    simple(program, 'library', (...a) => ({ op, args: build(...a), sessionId: session?.(...a) }));
  lib.command('list').description('every memory of the library').action(libOp('memory.list'));
  lib.command('search <query>').description('memories matching the words').action(libOp('memory.search', (query) => ({ query })));
  lib.command('show <id>').description('one memory, whole').action(libOp('memory.get', (id) => ({ id })));
  lib.command('save <title> <text>').description('save a new memory (snapshot = text)').action(libOp('memory.save', (title, text) => ({ title, snapshot: text })));
  lib.command('annotate <id> <notes>').description('replace a memory\'s notes').action(libOp('memory.updateNotes', (id, notes) => ({ id, notes })));
  lib.command('plan').description('the injection plan: what goes into every conversation').action(libOp('plan.get'));
  lib.command('plan-add <id>').description('put a memory into the injection plan').action(libOp('plan.addMemory', (id) => ({ id })));
  lib.command('plan-remove <id>').description('take a memory out of the injection plan').action(libOp('plan.removeMemory', (id) => ({ id })));
  lib.command('preview').description('the text the plan injects now, within its budgets').action(libOp('plan.preview'));
  lib
    .command('summarize <sessionId>')
    .description('summarize a session into library memories')
    .option('-n, --last <n>', 'only the last N turns')
    .option('--merge', 'let the model group consecutive turns of one task')
    .action(async (sessionId: string, o: { last?: string; merge?: boolean }) => {
      const opts = program.opts<GlobalOpts>();
      const args: Record<string, unknown> = {};
      if (o.last !== undefined) args.lastN = positiveInt(o.last, '--last', 10_000);
      if (o.merge) args.merge = true;
      print(opts, await withClient(opts, (c) => c.request('library', { op: 'session.summarize', sessionId, args })));
    });
  lib.command('exclude <sessionId> <turnId>').description('hide a turn from the model and from session summaries').action(libOp('turn.exclude', (sessionId, turnId) => ({ turnId, sessionId }), (s) => s));
  lib.command('restore <sessionId> <turnId>').description('bring an excluded turn back').action(libOp('turn.restore', (sessionId, turnId) => ({ turnId, sessionId }), (s) => s));

  program
    .command('export [file]')
    .description('write the whole memory (sessions, tiers, graph, library, knowledge, persona, settings without secrets) into one archive')
    .option('--passphrase', 'encrypt it (age, scrypt): asks for the passphrase, or reads it from standard input')
    .option('--passphrase-env <var>', 'encrypt it with the passphrase in this environment variable')
    .action(async (file: string | undefined, o: { passphrase?: boolean; passphraseEnv?: string }) => {
      const opts = program.opts<GlobalOpts>();
      const pass = await passphrase(o, true);
      const stamp = new Date().toISOString().slice(0, 19).replace(/:/g, '-');
      const target = resolve(file ?? `homeagent-export-${stamp}.zip${pass ? '.age' : ''}`);
      const ext = pass ? '.age' : '.zip';
      if (!target.toLowerCase().endsWith(ext)) io.err(`waiter: note: the archive is ${pass ? 'age-encrypted' : 'a zip file'} whatever its name; "${basename(target)}" does not end in ${ext}\n`);
      const job = await withClient(opts, (c) => c.request('transfer.export', { file: target, passphrase: pass }, transferProgress(opts)));
      if (!opts.json) io.err('\n');
      for (const l of (job as { leftOut?: TransferLeftOut[] }).leftOut ?? []) io.err(`waiter: warning: ${l.file} is damaged (${l.error}) and was left out of this export; the rest is in it. ${l.recover}\n`);
      print(opts, opts.json ? job : { file: target, ...(job as { file?: object; manifest?: object }).file, counts: (job as { manifest?: { counts?: object } }).manifest?.counts });
    });
  program
    .command('import <file>')
    .description('merge an export into this data folder (verified whole first; all or nothing)')
    .option('--mode <mode>', 'when an item exists here and differs: skip (keep ours), overwrite (take theirs), keep-both', 'skip')
    .option('--passphrase', 'the archive is encrypted: asks for the passphrase, or reads it from standard input')
    .option('--passphrase-env <var>', 'the passphrase is in this environment variable')
    .option('--privileged-settings', 'also import settings only you set (programs, paths, endpoints, listen addresses, allowlists, protected keys)')
    .option('--approve-injected', 'also take what would reach every session (convention and summary memories, the injection plan, the persona): read the --dry-run report first')
    .option('--dry-run', 'verify and show what each part would do; change nothing')
    .option('--without-tombstones', 'import although memory-control.db was set aside at this start (what you forgot may come back)')
    .action(async (file: string, o: { mode: string; passphrase?: boolean; passphraseEnv?: string; privilegedSettings?: boolean; approveInjected?: boolean; dryRun?: boolean; withoutTombstones?: boolean }) => {
      const opts = program.opts<GlobalOpts>();
      if (!['skip', 'overwrite', 'keep-both'].includes(o.mode)) throw new UsageError(`--mode is skip, overwrite or keep-both, not "${o.mode}"`);
      const pass = await passphrase(o, false);
      const job = await withClient(opts, (c) => c.request('transfer.import', { file: resolve(file), mode: o.mode, passphrase: pass, privilegedSettings: o.privilegedSettings === true, approveInjected: o.approveInjected === true, withoutTombstones: o.withoutTombstones === true, dryRun: o.dryRun === true }, transferProgress(opts)));
      if (!opts.json) io.err('\n');
      const j = job as { report?: { parts?: object; notes?: string[]; renamedSessions?: object } };
      print(opts, opts.json ? job : importView(o.dryRun === true, j.report ?? {}));
      // What the archive would put into every turn was held back: name the flag that takes it.
      // The library's and the persona's (sources and adapters are held for other reasons: see the report).
      const parts = (j.report?.parts ?? {}) as Record<string, { heldForApproval?: unknown[] }>;
      const held = [...(parts.library?.heldForApproval ?? []), ...(parts.persona?.heldForApproval ?? [])];
      const hint = opts.json || o.approveInjected ? undefined : heldHint(file, o.mode, held);
      if (hint) io.err(hint);
    });

  const changes = program.command('changes').description('files changed by agent tools, with undo').action(simple(program, 'changes.list'));
  changes.command('list').description('files changed by agent tools').action(simple(program, 'changes.list'));
  changes.command('undo <id>').description('put a changed file back as it was').action(simple(program, 'changes.undo', (id) => ({ id })));
  return program;
}

export async function main(argv = process.argv, sinks: WaiterIo = terminal): Promise<number> {
  io = sinks;
  const program = buildProgram();
  // Commands report failure through process.exitCode; start from a clean one (tests call main
  // more than once in a process).
  process.exitCode = undefined;
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (e) {
    const json = program.opts<GlobalOpts>().json;
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (e instanceof UsageError) {
      io.err(`waiter: ${e.message}\n`);
      return EXIT.usage;
    }
    const err = e as { code?: string; message?: string };
    if (json) io.err(JSON.stringify({ ok: false, error: { code: err.code ?? 'ERROR', message: err.message } }) + '\n');
    else io.err(`waiter: ${err.message}\n`);
    return e instanceof DaemonNotRunningError ? EXIT.notRunning : EXIT.failed;
  }
}

const invoked = process.argv[1] && /waiter(\/main)?(\.[jt]s)?$/.test(process.argv[1]);
/**
 * Exits once what was written has left: a pipe takes writes asynchronously, so `process.exit` at
 * once would cut the output after 64 KiB (`waiter --json config list | jq`). The exit itself stays
 * explicit — an interactive chat or a socket may still hold the event loop.
 */
async function exitAfterOutput(code: number): Promise<never> {
  process.exitCode = code;
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((resolve) => (s.writableLength === 0 || s.destroyed ? resolve() : s.write('', () => resolve())))));
  process.exit(code);
}

if (invoked) {
  // The reader of a pipe went away (`waiter … | head`): nothing more can be said; stop quietly, as
  // `cat` does, rather than with a stack trace of the failed write.
  for (const s of [process.stdout, process.stderr]) s.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' ? process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0) : undefined));
  void main().then(exitAfterOutput);
}
