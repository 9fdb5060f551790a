const fs = require('fs');
const f = fs.readdirSync('/tmp/prof').filter((x) => x.endsWith('.cpuprofile'))[0];
const p = JSON.parse(fs.readFileSync('/tmp/prof/' + f, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas; let total = 0;
for (let i = 0; i < p.samples.length; i++) { const n = byId.get(p.samples[i]); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + dt[i]); total += dt[i]; }
console.log('total ms', (total / 1000).toFixed(0));
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 35)) console.log((v / 1000).toFixed(0).padStart(6), (100 * v / total).toFixed(1).padStart(5) + '%', k);
