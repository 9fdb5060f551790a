// Preloaded into the daemon by the archive scale bench (`--import`): on SIGUSR2 it writes the
// process's memory breakdown to $HOMEAGENT_BENCH_HEAP_FILE. It allocates nothing until asked.
import fs from 'node:fs';
process.on('SIGUSR2', () => {
  const file = process.env.HOMEAGENT_BENCH_HEAP_FILE;
  if (!file) return;
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const kb = (k) => Number((new RegExp(`${k}:\\s+(\\d+) kB`).exec(status) ?? [])[1] ?? NaN);
  const m = process.memoryUsage();
  fs.writeFileSync(file, JSON.stringify({ rss: kb('VmRSS') * 1024, rssAnon: kb('RssAnon') * 1024, rssFile: kb('RssFile') * 1024, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers }));
});
