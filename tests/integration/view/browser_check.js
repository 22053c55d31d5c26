// Drives the view page in headless Chromium through its own controls and
// prints what it saw as JSON, for the view tests to check:
//   node browser_check.js URL SCREENSHOT_DIR
//     (view-platform.paje scenario) open the page (the whole trace), read the
//     timeline, hover a cell, zoom, click a grouped finding and one of its
//     ranges, brush a slice on the timeline and drag it, click a treemap
//     group to chart it, move the slice with the start and width inputs, run
//     the animation to the end, untick a category, switch the level, and save
//     screenshots (initial, brushed, moved, and the whole page);
//   node browser_check.js --slice URL SCREENSHOT LEVEL,...
//     open URL (e.g. with ?from=&to=, which the page honours), save a
//     screenshot, and report what is drawn (treemap, topology, timeline,
//     findings, the resolution note, the topology's pane, labels and
//     vertices as boxes on the screen) and the page's own aggregates of the
//     shown slice at each LEVEL.
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

// The timeline as drawn: its title, its series, the slice band, and the numbers behind it.
const TIMELINE = `(() => {
  const t = window.tallyView.timeline, band = document.querySelector('#timeline .tl-slice');
  return {
    title: document.getElementById('timeline-title').textContent,
    drawn: document.body.dataset.timeline,
    series: Array.from(document.querySelectorAll('#timeline [data-series]')).map((e) => e.dataset.series),
    band: band ? [Number(band.getAttribute('x')), Number(band.getAttribute('width'))] : null,
    data: t && { group: t.group, level: t.level, kind: t.kind, steps: t.steps, from: t.from, to: t.to,
                 capacity: Array.from(t.capacity), usage: t.usage },
  };
})()`;

// Where the topology is drawn, in screen pixels: the pane, each vertex's
// label and each vertex's whole drawing (shape and label; its shape alone
// as "shape").
const TOPOLOGY_BOXES = `(() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
  const svg = document.getElementById('topology');
  const vertices = Array.from(svg.querySelectorAll('[data-node], [data-link]'));
  return {
    pane: box(svg),
    labels: Array.from(svg.querySelectorAll('text.node-label')).map((e) => Object.assign({ name: e.textContent }, box(e))),
    vertices: vertices.map((e) => Object.assign({ name: e.getAttribute('data-node') || e.getAttribute('data-link'),
                                                  shape: box(e.querySelector('rect')) }, box(e))),
  };
})()`;

// The grouped findings as listed.
const FINDINGS = `({
  summary: document.getElementById('findings-summary').textContent,
  groups: Array.from(document.querySelectorAll('#findings-list li.finding-group')).map((l) =>
    ({ kind: l.dataset.findingKind, resource: l.dataset.resource, slices: Number(l.dataset.slices),
       ranges: Number(l.dataset.ranges), head: l.querySelector('.finding-head').textContent })),
})`;

// Presses the mouse at trace time a on the timeline, moves to b in a few steps, releases.
async function dragOnTimeline(page, a, b) {
  await page.eval(`document.getElementById('timeline').scrollIntoView({ block: 'center' }), true`);
  const p = await page.eval(`window.tallyView.timelineClientX(${a})`);
  const q = await page.eval(`window.tallyView.timelineClientX(${b})`);
  await page.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: p[0], y: p[1], button: 'left', clickCount: 1 });
  for (let i = 1; i <= 4; i++)
    await page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: p[0] + (q[0] - p[0]) * i / 4, y: p[1], button: 'left' });
  await page.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: q[0], y: q[1], button: 'left', clickCount: 1 });
}

