import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';

/** A value of a SQLite record as read from the file (integers past 2^53 lose precision). */
export type SqliteValue = null | number | string | Uint8Array;

/** What one walk of a b-tree read and could not read. */
export interface BtreeWalk {
  /** Pages of the tree that were read. */
  pages: number;
  /**
   * Pages the tree points to that could not be read (garbage, past the end of the file, of the
   * wrong kind, a cycle). Their rows — and, for an interior page, those of the pages below it —
   * were not reached.
   */
  unreadable: number;
  /** Of those, the ones that were leaves for certain (a leaf sits at the depth of its readable siblings). */
  unreadableLeaves: number;
  /** Cells of readable pages that did not decode (each one row). */
  badCells: number;
  /** Rows read. */
  rows: number;
  /**
   * Pages the tree points to that are on the file's freelist (decision 0310): a stale interior
   * page (a lost write) still names pages freed since — their rows were deleted. Never read.
   */
  freePages: number;
}

/**
 * The file's freelist as its header (page 1, the WAL's copy when there is one) and trunk pages
 * say: every trunk and leaf page number read. `damaged` says why reading stopped early (a loop, a
 * page number out of range, a trunk that does not parse, a total that does not match the
 * header's): pages on the unread rest of the list are not known to be free.
 */
export interface Freelist {
  pages: ReadonlySet<number>;
  damaged?: string;
}

const WAL_MAGIC_LE = 0x377f0682;
const WAL_MAGIC_BE = 0x377f0683;
const HEADER = Buffer.from('SQLite format 3\0', 'latin1');
/** At most this many pages are visited in one walk (a corrupt file can point in circles). */
const MAX_WALK_PAGES = 1_000_000;

/**
 * Reads a SQLite database file that SQLite itself refuses (decision 0280): page by page, from the
 * file format (https://www.sqlite.org/fileformat2.html), with the committed frames of its `-wal`
 * laid over the main file as SQLite would. Every read is bounds-checked; a page that does not
 * parse is counted, never thrown. For salvage only: no locking, no writes, no SQL.
 */
export class SqlitePageReader {
  readonly pageSize: number;
  /** Bytes of a page that hold data (the page size less the reserved tail). */
  readonly usable: number;
  /** Whether the 100-byte file header was intact (magic and a valid page size). */
  readonly headerIntact: boolean;
  private readonly fd: number;
  private readonly walFd: number | undefined;
  private readonly fileBytes: number;
  /** The newest committed WAL frame of each page: its offset in the `-wal`. */
  private readonly walPages = new Map<number, number>();
  private readonly pageCache = new Map<number, Buffer | null>();
  private freelistRead: Freelist | undefined;

  private constructor(file: string) {
    this.fd = openSync(file, 'r');
    this.fileBytes = fstatSync(this.fd).size;
    const head = Buffer.alloc(100);
    readSync(this.fd, head, 0, 100, 0);
    const magicOk = head.subarray(0, 16).equals(HEADER);
    const rawSize = head.readUInt16BE(16);
    const headerSize = rawSize === 1 ? 65536 : rawSize;
    const validSize = (n: number) => n >= 512 && n <= 65536 && (n & (n - 1)) === 0;
    this.headerIntact = magicOk && validSize(headerSize);
    let walSize: number | undefined;
    if (existsSync(`${file}-wal`)) {
      this.walFd = openSync(`${file}-wal`, 'r');
      const wh = Buffer.alloc(32);
      if (readSync(this.walFd, wh, 0, 32, 0) === 32 && (wh.readUInt32BE(0) === WAL_MAGIC_LE || wh.readUInt32BE(0) === WAL_MAGIC_BE) && validSize(wh.readUInt32BE(8))) walSize = wh.readUInt32BE(8);
    }
    // A garbage header loses the page size: the WAL's says it too; else SQLite's default.
    this.pageSize = this.headerIntact ? headerSize : (walSize ?? 4096);
    const reserved = this.headerIntact ? head[20] : 0;
    this.usable = this.pageSize - reserved;
    if (this.walFd !== undefined && walSize === this.pageSize) this.readWal();
  }

