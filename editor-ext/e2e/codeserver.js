// Starts code-server (a real VS Code) with the built Airlock .vsix installed,
// and drives it with Debian's Chromium through playwright-core.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { chromium } = require('playwright-core');

const ENTRY = path.join(__dirname, 'node_modules/code-server/out/node/entry.js');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitHTTP(url, ms) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {}
    if (Date.now() > end) throw new Error(`code-server did not answer on ${url}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Installs the vsix into a private extensions dir and starts code-server on a folder. */
async function startCodeServer({ vsix, folder, dir, env }) {
  const ext = path.join(dir, 'extensions');
  const data = path.join(dir, 'user-data');
  fs.mkdirSync(path.join(data, 'User'), { recursive: true });
  // Trust the workspace and keep the UI quiet for screenshots.
  fs.writeFileSync(
    path.join(data, 'User/settings.json'),
    JSON.stringify({ 'security.workspace.trust.enabled': false, 'workbench.startupEditor': 'none', 'workbench.tips.enabled': false }),
  );
  execFileSync(process.execPath, [ENTRY, '--extensions-dir', ext, '--user-data-dir', data, '--install-extension', vsix], {
    env,
    stdio: 'inherit',
  });
  const port = await freePort();
  const log = fs.openSync(path.join(dir, 'code-server.log'), 'a');
  const proc = spawn(
    process.execPath,
    [ENTRY, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--extensions-dir', ext, '--user-data-dir', data, folder],
    { env, stdio: ['ignore', log, log] },
  );
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`;
  await waitHTTP(`http://127.0.0.1:${port}/healthz`, 60000);
  return { url, proc, stop: () => proc.kill('SIGTERM') };
}

async function openBrowser() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  return { browser, page };
}

module.exports = { startCodeServer, openBrowser, freePort, CODE_SERVER_ENTRY: ENTRY };
