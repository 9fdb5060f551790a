/**
 * `npm run bench`: imports every `bench/*.bench.ts` (plus `bench/scale/run.ts` when present), runs
 * each module's exported `run()` and prints one markdown table of percentiles and ratios.
 *
 * A bench module exports `async function run(): Promise<BenchRow[]>` (or a markdown report string,
 * whose p50/p95 tables are folded into the one table). A row may name another row
 * (of the same module) as its `baseline`; the table then shows p50/p95 as ratios to it. A module
 * that is missing or fails prints one line and the others go on. (LoCoMo has its own entry,
 * `npm run bench:locomo`.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** One measured quantity. */
export interface BenchRow {
  name: string;
  /** Unit of p50/p95, e.g. `ms`, `MiB`, `ops/s`. */
  unit: string;
  p50: number;
  p95: number;
  /** Number of samples. */
  n: number;
  /** Name of the row this one is compared to (ratio columns), or a note. */
  baseline?: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** The modules, in table order. Optional ones are reported as missing and skipped. */
function benchModules(): string[] {
  const own = fs
    .readdirSync(here)
    .filter((f) => f.endsWith('.bench.ts'))
    .sort();
  // Daemon cold start / idle RSS: the integrator adds bench/daemon.bench.ts; it is picked up by the
  // *.bench.ts scan above and listed first here so it heads the table.
  const first = ['daemon.bench.ts', 'kernel.bench.ts', 'lua-adapter.bench.ts'];
  for (const f of first) if (!own.includes(f)) console.log(`- bench/${f}: not present, skipped`);
  const ordered = [...first.filter((f) => own.includes(f)), ...own.filter((f) => !first.includes(f))];
  const out = ordered.map((f) => path.join(here, f));
  const scale = path.join(here, 'scale', 'run.ts');
  if (fs.existsSync(scale)) out.push(scale);
  else console.log('- bench/scale/run.ts: not present, skipped');
  return out;
}

function isRow(r: unknown): r is BenchRow {
  const o = r as BenchRow;
  return !!o && typeof o.name === 'string' && typeof o.p50 === 'number' && typeof o.p95 === 'number';
}

/**
 * Rows from a module that returns its own markdown report (bench/scale): every table whose
 * header has `p50` and `p95` columns; the columns before p50 make the name.
 */
export function rowsFromMarkdown(md: string): BenchRow[] {
  const rows: BenchRow[] = [];
  let head: string[] | undefined;
  for (const line of md.split('\n')) {
    if (!line.startsWith('|')) {
      head = undefined;
      continue;
    }
    const cells = line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split('|')
      .map((c) => c.trim());
    if (!head) {
      head = cells;
      continue;
    }
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    const i50 = head.findIndex((h) => /\bp50\b/.test(h));
    const i95 = head.findIndex((h) => /\bp95\b/.test(h));
    if (i50 < 1 || i95 < 0) continue;
    const unit = /\bp50\s+(\S+)/.exec(head[i50])?.[1] ?? '';
    const note = head.findIndex((h) => h === 'note');
    rows.push({
      name: cells.slice(0, i50).join(' @ '),
      unit,
      p50: Number(cells[i50]),
      p95: Number(cells[i95]),
      n: NaN,
      ...(note >= 0 && cells[note] ? { baseline: cells[note] } : {}),
    });
  }
  return rows;
}

const fmt = (x: number): string => (!Number.isFinite(x) ? '–' : Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(3));

/** Renders rows of several modules as one markdown table. */
export function renderTable(groups: { module: string; rows: BenchRow[] }[]): string {
  const lines = ['| module | measure | unit | p50 | p95 | n | vs baseline (p50 / p95) or note |', '|---|---|---|---:|---:|---:|---|'];
  for (const g of groups) {
    const byName = new Map(g.rows.map((r) => [r.name, r]));
    for (const r of g.rows) {
      const base = r.baseline ? byName.get(r.baseline) : undefined;
      const ratio = base ? `${fmt(r.p50 / base.p50)}× / ${fmt(r.p95 / base.p95)}× of ${base.name}` : (r.baseline ?? '');
      lines.push(`| ${g.module} | ${r.name} | ${r.unit} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${Number.isFinite(r.n) ? r.n : '–'} | ${ratio} |`);
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const groups: { module: string; rows: BenchRow[] }[] = [];
  for (const file of benchModules()) {
    const module = path.relative(path.dirname(here), file);
    const started = performance.now();
    try {
      const mod = (await import(pathToFileURL(file).href)) as { run?: () => Promise<unknown> };
      if (typeof mod.run !== 'function') {
        console.log(`- ${module}: exports no run(), skipped`);
        continue;
      }
      const result = await mod.run();
      const rows = Array.isArray(result) ? result.filter(isRow) : typeof result === 'string' ? rowsFromMarkdown(result) : [];
      if (!rows.length) {
        if (typeof result === 'string') console.log(result);
        console.log(`- ${module}: returned no rows`);
        continue;
      }
      groups.push({ module, rows });
      console.log(`- ${module}: ${rows.length} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } catch (e) {
      console.log(`- ${module}: failed: ${(e as Error).message}`);
    }
  }
  console.log('');
  console.log(renderTable(groups));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
