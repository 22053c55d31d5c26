// Drives the per-file I/O page (tally view --files) in headless Chromium
// through its own controls and prints what it saw as JSON:
//   node files_check.js URL SCREENSHOT
// the rows as drawn (path, bytes), the sort state, the histograms' bars
// (op, bucket, count) for the whole task; then after a click on the "bytes
// moved" header (ascending), on the "file" header (by name), and on the row
// of the file named by FILE_CHOSEN (its own histograms), and a second click on
// that row (back to all files).
'use strict';
const { Browser } = require('./cdp.js');

const SNAPSHOT = `(() => ({
  rows: Array.from(document.querySelectorAll('#rows tr')).map((tr) => ({ path: tr.dataset.path, bytes: Number(tr.dataset.bytes) })),
  sortKey: document.body.dataset.sortKey, sortDir: document.body.dataset.sortDir,
  selected: document.body.dataset.selected,
  heading: document.getElementById('histogram-title').textContent,
  bars: Array.from(document.querySelectorAll('rect[data-bucket]')).map((r) => ({ op: r.dataset.op, bucket: r.dataset.bucket, count: Number(r.dataset.count) })),
  totals: document.getElementById('totals').textContent,
  notInterposed: document.querySelectorAll('#not-interposed tbody tr').length,
  incomplete: document.getElementById('incomplete').hidden ? '' : document.getElementById('incomplete').textContent,
}))()`;

(async () => {
  const [url, shot] = process.argv.slice(2);
  const chosen = process.env.FILE_CHOSEN;
  const browser = await Browser.launch();
  const out = {};
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitFor("document.body.dataset.rendered === '1'");
    out.initial = await page.eval(SNAPSHOT);
    await page.eval(`document.querySelector('th[data-key="bytes"]').click()`);
    out.bytesAscending = await page.eval(SNAPSHOT);
    await page.eval(`document.querySelector('th[data-key="path"]').click()`);
    out.byName = await page.eval(SNAPSHOT);
    await page.eval(`Array.from(document.querySelectorAll('#rows tr')).find((tr) => tr.dataset.path === ${JSON.stringify(chosen)}).click()`);
    out.chosen = await page.eval(SNAPSHOT);
    await page.screenshot(shot, true);
    await page.eval(`document.querySelector('#rows tr.selected').click()`);
    out.unchosen = await page.eval(SNAPSHOT);
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
