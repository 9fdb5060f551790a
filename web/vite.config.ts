import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

// The SPA is built into the package (dist/web) and served by the webui plugin; no CDN, no
// external fonts, so it works offline. `npm run dev:web`-style proxying: set HOMEAGENT_URL.
export default defineConfig({
  root,
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1200,
  },
  worker: { format: 'es' },
  server: {
    proxy: { '/api': { target: process.env.HOMEAGENT_URL ?? 'http://127.0.0.1:8765', changeOrigin: false } },
  },
});
