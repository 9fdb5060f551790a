import Database from 'better-sqlite3';
const db = new Database('/work/scale-tail/documents/archive.db', { readonly: true });
db.pragma('cache_size = -4000');
const N = (db.prepare('SELECT max(n) FROM turns').pluck().get() as number);
let s = 1; const r = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
const cols = db.prepare("SELECT sql FROM sqlite_schema WHERE name='turns_rank'").pluck().get();
console.log(cols);
const variants: [string, string][] = [
  ['ranking cols, json_each', `SELECT n, session_id, created_at, ntok, prev_n, next_n, event_kind, speaker_id, asks FROM turns INDEXED BY turns_rank WHERE n IN (SELECT value FROM json_each(?))`],
  ['n only, json_each', `SELECT n FROM turns INDEXED BY turns_rank WHERE n IN (SELECT value FROM json_each(?))`],
  ['ranking cols from table by rowid', `SELECT n, session_id, created_at, ntok, prev_n, next_n, event_kind, speaker_id, asks FROM turns WHERE n IN (SELECT value FROM json_each(?))`],
  ['json_each only', `SELECT count(*) FROM json_each(?)`],
];
for (const [label, sql] of variants) {
  const st = db.prepare(sql).raw(!label.startsWith('json'));
  const times: number[] = [];
  for (let i = 0; i < 60; i++) { const ns = Array.from({ length: 950 }, () => 1 + Math.floor(r() * N)); const c = process.cpuUsage(); st.all(JSON.stringify(ns)); const d = process.cpuUsage(c); times.push((d.user + d.system) / 1000); }
  times.sort((x, y) => x - y);
  console.log(label.padEnd(34), 'cpu ms p50', times[30].toFixed(2));
}
