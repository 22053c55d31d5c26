// A minimal Chrome DevTools Protocol driver for the view tests, using only
// node's built-in modules (node 20 has no global WebSocket): it launches
// headless Chromium with --remote-debugging-port=0, reads the port from
// DevToolsActivePort, opens a page target and speaks CDP over a small
// RFC 6455 client (masked text frames out; text, continuation, ping and
// close frames in).
'use strict';
const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function httpJson(port, pathname, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathname, method }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => { try { resolve(JSON.parse(body)); } catch (e) { reject(new Error(body)); } });
    });
    req.on('error', reject);
    req.end();
  });
}

class WebSocketClient {
  constructor(socket) {
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    this.fragments = [];
    this.onmessage = () => {};
    socket.on('data', (d) => { this.buffer = Buffer.concat([this.buffer, d]); this.parse(); });
  }

  static connect(url) {
    const u = new URL(url);
    const key = crypto.randomBytes(16).toString('base64');
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: u.hostname, port: u.port, path: u.pathname,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': key,
                   'Sec-WebSocket-Version': '13' },
      });
      req.on('upgrade', (res, socket, head) => {
        const ws = new WebSocketClient(socket);
        if (head && head.length) { ws.buffer = Buffer.from(head); ws.parse(); }
        resolve(ws);
      });
      req.on('response', (res) => reject(new Error('no websocket upgrade: HTTP ' + res.statusCode)));
      req.on('error', reject);
      req.end();
    });
  }

  send(text) { this.frame(0x1, Buffer.from(text)); }

  frame(opcode, payload) {
    const n = payload.length;
    const head = n < 126 ? Buffer.from([0x80 | opcode, 0x80 | n])
      : n < 65536 ? Buffer.from([0x80 | opcode, 0x80 | 126, n >> 8, n & 255])
      : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), (() => {
          const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; })()]);
    const mask = crypto.randomBytes(4);
    const body = Buffer.alloc(n);
    for (let i = 0; i < n; i++) body[i] = payload[i] ^ mask[i & 3];
    this.socket.write(Buffer.concat([head, mask, body]));
  }

  parse() {
    for (;;) {
      const b = this.buffer;
      if (b.length < 2) return;
      const fin = (b[0] & 0x80) !== 0, opcode = b[0] & 0x0f, masked = (b[1] & 0x80) !== 0;
      let len = b[1] & 0x7f, off = 2;
      if (len === 126) { if (b.length < 4) return; len = b.readUInt16BE(2); off = 4; }
      else if (len === 127) { if (b.length < 10) return; len = Number(b.readBigUInt64BE(2)); off = 10; }
      const maskKey = masked ? b.slice(off, off + 4) : null;
      if (masked) off += 4;
      if (b.length < off + len) return;
      let payload = b.slice(off, off + len);
      if (maskKey) payload = Buffer.from(payload.map((x, i) => x ^ maskKey[i & 3]));
      this.buffer = b.slice(off + len);
      if (opcode === 0x9) { this.frame(0xA, payload); continue; }       // ping -> pong
      if (opcode === 0x8) { this.socket.end(); return; }                 // close
      if (opcode === 0x1 || opcode === 0x0) {
        this.fragments.push(payload);
        if (fin) { const text = Buffer.concat(this.fragments).toString('utf8'); this.fragments = []; this.onmessage(text); }
      }
    }
  }

  close() { try { this.frame(0x8, Buffer.alloc(0)); } catch (e) { /* already gone */ } this.socket.destroy(); }
}

class Browser {
  static async launch() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-chromium-'));
    const bin = process.env.CHROMIUM || '/usr/bin/chromium';
    const proc = spawn(bin, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--user-data-dir=' + dir, '--remote-debugging-port=0', '--window-size=1400,1000',
      'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d) => { stderr += d; });
    const portFile = path.join(dir, 'DevToolsActivePort');
    for (let i = 0; i < 300 && !fs.existsSync(portFile); i++) await sleep(100);
    if (!fs.existsSync(portFile)) { proc.kill(); throw new Error('chromium did not start: ' + stderr.slice(-500)); }
    await sleep(100);
    const port = Number(fs.readFileSync(portFile, 'utf8').split('\n')[0]);
    const b = new Browser(); b.proc = proc; b.dir = dir; b.port = port;
    return b;
  }

