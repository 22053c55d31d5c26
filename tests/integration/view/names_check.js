// Loads an offline page of tally view --files in headless Chromium and
// prints as JSON the paths its table lists and how many script elements
// the page has (its data's two and its code: a name that broke out of a
// data element would take the code with it).
//   node names_check.js URL
'use strict';
const { checkPage, sleep } = require('./cdp.js');

checkPage('names_check', process.argv[2], async (page) => {
  await sleep(300);
  return page.eval(`({
    rows: Array.from(document.querySelectorAll('#rows tr')).map((tr) => tr.dataset.path),
    scripts: document.scripts.length,
    ran: document.documentElement.dataset.pwned || null,
  })`);
});
