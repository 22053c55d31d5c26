// For bench/view.bench.sh: opens a view page in headless Chromium and prints
// JSON {load_ms, slice_ms, cells, nodes}: time from navigation to the first
// drawn slice and timeline, and the mean time to compute and draw one slice
// (20 slices of a tenth of the trace moved through the page's own
// tallyView.setSlice).
//   node bench/view_page_timing.js URL
'use strict';
const { Browser } = require('../tests/integration/view/cdp.js');

(async () => {
  const browser = await Browser.launch();
  try {
    const page = await browser.newPage();
    const t0 = Date.now();
    await page.goto(process.argv[2]);
    await page.waitFor('Number(document.body.dataset.rendered) > 0 && document.body.dataset.timeline !== undefined', 300000);
    const load = Date.now() - t0;
    const r = await page.eval(`(async () => {
      const m = window.tallyView.meta, w = (m.end - m.start) / 10, n = 20;
      const before = Number(document.body.dataset.rendered);
      const t = performance.now();
      for (let i = 0; i < n; i++) {
        window.tallyView.setSlice(m.start + (m.end - m.start - w) * i / n, w);
        const want = before + i + 1;
        while (Number(document.body.dataset.rendered) < want) await new Promise((r) => setTimeout(r, 0));
      }
      return { slice_ms: (performance.now() - t) / n,
               cells: document.querySelectorAll('#treemap [data-category]').length,
               nodes: document.querySelectorAll('[data-node]').length };
    })()`);
    process.stdout.write(JSON.stringify(Object.assign({ load_ms: load }, r)) + '\n');
  } finally {
    await browser.close();
  }
})().catch((err) => { console.error('view_page_timing: ' + err.message); process.exit(1); });
