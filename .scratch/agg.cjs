const fs = require('fs');
const s = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const m = s.snapshot.meta; const nf = m.node_fields; const types = m.node_types[0];
const N = nf.length; const iT = nf.indexOf('type'), iN = nf.indexOf('name'), iS = nf.indexOf('self_size');
const agg = new Map(); let total = 0;
for (let i = 0; i < s.nodes.length; i += N) {
  const t = types[s.nodes[i + iT]]; let name = s.strings[s.nodes[i + iN]];
  const key = t === 'object' || t === 'closure' ? `${t}:${name}` : t === 'string' || t === 'concatenated string' || t === 'sliced string' ? 'string' : `${t}:${t === 'array' || t==='hidden' || t==='code' ? name.slice(0, 40) : ''}`;
  const a = agg.get(key) ?? [0, 0]; a[0] += s.nodes[i + iS]; a[1]++; agg.set(key, a); total += s.nodes[i + iS];
}
console.log('total MiB', (total / 1048576).toFixed(1));
for (const [k, [b, n]] of [...agg].sort((a, b) => b[1][0] - a[1][0]).slice(0, 40)) console.log((b / 1048576).toFixed(2).padStart(7), String(n).padStart(8), k.slice(0, 90));