  /** Opens a file (and its `-wal`, when there is one) read-only. Close it when done. */
  static open(file: string): SqlitePageReader {
    return new SqlitePageReader(file);
  }

  close(): void {
    closeSync(this.fd);
    if (this.walFd !== undefined) closeSync(this.walFd);
    this.pageCache.clear();
  }

  /**
   * `PRAGMA user_version` as the file's header says it (the schema version of our migrations), from
   * page 1 as SQLite would read it (the WAL's copy when there is one); undefined when page 1's header
   * is not a SQLite header.
   */
  get userVersion(): number | undefined {
    const p1 = this.page(1);
    if (!p1 || !p1.subarray(0, 16).equals(HEADER)) return undefined;
    return p1.readUInt32BE(60);
  }

  /** Pages in the main file (the WAL may add more). */
  get mainPages(): number {
    return Math.floor(this.fileBytes / this.pageSize);
  }

  /** The highest page number either file holds (the main file's pages, or a WAL frame's beyond them). */
  get lastPage(): number {
    let n = this.mainPages;
    for (const p of this.walPages.keys()) if (p > n) n = p;
    return n;
  }

  /**
   * The freelist (fileformat2 §1.5), read once: header offset 32 names the first trunk page, 36 the
   * total of free pages; a trunk holds the next trunk's number, a count of leaves and their numbers.
   * Reading stops — and `damaged` says why — at a trunk seen before, a number out of range, a
   * trunk that is unreadable or whose count does not fit its page; the leaves of a trunk that
   * does not parse are not taken (random numbers would hide live pages). Never throws.
   */
  get freelist(): Freelist {
    if (!this.freelistRead) {
      try {
        this.freelistRead = this.readFreelist();
      } catch (e) {
        this.freelistRead = { pages: new Set(), damaged: `the freelist could not be read: ${(e as Error).message}` };
      }
    }
    return this.freelistRead;
  }

  private readFreelist(): Freelist {
    const pages = new Set<number>();
    const done = (damaged?: string): Freelist => (damaged ? { pages, damaged } : { pages });
    const p1 = this.page(1);
    if (!p1 || !p1.subarray(0, 16).equals(HEADER)) return done('page 1 is not a SQLite header: the freelist is unknown');
    const total = p1.readUInt32BE(36);
    const last = this.lastPage;
    const perTrunk = Math.floor(this.usable / 4) - 2;
    const inRange = (n: number) => n >= 2 && n <= last;
    let trunk = p1.readUInt32BE(32);
    while (trunk !== 0) {
      if (!inRange(trunk)) return done(`freelist trunk page ${trunk} is out of range (1–${last})`);
      if (pages.has(trunk)) return done(`freelist trunk page ${trunk} is named twice (a loop)`);
      pages.add(trunk);
      const buf = this.page(trunk);
      if (!buf) return done(`freelist trunk page ${trunk} is unreadable`);
      const count = buf.readUInt32BE(4);
      if (count > perTrunk) return done(`freelist trunk page ${trunk} says ${count} leaves; at most ${perTrunk} fit`);
      const leaves: number[] = [];
      for (let i = 0; i < count; i++) leaves.push(buf.readUInt32BE(8 + 4 * i));
      const bad = leaves.find((l) => !inRange(l) || pages.has(l));
      if (bad !== undefined) return done(`freelist trunk page ${trunk} names leaf ${bad}, out of range or named before`);
      for (const l of leaves) pages.add(l);
      if (pages.size > total) return done(`the freelist holds more pages than the header's ${total}`);
      trunk = buf.readUInt32BE(0);
    }
    return done(pages.size === total ? undefined : `the freelist holds ${pages.size} pages; the header says ${total}`);
  }

