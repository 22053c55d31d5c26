// Drives the live page (tally view --live) in headless Chromium and prints
// what it saw as JSON: the hosts charted, the last value of each host's
// memory line, how many updates arrived without a reload, the bar values,
// the contract panels (levels per process, threshold, heat-strip cells),
// the axes' ticks, the application's state, and a screenshot.
//   node live_check.js URL SCREENSHOT MIN_BARS [MIN_CONTRACT [RELEASE]]
// (MIN_CONTRACT: wait until that many processes have contract levels;
// RELEASE: then create this file, which ends the application, and wait until
// the page says it finished: "ended" in the output)
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
  state: document.body.dataset.state || null,
  ticks: Object.fromEntries(['cores', 'memory', 'io', 'net'].map((m) => {
    const svg = document.getElementById('chart-' + m);
    return [m, { y: (svg.dataset.yticks || '').split(',').filter(Boolean).map(Number),
                 x: (svg.dataset.xticks || '').split(',').filter(Boolean).map(Number) }];
  })),
  contractShown: !document.getElementById('contract-panel').hidden,
  threshold: document.getElementById('chart-contract').dataset.threshold || null,
  thresholdLines: document.querySelectorAll('#chart-contract line.threshold').length,
  contractLines: Object.fromEntries(Array.from(document.querySelectorAll('#chart-contract path[data-process]'))
    .map((p) => [p.dataset.process, Number(p.dataset.last)])),
  contract: Object.fromEntries(Array.from(document.querySelectorAll('#contract-now tr[data-process]'))
    .map((r) => [r.dataset.process, { overall: Number(r.dataset.overall), violating: r.dataset.violating === 'true',
                                      worst: r.children[3].textContent, red: r.classList.contains('violating') }])),
  strip: Object.fromEntries(Array.from(document.querySelectorAll('#contract-strip g[data-process]'))
    .map((g) => [g.dataset.process + ' ' + g.dataset.dimension, { cells: g.querySelectorAll('rect').length,
                                                                   last: Number(g.dataset.last) }])),
}))()`;

(async () => {
  const [url, shot, minBars, minContract, release] = process.argv.slice(2);
  const browser = await Browser.launch();
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitFor('Number(document.body.dataset.points) >= 2');
    const first = await page.eval(SNAPSHOT);
    await page.waitFor(`Number(document.body.dataset.updates) >= ${first.updates + 3} &&
                        document.querySelectorAll('#bars rect[data-value]').length >= ${Number(minBars)} &&
                        document.querySelectorAll('#contract-now tr[data-process]').length >= ${Number(minContract || 0)}`, 30000);
    const later = await page.eval(SNAPSHOT);
    await page.screenshot(shot, true);
    let ended = null;
    if (release) {
      require('fs').writeFileSync(release, '');
      await page.waitFor(`document.body.dataset.state === 'finished'`, 30000);
      ended = await page.eval(SNAPSHOT);
    }
    console.log(JSON.stringify({ first, later, ended }));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error('live_check: ' + e.message); process.exit(1); });