  async newPage() {
    const targets = await httpJson(this.port, '/json/list');
    const target = targets.find((t) => t.type === 'page');
    const ws = await WebSocketClient.connect(target.webSocketDebuggerUrl);
    return new Page(ws);
  }

  // Stops Chromium, waits for it to exit (5 s at most), then removes its profile.
  async close() {
    const exited = this.proc.exitCode !== null ? Promise.resolve()
      : new Promise((resolve) => this.proc.once('exit', resolve));
    this.proc.kill('SIGTERM');
    await Promise.race([exited, sleep(5000)]);
    try { fs.rmSync(this.dir, { recursive: true, force: true }); } catch (e) {
      process.stderr.write('cdp: could not remove ' + this.dir + ': ' + e.message + '\n');
    }
  }
}

class Page {
  constructor(ws) {
    this.ws = ws; this.nextId = 1; this.pending = new Map(); this.listeners = [];
    ws.onmessage = (text) => {
      const msg = JSON.parse(text);
      if (msg.id && this.pending.has(msg.id)) {
        const { resolve, reject } = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) reject(new Error(msg.error.message)); else resolve(msg.result);
      } else if (msg.method) {
        this.listeners.forEach((l) => l(msg));
      }
    };
  }

  send(method, params = {}) {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  waitEvent(method, timeoutMs = 20000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timeout waiting for ' + method)), timeoutMs);
      const l = (msg) => { if (msg.method === method) { clearTimeout(timer); this.listeners.splice(this.listeners.indexOf(l), 1); resolve(msg.params); } };
      this.listeners.push(l);
    });
  }

  async goto(url) {
    await this.send('Page.enable');
    await this.send('Runtime.enable');
    const loaded = this.waitEvent('Page.loadEventFired');
    await this.send('Page.navigate', { url });
    await loaded;
  }

  // Evaluates an expression (awaiting promises) and returns its JSON value.
  async eval(expression) {
    const r = await this.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) throw new Error('page error: ' + (r.exceptionDetails.exception ? r.exceptionDetails.exception.description : r.exceptionDetails.text));
    return r.result.value;
  }

  async waitFor(expression, timeoutMs = 20000) {
    const start = Date.now();
    for (;;) {
      if (await this.eval(expression)) return;
      if (Date.now() - start > timeoutMs) throw new Error('timeout waiting for ' + expression);
      await sleep(50);
    }
  }

  // The viewport, or with fullPage the whole page however long.
  async screenshot(file, fullPage) {
    const params = { format: 'png' };
    if (fullPage) {
      const size = await this.eval('[Math.max(window.innerWidth, document.documentElement.scrollWidth), document.documentElement.scrollHeight]');
      Object.assign(params, { captureBeyondViewport: true, clip: { x: 0, y: 0, width: size[0], height: size[1], scale: 1 } });
    }
    const r = await this.send('Page.captureScreenshot', params);
    fs.writeFileSync(file, Buffer.from(r.data, 'base64'));
  }
}

// A check script's life: Chromium launched, a page opened at URL, FN(page)
// awaited and its result printed as JSON, Chromium closed; a failure is
// said as "NAME: message" with exit status 1.
function checkPage(name, url, fn) {
  (async () => {
    const browser = await Browser.launch();
    try {
      const page = await browser.newPage();
      await page.goto(url);
      console.log(JSON.stringify(await fn(page)));
    } finally {
      await browser.close();
    }
  })().catch((e) => { console.error(name + ': ' + e.message); process.exit(1); });
}

module.exports = { Browser, sleep, checkPage };
