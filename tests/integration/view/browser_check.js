// Drives the view page in headless Chromium through its own controls and
// prints what it saw as JSON, for the view tests to check:
//   node browser_check.js URL SCREENSHOT_DIR
//     (view-platform.paje scenario) open the page (the whole trace), hover a
//     cell, zoom, move the slice with the start and width inputs, run the
//     animation to the end, untick a category, switch the level, and save
//     screenshots of the first and the moved slice;
//   node browser_check.js --slice URL SCREENSHOT LEVEL,...
//     open URL (e.g. with ?from=&to=, which the page honours), save a
//     screenshot, and report what is drawn and the page's own aggregates of
//     the shown slice at each LEVEL.
'use strict';
const { Browser } = require('./cdp.js');

const SNAPSHOT = `(() => {
  const cells = Array.from(document.querySelectorAll('#treemap [data-resource][data-category]'))
    .map((e) => ({ r: e.dataset.resource, c: e.dataset.category, v: Number(e.dataset.value),
                   area: Number(e.getAttribute('width')) * Number(e.getAttribute('height')) }));
  const vertex = (e, key) => ({ name: e.getAttribute(key), capacity: Number(e.dataset.capacity),
                                used: Number(e.dataset.used), fills: e.querySelectorAll('[data-category]').length });
  return {
    label: document.getElementById('slice-label').textContent,
    from: Number(document.body.dataset.sliceFrom), to: Number(document.body.dataset.sliceTo),
    rendered: Number(document.body.dataset.rendered),
    cells,
    rootCells: document.querySelectorAll('#root-treemap [data-category]').length,
    rootCapacity: Number(document.getElementById('root-treemap').dataset.capacity),
    rootUsed: Number(document.getElementById('root-treemap').dataset.used),
    nodes: Array.from(document.querySelectorAll('#topology [data-node]')).map((e) => vertex(e, 'data-node')),
    links: Array.from(document.querySelectorAll('#topology [data-link]')).map((e) => vertex(e, 'data-link')),
    edges: document.querySelectorAll('#topology [data-edge]').length,
    status: document.getElementById('status').textContent,
  };
})()`;

function setInput(id, value) {
  return `(() => { const e = document.getElementById(${JSON.stringify(id)}); e.value = ${JSON.stringify(String(value))};
    e.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`;
}

async function renderedAfter(page, previous) {
  await page.waitFor(`Number(document.body.dataset.rendered) > ${previous}`);
  return page.eval(SNAPSHOT);
}