  /**
   * Indexes the WAL: frames whose salts match the header and whose running checksum is right are
   * valid; those up to the last commit frame are what SQLite reads in place of the main file's.
   */
  private readWal(): void {
    const fd = this.walFd!;
    const size = fstatSync(fd).size;
    const wh = Buffer.alloc(32);
    readSync(fd, wh, 0, 32, 0);
    const bigEndian = wh.readUInt32BE(0) === WAL_MAGIC_BE;
    const salt1 = wh.readUInt32BE(16);
    const salt2 = wh.readUInt32BE(20);
    let [s0, s1] = walChecksum(wh.subarray(0, 24), bigEndian, 0, 0);
    if (s0 !== wh.readUInt32BE(24) || s1 !== wh.readUInt32BE(28)) return;
    const frameBytes = 24 + this.pageSize;
    const frame = Buffer.alloc(frameBytes);
    const pending = new Map<number, number>();
    for (let off = 32; off + frameBytes <= size; off += frameBytes) {
      readSync(fd, frame, 0, frameBytes, off);
      if (frame.readUInt32BE(8) !== salt1 || frame.readUInt32BE(12) !== salt2) break;
      [s0, s1] = walChecksum(frame.subarray(0, 8), bigEndian, s0, s1);
      [s0, s1] = walChecksum(frame.subarray(24), bigEndian, s0, s1);
      if (s0 !== frame.readUInt32BE(16) || s1 !== frame.readUInt32BE(20)) break;
      pending.set(frame.readUInt32BE(0), off);
      if (frame.readUInt32BE(4) !== 0) {
        for (const [p, o] of pending) this.walPages.set(p, o);
        pending.clear();
      }
    }
  }

  /** One page (1-based) as SQLite would read it, or null when it is past the end of both files. */
  page(n: number): Buffer | null {
    if (!Number.isInteger(n) || n < 1) return null;
    const hit = this.pageCache.get(n);
    if (hit !== undefined) return hit;
    const buf = Buffer.alloc(this.pageSize);
    const walOff = this.walPages.get(n);
    let got = 0;
    if (walOff !== undefined) got = readSync(this.walFd!, buf, 0, this.pageSize, walOff + 24);
    else if (n * this.pageSize <= this.fileBytes) got = readSync(this.fd, buf, 0, this.pageSize, (n - 1) * this.pageSize);
    const page = got === this.pageSize ? buf : null;
    if (this.pageCache.size > 4096) this.pageCache.clear();
    this.pageCache.set(n, page);
    return page;
  }

  /**
   * Every row of the b-tree rooted at `root`: `table` trees give `(rowid, values)`, `index` trees
   * (and WITHOUT ROWID tables) `values`. Pages that do not parse are skipped and counted; a cell
   * that does not decode is counted and skipped. A page on the freelist is never read — neither
   * descended into nor its cells decoded — and is counted (`freePages`); a cell whose overflow
   * chain runs into a free page does not decode.
   */
  walk(root: number, kind: 'table' | 'index', visit: (values: SqliteValue[], rowid: number | undefined) => void): BtreeWalk {
    const out: BtreeWalk = { pages: 0, unreadable: 0, unreadableLeaves: 0, badCells: 0, rows: 0, freePages: 0 };
    const free = this.freelist.pages;
    const seen = new Set<number>();
    const leafDepths = new Set<number>();
    const failedAt: number[] = [];
    const stack: { page: number; depth: number }[] = [{ page: root, depth: 0 }];
    while (stack.length) {
      const { page: n, depth } = stack.pop()!;
      if (seen.has(n) || seen.size >= MAX_WALK_PAGES) {
        out.unreadable++;
        failedAt.push(depth);
        continue;
      }
      seen.add(n);
      // Freed pages keep their old cells (no secure_delete): a stale pointer would bring back deleted rows.
      if (free.has(n)) {
        out.freePages++;
        continue;
      }
      const parsed = this.btreePage(n, kind);
      if (!parsed) {
        out.unreadable++;
        failedAt.push(depth);
        continue;
      }
      out.pages++;
      if (parsed.leaf) leafDepths.add(depth);
      for (const c of parsed.cells) {
        try {
          const cell = this.cell(parsed, c, kind);
          if (cell.child !== undefined) stack.push({ page: cell.child, depth: depth + 1 });
          if (cell.payload) {
            visit(decodeRecord(cell.payload), cell.rowid);
            out.rows++;
          }
        } catch {
          out.badCells++;
        }
      }
      if (parsed.right !== undefined) stack.push({ page: parsed.right, depth: depth + 1 });
    }
    // A b-tree is balanced: a page at the depth where readable leaves are was a leaf too.
    out.unreadableLeaves = failedAt.filter((d) => leafDepths.has(d)).length;
    return out;
  }

