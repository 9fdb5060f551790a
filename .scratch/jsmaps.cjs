const fs = require('fs');
const { Jieba } = require('@node-rs/jieba');
const dump = (label) => {
  const smaps = fs.readFileSync('/proc/self/smaps', 'utf8');
  const groups = new Map(); let cur = '';
  for (const line of smaps.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) { const size = (parseInt(m[2], 16) - parseInt(m[1], 16)) / 1024; cur = m[3] || `anon ${size >= 65536 ? '>=64M' : size >= 1024 ? Math.round(size / 1024) + 'M' : 'small'}`; continue; }
    const r = /^Anonymous:\s+(\d+) kB/.exec(line); if (r) groups.set(cur, (groups.get(cur) ?? 0) + +r[1]);
  }
  console.log(label, [...groups].filter(([, v]) => v > 1024).map(([k, v]) => `${k}:${(v / 1024).toFixed(1)}`).join('  '));
};
dump('before');
const j = Jieba.withDict(fs.readFileSync(require.resolve('@node-rs/jieba/dict.txt')));
j.cut('我们今天去杭州', true);
dump('after ');
setTimeout(() => { j.cut('再来一次', true); dump('1s    '); }, 1000);
