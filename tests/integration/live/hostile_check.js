// Loads the live page (tally view --live) in headless Chromium, lets it
// update a few times, and prints as JSON what a hostile name did: whether
// any script of the name ran (its onerror handler marks <html>), how many
// elements its markup would have made (img), and the texts the legends and
// the hosts table show for it.
//   node hostile_check.js URL
'use strict';
const { checkPage, sleep } = require('../view/cdp.js');

checkPage('hostile_check', process.argv[2], async (page) => {
  await page.waitFor('Number(document.body.dataset.updates) >= 3 && Number(document.body.dataset.points) >= 2', 30000);
  await sleep(500); // an image's error handler runs after its load fails
  return page.eval(`(() => ({
    ran: document.documentElement.dataset.pwned || null,
    images: document.querySelectorAll('img').length,
    legends: Array.from(document.querySelectorAll('.legend span')).map((s) => s.textContent),
    rows: Array.from(document.querySelectorAll('#hosts tr[data-host] td:first-child')).map((td) => td.textContent.trim()),
    hosts: document.getElementById('chart-memory').dataset.hosts,
    app: document.getElementById('app').textContent,
  }))()`);
});
