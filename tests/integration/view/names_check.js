// Loads an offline page of tally view --files in headless Chromium and
// prints as JSON the paths its table lists and how many script elements
// the page has (its data's two and its code: a name that broke out of a
// data element would take the code with it).
//   node names_check.js URL
'use strict';
const { Browser, sleep } = require('./cdp.js');

(async () => {
  const browser = await Browser.launch();
  try {
    const page = await browser.newPage();
    await page.goto(process.argv[2]);
    await sleep(300);
    console.log(JSON.stringify(await page.eval(`({
      rows: Array.from(document.querySelectorAll('#rows tr')).map((tr) => tr.dataset.path),
      scripts: document.scripts.length,
      ran: document.documentElement.dataset.pwned || null,
    })`)));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error('names_check: ' + e.message); process.exit(1); });
