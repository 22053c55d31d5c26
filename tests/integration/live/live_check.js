// Drives the live page (tally view --live) in headless Chromium and prints
// what it saw as JSON: the hosts charted, the last value of each host's
// memory line, how many updates arrived without a reload, the bar values,
// and a screenshot.   node live_check.js URL SCREENSHOT MIN_BARS
'use strict';
const { Browser } = require('../view/cdp.js');

const SNAPSHOT = `(() => ({
  points: Number(document.body.dataset.points),
  updates: Number(document.body.dataset.updates),
  app: document.getElementById('app').textContent,
  status: document.getElementById('status').textContent,
  hosts: (document.getElementById('chart-memory').dataset.hosts || '').split(',').filter(Boolean),
  memory: Object.fromEntries(Array.from(document.querySelectorAll('#chart-memory path[data-host]'))
    .map((p) => [p.dataset.host, Number(p.dataset.last)])),
  processes: Object.fromEntries(Array.from(document.querySelectorAll('#hosts tr[data-host]'))
    .map((r) => [r.dataset.host, Number(r.children[1].textContent)])),
  bars: Array.from(document.querySelectorAll('#bars rect[data-value]')).map((r) => Number(r.dataset.value)),
  barsShown: !document.getElementById('bars-panel').hidden,
  navigations: performance.getEntriesByType('navigation').length,
}))()`;

(async () => {
  const [url, shot, minBars] = process.argv.slice(2);
  const browser = await Browser.launch();
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitFor('Number(document.body.dataset.points) >= 2');
    const first = await page.eval(SNAPSHOT);
    await page.waitFor(`Number(document.body.dataset.updates) >= ${first.updates + 3} &&
                        document.querySelectorAll('#bars rect[data-value]').length >= ${Number(minBars)}`, 30000);
    const later = await page.eval(SNAPSHOT);
    await page.screenshot(shot, true);
    console.log(JSON.stringify({ first, later }));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error('live_check: ' + e.message); process.exit(1); });
