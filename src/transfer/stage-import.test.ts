/**
 * Decision 0280: receiving an archive to import — the size limit and the disk's free space are
 * checked before a byte is written when the size is known, and again as bytes arrive; a receipt
 * that fails (a full disk, a stream that breaks, a body shorter than declared) leaves no partial
 * file and no job. Real files; a real full disk on a small tmpfs where this machine lets the test
 * mount one.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TransferError } from '../spec/index.js';
import { TransferRuntime, type TransferHost, type TransferServiceOptions } from './index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-stage-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const MiB = 1024 * 1024;

/** The transfer service over a data folder (receiving touches nothing but `<home>/.transfer`). */
function runtime(opts: TransferServiceOptions = {}, home = path.join(root, `h${n++}`)) {
  fs.mkdirSync(home, { recursive: true });
  const warnings: string[] = [];
  const host = { home, log: { info() {}, warn: (m: string) => void warnings.push(m), error() {} } } as unknown as TransferHost;
  const t = new TransferRuntime(host, opts);
  t.start();
  return { t, home, warnings, jobs: () => (fs.existsSync(path.join(home, '.transfer')) ? fs.readdirSync(path.join(home, '.transfer')) : []) };
}

/** A zip-looking stream of `size` bytes in 1 MiB chunks; `onChunk` runs before each. */
async function* archive(size: number, onChunk: (sent: number) => void = () => {}): AsyncIterable<Uint8Array> {
  for (let sent = 0; sent < size; sent += MiB) {
    onChunk(sent);
    const chunk = Buffer.alloc(Math.min(MiB, size - sent), 0x61);
    if (sent === 0) chunk.write('PK\x03\x04', 0, 'latin1');
    yield chunk;
  }
}

const code = (c: string) => (e: TransferError) => e.code === c;

test('0280: a declared length over the limit or over what the disk can take is refused before a byte is written', async () => {
  const { t, jobs } = runtime({ limits: { maxArchiveBytes: 10 * MiB } });
  let pulled = 0;
  await assert.rejects(t.stageImport({ stream: archive(20 * MiB, () => void pulled++), bytes: 20 * MiB }), code('TRANSFER_TOO_LARGE'));
  assert.equal(pulled, 0, 'not one byte read');
  assert.deepEqual(jobs(), []);
  // The real disk: no disk has a petabyte free.
  const big = runtime({ limits: { maxArchiveBytes: Number.MAX_SAFE_INTEGER } });
  await assert.rejects(big.t.stageImport({ stream: archive(MiB, () => void pulled++), bytes: 1e15 }), (e: TransferError) => {
    assert.equal(e.code, 'TRANSFER_NO_SPACE');
    assert.match(e.message, /not enough disk space: the archive is 1000000000000000 bytes and the disk of the data folder has \d+ free, and 268435456 must stay free/);
    assert.equal(e.details.keepFree, 256 * MiB);
    return true;
  });
  assert.equal(pulled, 0);
  assert.deepEqual(big.jobs(), []);
  // A file given by path is measured the same way.
  const f = path.join(root, 'big.zip');
  fs.writeFileSync(f, Buffer.alloc(11 * MiB));
  await assert.rejects(t.stageImport({ file: f }), code('TRANSFER_TOO_LARGE'));
  await assert.rejects(t.stageImport({ stream: archive(MiB), bytes: -1 }), code('TRANSFER_BAD_REQUEST'));
});

test('0280: the disk filling while bytes arrive (no declared length) stops the receipt with a clear error; the partial file is removed', async () => {
  let free = 1024 * MiB;
  const { t, jobs, warnings, home } = runtime({ freeBytes: () => free });
  let sentAtStop = 0;
  await assert.rejects(
    t.stageImport({
      stream: archive(64 * MiB, (sent) => {
        sentAtStop = sent;
        if (sent >= 20 * MiB) free = 200 * MiB; // other writers fill the disk: less than 256 MiB left
      }),
    }),
    (e: TransferError) => {
      assert.equal(e.code, 'TRANSFER_NO_SPACE');
      assert.match(e.message, /after \d+ bytes of the archive the disk of the data folder has 209715200 bytes free/);
      return true;
    },
  );
  assert.ok(sentAtStop < 40 * MiB, `stopped soon after the disk filled, at ${sentAtStop}`);
  assert.deepEqual(jobs(), [], 'no job, no partial file');
  assert.deepEqual(warnings, [], 'a refusal of ours is no failure to log');
  // The disk has room again: the next upload is taken.
  free = 1024 * MiB;
  const ok = await t.stageImport({ stream: archive(3 * MiB), bytes: 3 * MiB });
  assert.equal(ok.state, 'staged');
  assert.equal(fs.statSync(path.join(home, '.transfer', ok.id, 'archive')).size, 3 * MiB);
});