  /** The most rows one leaf page of an index tree can hold, for records of at least `minRecord` bytes. */
  maxRowsPerLeaf(minRecord: number): number {
    // A cell is its payload-size varint and the record; each takes a 2-byte pointer too.
    return Math.floor((this.usable - 8) / (minRecord + 1 + 2));
  }

  /**
   * Scans every byte of the main file and of the `-wal` (every frame, committed or not, readable
   * page or not) with `find`, which picks out what it recognises in a chunk. Chunks overlap by
   * `overlap` bytes, so a match that straddles a boundary is seen whole at least once.
   */
  scanRaw(find: (chunk: Buffer) => void, overlap = 512): void {
    const CHUNK = 1 << 22;
    const buf = Buffer.alloc(CHUNK + overlap);
    for (const fd of this.walFd === undefined ? [this.fd] : [this.fd, this.walFd]) {
      const size = fstatSync(fd).size;
      for (let off = 0; off < size; off += CHUNK) find(buf.subarray(0, readSync(fd, buf, 0, Math.min(CHUNK + overlap, size - off), off)));
    }
  }

  /** A page's b-tree header and cell offsets, or null when it is not a page of that kind of tree. */
  private btreePage(n: number, kind: 'table' | 'index'): ParsedPage | null {
    const buf = this.page(n);
    if (!buf) return null;
    const base = n === 1 ? 100 : 0;
    const type = buf[base];
    const interior = kind === 'table' ? 0x05 : 0x02;
    const leafType = kind === 'table' ? 0x0d : 0x0a;
    if (type !== interior && type !== leafType) return null;
    const leaf = type === leafType;
    const headerBytes = leaf ? 8 : 12;
    const count = buf.readUInt16BE(base + 3);
    const ptrEnd = base + headerBytes + 2 * count;
    if (ptrEnd > this.usable) return null;
    const cells: number[] = [];
    for (let i = 0; i < count; i++) {
      const off = buf.readUInt16BE(base + headerBytes + 2 * i);
      if (off < ptrEnd || off >= this.usable) return null;
      cells.push(off);
    }
    const right = leaf ? undefined : buf.readUInt32BE(base + 8);
    return { buf, leaf, cells, right };
  }

  /** One cell: its child page (interior), rowid (table) and record payload (with overflow). */
  private cell(p: ParsedPage, off: number, kind: 'table' | 'index'): { child?: number; rowid?: number; payload?: Buffer } {
    const buf = p.buf;
    let at = off;
    let child: number | undefined;
    if (!p.leaf) {
      if (at + 4 > this.usable) throw new Error('cell past the page');
      child = buf.readUInt32BE(at);
      at += 4;
      if (kind === 'table') return { child, rowid: readVarint(buf, at, this.usable).value };
    }
    const size = readVarint(buf, at, this.usable);
    at += size.bytes;
    let rowid: number | undefined;
    if (kind === 'table') {
      const r = readVarint(buf, at, this.usable);
      rowid = r.value;
      at += r.bytes;
    }
    return { child, rowid, payload: this.payload(buf, at, size.value, kind === 'table' && p.leaf) };
  }