// Opens url in a fresh headless Chromium, waits for the first drawn slice,
// runs steps(page, out) and prints out as JSON.
async function withPage(url, steps) {
  const browser = await Browser.launch();
  const out = {};
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitFor('Number(document.body.dataset.rendered) > 0');
    await steps(page, out);
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

function sliceMain(url, shot, levels) {
  return withPage(url, async (page, out) => {
    out.snapshot = await page.eval(SNAPSHOT);
    out.aggregates = {};
    for (const level of levels)
      out.aggregates[level] = await page.eval(`window.tallyView.aggregate(${out.snapshot.from}, ${out.snapshot.to}, ${JSON.stringify(level)})`);
    await page.screenshot(shot);
  });
}

async function main() {
  if (process.argv[2] === '--slice')
    return sliceMain(process.argv[3], process.argv[4], process.argv[5].split(','));
  const [url, shots] = process.argv.slice(2);
  return withPage(url, async (page, out) => {
    out.initial = await page.eval(SNAPSHOT);
    out.levels = await page.eval(`Array.from(document.getElementById('level').options).map((o) => o.value)`);
    await page.screenshot(shots + '/initial.png');

    // tooltip: hover h1's burst cell (a real mouse event at its centre)
    const box = await page.eval(`(() => { const r = document.querySelector('#treemap [data-resource="h1"][data-category="burst"]').getBoundingClientRect();
      return [r.x + r.width / 2, r.y + r.height / 2]; })()`);
    await page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: box[0], y: box[1] });
    await page.waitFor(`!document.getElementById('tooltip').hidden`);
    out.tooltip = await page.eval(`document.getElementById('tooltip').textContent`);
    // zoom: one wheel notch over the treemap, then double-click resets
    await page.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x: box[0], y: box[1], deltaX: 0, deltaY: -100 });
    await page.waitFor(`(document.querySelector('#treemap .viewport').getAttribute('transform') || '').includes('scale(1.2)')`);
    out.zoomed = await page.eval(`document.querySelector('#treemap .viewport').getAttribute('transform')`);
    // pan: drag the zoomed treemap 40 px to the right
    await page.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: box[0], y: box[1], button: 'left', clickCount: 1 });
    await page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: box[0] + 40, y: box[1], button: 'left' });
    await page.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: box[0] + 40, y: box[1], button: 'left', clickCount: 1 });
    out.panned = await page.eval(`document.querySelector('#treemap .viewport').getAttribute('transform')`);
    await page.eval(`document.getElementById('treemap').dispatchEvent(new MouseEvent('dblclick', { bubbles: true })), true`);
    out.unzoomed = await page.eval(`document.querySelector('#treemap .viewport').getAttribute('transform')`);

    // findings of tally trace anomalies: listed for the slice; a click shows its slice and outlines the resource
    out.findings = await page.eval(`({ summary: document.getElementById('findings-summary').textContent,
      listed: document.querySelectorAll('#findings-list li[data-finding-kind]').length })`);
    let before = Number(await page.eval('document.body.dataset.rendered'));
    await page.eval(`(() => { Array.from(document.querySelectorAll('#findings-list li[data-finding-kind="saturation"]'))
      .find((l) => l.dataset.resource === 'h4').click(); return true; })()`);
    await page.waitFor(`Number(document.body.dataset.rendered) > ${before}`);
    out.afterFinding = await page.eval(`({ label: document.getElementById('slice-label').textContent,
      treemapFlagged: Array.from(document.querySelectorAll('#treemap rect.flagged')).map((e) => e.dataset.group),
      topologyFlagged: Array.from(document.querySelectorAll('#topology g.flagged')).map((e) => e.dataset.node),
      summary: document.getElementById('findings-summary').textContent })`);

    // move the slice with the page's own inputs: width 50, then start 50
    await page.eval(setInput('slice-width', 50));
    await page.eval(setInput('slice-start', 50));
    await page.waitFor('Number(document.body.dataset.sliceFrom) === 50 && Number(document.body.dataset.sliceTo) === 100');
    out.moved = await page.eval(SNAPSHOT);
    await page.screenshot(shots + '/moved.png');

    // the same slice computed by the page for other levels (compared with tally trace aggregate)
    out.aggregates = {};
    for (const level of ['HOST', 'SITE', 'LINK', 'root'])
      out.aggregates[level] = await page.eval(`window.tallyView.aggregate(50, 100, ${JSON.stringify(level)})`);

    // animation: width 20 from 0, step 20, every 60 ms; it must stop by itself at the end
    await page.eval(setInput('slice-width', 20));
    await page.eval(setInput('slice-start', 0));
    await page.waitFor('Number(document.body.dataset.sliceFrom) === 0 && Number(document.body.dataset.sliceTo) === 20');
    out.animStart = await page.eval(SNAPSHOT);
    await page.eval(setInput('anim-step', 20));
    await page.eval(setInput('anim-frequency', 60));
    const seen = [];
    await page.eval(`document.getElementById('anim-play').click(), true`);
    const t0 = Date.now();
    while (Date.now() - t0 < 15000) {
      const s = await page.eval(`[Number(document.body.dataset.sliceFrom), document.getElementById('anim-play').textContent]`);
      if (seen[seen.length - 1] !== s[0]) seen.push(s[0]);
      if (s[1] === 'play' && s[0] === 80) break;
      await new Promise((r) => setTimeout(r, 15));
    }
    out.animation = { froms: seen, button: await page.eval(`document.getElementById('anim-play').textContent`) };
    out.animEnd = await page.eval(SNAPSHOT);

    // keys: left arrow moves the slice back by one step (20): [80,100] -> [60,80]
    before = Number(await page.eval('document.body.dataset.rendered'));
    await page.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key: 'ArrowLeft', code: 'ArrowLeft', windowsVirtualKeyCode: 37 });
    await page.send('Input.dispatchKeyEvent', { type: 'keyUp', key: 'ArrowLeft', code: 'ArrowLeft', windowsVirtualKeyCode: 37 });
    out.keyBack = await renderedAfter(page, before);
    before = out.keyBack.rendered;
    await page.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key: 'ArrowRight', code: 'ArrowRight', windowsVirtualKeyCode: 39 });
    await page.send('Input.dispatchKeyEvent', { type: 'keyUp', key: 'ArrowRight', code: 'ArrowRight', windowsVirtualKeyCode: 39 });
    out.animEnd = await renderedAfter(page, before);

    // category filter: untick burst
    before = out.animEnd.rendered;
    await page.eval(`(() => { const b = document.querySelector('#category-filters input[data-category="burst"]'); b.click(); return true; })()`);
    out.noBurst = await renderedAfter(page, before);

    // level SITE
    before = out.noBurst.rendered;
    await page.eval(`(() => { const s = document.getElementById('level'); s.value = 'SITE'; s.dispatchEvent(new Event('change')); return true; })()`);
    out.site = await renderedAfter(page, before);

    // stable places: tick it, then move the slice; group frames must not move
    const FRAMES = `Array.from(document.querySelectorAll('#treemap rect.group-frame')).map((e) =>
      [e.dataset.group, e.getAttribute('x'), e.getAttribute('y'), e.getAttribute('width'), e.getAttribute('height')].join(' ')).sort()`;
    before = out.site.rendered;
    await page.eval(`(() => { const b = document.getElementById('stable'); b.click(); return true; })()`);
    out.stableA = Object.assign(await renderedAfter(page, before), { frames: await page.eval(FRAMES) });
    await page.eval(setInput('slice-start', 0));
    await page.waitFor('Number(document.body.dataset.sliceFrom) === 0');
    out.stableB = Object.assign(await page.eval(SNAPSHOT), { frames: await page.eval(FRAMES) });
  });
}

main().catch((err) => { console.error('browser_check: ' + err.message); process.exit(1); });
