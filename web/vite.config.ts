import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The gateway serves the build (web/dist) at `/`; `npm run dev -w web` proxies the API to a running `npm start`.
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  plugins: [react()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    // Every browser that runs es2022 supports modulepreload; the polyfill would be dead weight.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  server: { proxy: { '/api': `http://127.0.0.1:${process.env.PORT ?? 3000}` } },
});