async function clickAt(page, xy) {
  await page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: xy[0], y: xy[1] });
  await page.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: xy[0], y: xy[1], button: 'left', clickCount: 1 });
  await page.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: xy[0], y: xy[1], button: 'left', clickCount: 1 });
}

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
    await page.waitFor('document.body.dataset.timeline !== undefined');
    out.snapshot = await page.eval(SNAPSHOT);
    out.timeline = await page.eval(TIMELINE);
    out.note = await page.eval(`(() => { const n = document.getElementById('resolution-note'); return n.hidden ? '' : n.textContent; })()`);
    out.findings = await page.eval(FINDINGS);
    out.topology = await page.eval(TOPOLOGY_BOXES);
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
    const box = await page.eval(`(() => { const e = document.querySelector('#treemap [data-resource="h1"][data-category="burst"]');
      e.scrollIntoView({ block: 'center' }); const r = e.getBoundingClientRect();
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

    // the timeline of the whole platform (cpu), drawn once the page opened
    await page.waitFor(`document.body.dataset.timeline === 'root cpu'`);
    out.timeline = await page.eval(TIMELINE);

    // findings, grouped by kind and resource, worst first
    out.findings = await page.eval(FINDINGS);
    // a click on h4's saturation group shows its longest range, charts and outlines h4
    let before = Number(await page.eval('document.body.dataset.rendered'));
    await page.eval(`(() => { Array.from(document.querySelectorAll('#findings-list li.finding-group[data-finding-kind="saturation"]'))
      .find((l) => l.dataset.resource === 'h4').querySelector('.finding-head').click(); return true; })()`);
    await page.waitFor(`Number(document.body.dataset.rendered) > ${before} && document.body.dataset.timeline === 'h4 cpu'`);
    out.afterFinding = await page.eval(`({ label: document.getElementById('slice-label').textContent,
      treemapFlagged: Array.from(document.querySelectorAll('#treemap rect.flagged')).map((e) => e.dataset.group),
      topologyFlagged: Array.from(document.querySelectorAll('#topology g.flagged')).map((e) => e.dataset.node),
      summary: document.getElementById('findings-summary').textContent })`);
    out.afterFinding.timeline = await page.eval(TIMELINE);
    // "only in this slice" keeps the groups with a finding in [0, 20]
    await page.eval(`document.getElementById('findings-here').click(), true`);
    out.onlyHere = await page.eval(`document.querySelectorAll('#findings-list li.finding-group').length`);
    await page.eval(`document.getElementById('findings-here').click(), true`);
    out.allAgain = await page.eval(`document.querySelectorAll('#findings-list li.finding-group').length`);
    // a click on the second range of l3's waste shows that range
    before = Number(await page.eval('document.body.dataset.rendered'));
    await page.eval(`(() => { Array.from(document.querySelectorAll('#findings-list li.finding-group[data-finding-kind="waste"]'))
      .find((l) => l.dataset.resource === 'l3').querySelectorAll('.finding-ranges li')[1].click(); return true; })()`);
    await page.waitFor(`Number(document.body.dataset.rendered) > ${before} && document.body.dataset.timeline === 'l3 bandwidth'`);
    out.afterRange = await page.eval(SNAPSHOT);
    out.afterRange.kind = await page.eval(`document.getElementById('kind').value`);
    await page.screenshot(shots + '/finding.png', true);

    // back to cpu (l3 has none: the whole platform is charted); brush [30, 70] on the timeline (outside the current slice), then drag the slice 10 s back
    await page.eval(`(() => { const s = document.getElementById('kind'); s.value = 'cpu'; s.dispatchEvent(new Event('change')); return true; })()`);
    await page.waitFor(`document.body.dataset.timeline === 'root cpu'`);
    await page.eval(setInput('slice-width', 20));
    await page.eval(setInput('slice-start', 0));
    await page.waitFor('Number(document.body.dataset.sliceFrom) === 0 && Number(document.body.dataset.sliceTo) === 20');
    await dragOnTimeline(page, 30, 70);
    await page.waitFor('Number(document.body.dataset.sliceFrom) === 30 && Number(document.body.dataset.sliceTo) === 70');
    out.brushed = await page.eval(SNAPSHOT);
    out.brushed.timeline = await page.eval(TIMELINE);
    await page.eval('window.scrollTo(0, 0), true');
    await page.screenshot(shots + '/brushed.png');
    await dragOnTimeline(page, 50, 40);
    await page.waitFor('Number(document.body.dataset.sliceFrom) === 20 && Number(document.body.dataset.sliceTo) === 60');
    out.dragged = await page.eval(SNAPSHOT);
    out.dragged.timeline = await page.eval(TIMELINE);

    // a click on h3's cell in the treemap charts h3
    const h3 = await page.eval(`(() => { const e = document.querySelector('#treemap [data-resource="h3"]');
      e.scrollIntoView({ block: 'center' }); const r = e.getBoundingClientRect();
      return [r.x + r.width / 2, r.y + r.height / 2]; })()`);
    await clickAt(page, h3);
    await page.waitFor(`document.body.dataset.timeline === 'h3 cpu'`);
    out.chartH3 = await page.eval(TIMELINE);
    // a click on link l1 in the topology charts its bandwidth; then back to cpu (and the HOST level)
    const l1 = await page.eval(`(() => { const e = document.querySelector('#topology [data-link="l1"]');
      e.scrollIntoView({ block: 'center' }); const r = e.getBoundingClientRect();
      return [r.x + r.width / 2, r.y + r.height / 2]; })()`);
    await clickAt(page, l1);
    await page.waitFor(`document.body.dataset.timeline === 'l1 bandwidth'`);
    out.chartL1 = await page.eval(TIMELINE);
    out.chartL1.level = await page.eval(`document.getElementById('level').value`);
    await page.eval(`(() => { const s = document.getElementById('kind'); s.value = 'cpu'; s.dispatchEvent(new Event('change')); return true; })()`);
    await page.waitFor(`document.body.dataset.timeline === 'root cpu' && document.getElementById('level').value === 'HOST'`);

    // move the slice with the page's own inputs: width 50, then start 50
    await page.eval(setInput('slice-width', 50));
    await page.eval(setInput('slice-start', 50));
    await page.waitFor('Number(document.body.dataset.sliceFrom) === 50 && Number(document.body.dataset.sliceTo) === 100');
    out.moved = await page.eval(SNAPSHOT);
    await page.eval('window.scrollTo(0, 0), true');
    await page.screenshot(shots + '/moved.png');
    await page.screenshot(shots + '/page.png', true);

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
      // the slices the animation goes through (a render still computing when the next
      // slice is asked for is dropped, so on a loaded machine fewer of them are drawn)
      const s = await page.eval(`[Number(document.body.dataset.sliceFrom), document.getElementById('anim-play').textContent, window.tallyView.state.from]`);
      if (seen[seen.length - 1] !== s[2]) seen.push(s[2]);
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