test('0280: a stream that breaks, or ends before its declared length, leaves nothing', async () => {
  const { t, jobs } = runtime();
  async function* broken(): AsyncIterable<Uint8Array> {
    yield Buffer.from('PK\x03\x04');
    yield Buffer.alloc(2 * MiB);
    throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
  }
  await assert.rejects(t.stageImport({ stream: broken() }), code('TRANSFER_TRUNCATED'));
  assert.deepEqual(jobs(), []);
  await assert.rejects(t.stageImport({ stream: archive(2 * MiB), bytes: 3 * MiB }), (e: TransferError) => e.code === 'TRANSFER_TRUNCATED' && /ended after 2097152 of its 3145728 bytes/.test(e.message));
  assert.deepEqual(jobs(), []);
});

/** Mounts a tmpfs of `mib` MiB at a new folder, or says why it cannot. */
function smallDisk(mib: number): { dir: string; unmount(): void } | string {
  if (process.platform !== 'linux') return 'tmpfs needs Linux';
  const dir = fs.mkdtempSync(path.join(root, 'disk-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${mib}m,mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return `cannot mount a tmpfs here (${(r.stderr || r.error?.message || '').trim()})`;
  // Lazily, so a descriptor still closing cannot keep it mounted.
  return { dir, unmount: () => void spawnSync('umount', ['-l', dir]) };
}

test('0280: a real disk that fills (a small tmpfs): TRANSFER_NO_SPACE, the partial file is removed, and the disk is free again', async (t) => {
  const disk = smallDisk(8);
  if (typeof disk === 'string') return t.skip(disk);
  try {
    // Without a margin the write itself hits ENOSPC.
    const full = runtime({ limits: { keepFreeBytes: 0 } }, path.join(disk.dir, 'a'));
    await assert.rejects(full.t.stageImport({ stream: archive(16 * MiB) }), (e: TransferError) => {
      assert.equal(e.code, 'TRANSFER_NO_SPACE');
      assert.match(e.message, /the disk of the data folder is full/);
      return true;
    });
    assert.deepEqual(full.jobs(), []);
    assert.ok(full.warnings.some((w) => /partial file was removed/.test(w)));
    // With the margin, the receipt stops before the disk is full.
    const kept = runtime({ limits: { keepFreeBytes: 4 * MiB } }, path.join(disk.dir, 'b'));
    await assert.rejects(kept.t.stageImport({ stream: archive(16 * MiB) }), (e: TransferError) => e.code === 'TRANSFER_NO_SPACE' && /must stay free/.test(e.message));
    assert.deepEqual(kept.jobs(), []);
    // The partial files are unlinked and their descriptors closed (a write stream closes a moment after it fails).
    const freeNow = () => Number(fs.statfsSync(disk.dir).bavail) * Number(fs.statfsSync(disk.dir).bsize);
    for (let i = 0; i < 100 && freeNow() <= 7 * MiB; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(freeNow() > 7 * MiB, `nothing left behind on the disk: ${freeNow()} free`);
  } finally {
    disk.unmount();
  }
});

test('an upload may take as long as it needs while bytes keep coming; one that sends nothing for uploadIdleMs is given up, its partial file removed', async () => {
  const { t, jobs } = runtime({ limits: { uploadIdleMs: 300 } });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  // Slow but moving: a chunk every 100 ms for 1.2 s in all, four times the idle limit.
  async function* trickle(): AsyncIterable<Uint8Array> {
    for (let i = 0; i < 12; i++) {
      if (i) await pause(100);
      yield Buffer.from(i === 0 ? 'PK\x03\x04' : 'slow', 'latin1');
    }
  }
  const staged = await t.stageImport({ stream: trickle() });
  assert.equal(staged.state, 'staged');
  await t.discard(staged.id);
  // Stalled: one chunk, then nothing (a connection left open).
  let stop: () => void = () => {};
  async function* stalled(): AsyncIterable<Uint8Array> {
    yield Buffer.from('PK\x03\x04 first bytes', 'latin1');
    await new Promise<void>((r) => (stop = r));
  }
  await assert.rejects(t.stageImport({ stream: stalled() }), (e: TransferError) => {
    assert.equal(e.code, 'TRANSFER_TRUNCATED');
    assert.match(e.message, /no byte of the archive arrived for 0 s: the upload stalled/);
    return true;
  });
  stop();
  assert.deepEqual(jobs(), [], 'no partial file, no job');
});
