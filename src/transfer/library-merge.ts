import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { importNote, type TransferReport } from '../spec/index.js';
import { holdMemoryFile, planInjects } from './every-session.js';
import { mergeFileItem } from './file-item.js';
import type { MergeContext } from './merge-context.js';

/** A free name for a library memory or knowledge entry imported beside ours (keep-both). */
function freeName(base: string, maxLen: number, taken: (n: string) => boolean): string {
  for (let n = 1; n < 1000; n++) {
    const suffix = `-imported${n > 1 ? `-${n}` : ''}`;
    const cand = `${base.slice(0, maxLen - suffix.length)}${suffix}`;
    if (!taken(cand)) return cand;
  }
  throw new Error(`no free name for ${base}`);
}

/**
 * The archive's library (memories, the plan files), knowledge entries and persona, file by file
 * (`mergeFileItem`). What reaches every session needs the person's yes (decisions 0240, 0350):
 * without `approveInjected` a convention or summary memory comes in disabled, and a plan, a
 * one-shot queue or a persona that would change ours is held back; the report names each. Returns
 * the library memories and knowledge entries imported beside ours under a new name.
 */
export function mergeLibraryFiles(c: MergeContext, o: { approveInjected?: boolean }): TransferReport['renamed'] {
  const { staged, live, mergedHome: M, mode, refs, notes, plan } = c;
  const renamed: TransferReport['renamed'] = { library: {}, knowledge: {} };
  // What reaches every session needs the person's yes (decisions 0240, 0350): without
  // `approveInjected`, a convention or summary memory comes in disabled, and a plan, a one-shot
  // queue or a persona that would change ours is held back; the report names each.
  const approved = o.approveInjected === true;
  const heldLibrary: string[] = [];
  const heldPersona: string[] = [];
  for (const f of staged.libraryFiles()) {
    const [sub, name] = f.rel.split('/');
    if (sub === 'memories' && refs.forgotten(`library:${name.slice(0, -3)}`)) {
      plan('library').forgotten++;
      continue;
    }
    const liveFile = join(live.library, sub, name);
    let source = f.file;
    // One that is here already, byte for byte, was approved here (or is plain): left as it is.
    if (!approved && sub === 'memories' && !(existsSync(liveFile) && readFileSync(liveFile).equals(readFileSync(f.file)))) {
      const h = holdMemoryFile(readFileSync(f.file, 'utf8'));
      if (h.held) {
        heldLibrary.push(f.rel);
        if (h.text === undefined) {
          plan('library').skipped++;
          notes.push(importNote.memoryNotMarkable(name.slice(0, -3)));
          continue;
        }
        source = join(M, 'held', name);
        mkdirSync(dirname(source), { recursive: true, mode: 0o700 });
        writeFileSync(source, h.text, { mode: 0o600 });
      }
    }
    if (!approved && sub === 'pinned' && (name === 'plan.json' || name === 'once.json') && planInjects(name, readFileSync(f.file, 'utf8'))) {
      const same = existsSync(liveFile) && readFileSync(liveFile).equals(readFileSync(f.file));
      if (same) plan('library').same++;
      else if (existsSync(liveFile) && mode !== 'overwrite') {
        plan('library').conflicts++;
        plan('library').skipped++;
      } else {
        plan('library').skipped++;
        heldLibrary.push(f.rel);
      }
      continue;
    }
    mergeFileItem(c, 'library', source, liveFile, join(M, 'library', sub, name), sub === 'memories' ? () => {
      const id = name.slice(0, -3);
      const to = freeName(id, 64, (n) => existsSync(join(live.library, 'memories', `${n}.md`)));
      renamed.library[id] = to;
      return join(live.library, 'memories', `${to}.md`);
    } : undefined);
  }
  for (const k of staged.knowledge()) {
    mergeFileItem(c, 'knowledge', k.file, join(live.home, 'knowledge', k.name, 'content.md'), join(M, 'knowledge', k.name, 'content.md'), () => {
      const to = freeName(k.name, 64, (n) => existsSync(join(live.home, 'knowledge', n)));
      renamed.knowledge[k.name] = to;
      return join(live.home, 'knowledge', to, 'content.md');
    });
  }
  if (staged.has('persona.md')) {
    const theirs = join(staged.dir, 'persona.md');
    const here = existsSync(live.persona);
    const wouldChange = (!here || mode === 'overwrite') && !(here && readFileSync(live.persona).equals(readFileSync(theirs)));
    if (!approved && wouldChange) {
      plan('persona').skipped++;
      heldPersona.push('persona.md');
    } else mergeFileItem(c, 'persona', theirs, live.persona, join(M, 'persona.md'), undefined);
  }
  if (heldLibrary.length) {
    plan('library').heldForApproval = heldLibrary;
    const memories = heldLibrary.filter((r) => r.startsWith('memories/')).length;
    if (memories) notes.push(importNote.memoriesDisabled(memories));
    if (heldLibrary.some((r) => r.startsWith('pinned/'))) notes.push(importNote.planHeld());
  }
  if (heldPersona.length) {
    plan('persona').heldForApproval = heldPersona;
    notes.push(importNote.personaHeld());
  }
  return renamed;
}