  /** A cell's payload: the bytes on the page, then the overflow chain (fileformat2 §1.6). */
  private payload(buf: Buffer, at: number, total: number, tableLeaf: boolean): Buffer {
    const U = this.usable;
    if (total < 0 || total > 1 << 30) throw new Error('payload size out of range');
    const X = tableLeaf ? U - 35 : Math.floor(((U - 12) * 64) / 255) - 23;
    const M = Math.floor(((U - 12) * 32) / 255) - 23;
    let local = total;
    if (total > X) {
      const K = M + ((total - M) % (U - 4));
      local = K <= X ? K : M;
    }
    if (at + local > U) throw new Error('payload past the page');
    if (local === total) return buf.subarray(at, at + local);
    const out = Buffer.alloc(total);
    buf.copy(out, 0, at, at + local);
    if (at + local + 4 > U) throw new Error('overflow pointer past the page');
    let next = buf.readUInt32BE(at + local);
    let got = local;
    const seen = new Set<number>();
    while (got < total) {
      if (next === 0 || seen.has(next) || this.freelist.pages.has(next)) throw new Error('broken overflow chain');
      seen.add(next);
      const ov = this.page(next);
      if (!ov) throw new Error('overflow page unreadable');
      const take = Math.min(U - 4, total - got);
      ov.copy(out, got, 4, 4 + take);
      got += take;
      next = ov.readUInt32BE(0);
    }
    return out;
  }
}

interface ParsedPage {
  buf: Buffer;
  leaf: boolean;
  cells: number[];
  right: number | undefined;
}

/** The WAL's running checksum over `data` (a multiple of 8 bytes), from `(s0, s1)`. */
function walChecksum(data: Buffer, bigEndian: boolean, s0: number, s1: number): [number, number] {
  for (let i = 0; i + 8 <= data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i);
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

/** A SQLite varint at `at` (1–9 bytes, big-endian groups of 7 bits, the 9th byte whole). */
export function readVarint(buf: Uint8Array, at: number, end = buf.length): { value: number; bytes: number } {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    if (at + i >= end) throw new Error('varint past the end');
    const b = buf[at + i];
    if (i === 8) return { value: value * 256 + b, bytes: 9 };
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) return { value, bytes: i + 1 };
  }
  return { value, bytes: 9 };
}

/** Decodes a record (fileformat2 §2.1); text as UTF-8. Throws when it does not fit its bytes. */
export function decodeRecord(rec: Uint8Array): SqliteValue[] {
  const buf = Buffer.from(rec.buffer, rec.byteOffset, rec.byteLength);
  const h = readVarint(buf, 0);
  if (h.value < h.bytes || h.value > buf.length) throw new Error('record header out of range');
  const types: number[] = [];
  for (let at = h.bytes; at < h.value; ) {
    const t = readVarint(buf, at, h.value);
    types.push(t.value);
    at += t.bytes;
  }
  const out: SqliteValue[] = [];
  let at = h.value;
  const need = (n: number) => {
    if (at + n > buf.length) throw new Error('record body past its end');
  };
  for (const t of types) {
    if (t === 0) out.push(null);
    else if (t >= 1 && t <= 6) {
      const n = [0, 1, 2, 3, 4, 6, 8][t];
      need(n);
      out.push(n === 8 ? Number(buf.readBigInt64BE(at)) : buf.readIntBE(at, n));
      at += n;
    } else if (t === 7) {
      need(8);
      out.push(buf.readDoubleBE(at));
      at += 8;
    } else if (t === 8 || t === 9) out.push(t - 8);
    else if (t >= 12) {
      const n = Math.floor((t - 12) / 2);
      need(n);
      const bytes = buf.subarray(at, at + n);
      out.push(t % 2 === 0 ? new Uint8Array(bytes) : bytes.toString('utf8'));
      at += n;
    } else throw new Error(`reserved serial type ${t}`);
  }
  if (at !== buf.length) throw new Error('record body longer than its header says');
  return out;
}
