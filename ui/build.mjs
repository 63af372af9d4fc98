// Builds the web UI into dist/: one bundled ES module per window, one shared
// stylesheet, and the HTML pages. Every asset is local (the CSP forbids
// anything else), so FullCalendar is bundled in, not fetched.
import * as esbuild from 'esbuild';
import { cp, readdir, rm } from 'node:fs/promises';

const pages = ['calendar', 'sidebar', 'settings', 'reminders', 'consent', 'confirm'];

await rm('dist', { recursive: true, force: true });
await esbuild.build({
  entryPoints: [...pages.map((page) => `src/js/${page}.js`), 'src/css/app.css'],
  bundle: true,
  outdir: 'dist/assets',
  format: 'esm',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // WebKitGTK 2.40+ (Debian 12) and the other platforms' webviews.
  target: ['safari16', 'chrome110'],
  minify: true,
  logLevel: 'warning',
});
for (const file of await readdir('src')) {
  if (file.endsWith('.html')) await cp(`src/${file}`, `dist/${file}`);
}
