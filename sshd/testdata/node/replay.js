// Replays what open-remote-ssh (VSCodium's Remote-SSH, npm ssh2) does
// against an SSH server: exec('uname -s'), exec('echo <b64> | base64 -d |
// bash -l') with an install script that starts a background server and
// prints markers, then direct-tcpip and direct-streamlocal connections to
// that server. Prints one JSON line with the results; exits non-zero on
// any failure.
//
// env: SSH_PORT, SSH_KEY (private key path), SSH_HOSTKEY (base64 host key
// blob), WORKDIR (directory for the server's socket, log and pid file; the
// caller kills the background server).
'use strict';
const { Client } = require('ssh2');
const fs = require('fs');
const crypto = require('crypto');

const port = Number(process.env.SSH_PORT);
const hostKey = Buffer.from(process.env.SSH_HOSTKEY, 'base64');
const workdir = process.env.WORKDIR;
const uuid = crypto.randomUUID();
const sock = workdir + '/server.sock';

const serverJS = `
const http = require('http');
const h = (q, r) => r.end('remote-server ' + q.url);
const t = http.createServer(h).listen(0, '127.0.0.1', () => {
  http.createServer(h).listen(${JSON.stringify(sock)}, () => {
    require('fs').writeFileSync(${JSON.stringify(workdir + '/pid')}, String(process.pid));
    require('fs').writeFileSync(${JSON.stringify(workdir + '/port')}, String(t.address().port));
  });
});`;
const install = `
echo "${uuid}: start"
cd ${JSON.stringify(workdir)}
cat > server.js <<'JSEOF'
${serverJS}
JSEOF
nohup node server.js > server.log 2>&1 &
for i in $(seq 1 200); do [ -s port ] && break; sleep 0.05; done
echo "listeningOn==$(cat port)=="
echo "osReleaseId==$(. /etc/os-release 2>/dev/null; echo $ID)=="
echo "${uuid}: end"
`;

function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exit(1);
}

function exec(conn, cmd) {
  return new Promise((resolve, reject) => {
    conn.exec(cmd, (err, stream) => {
      if (err) return reject(err);
      let out = '', errOut = '';
      stream.on('data', (d) => { out += d; });
      stream.stderr.on('data', (d) => { errOut += d; });
      stream.on('close', (code, signal) => resolve({ out, errOut, code, signal }));
    });
  });
}

function httpGet(stream, path) {
  return new Promise((resolve, reject) => {
    let buf = '';
    stream.on('data', (d) => { buf += d; });
    stream.on('error', reject);
    stream.on('close', () => resolve(buf));
    stream.end(`GET ${path} HTTP/1.0\r\nHost: x\r\n\r\n`);
  });
}

function forwardOut(conn, p) {
  return new Promise((resolve, reject) =>
    conn.forwardOut('127.0.0.1', 0, '127.0.0.1', p, (err, s) => (err ? reject(err) : resolve(s))));
}

function streamLocal(conn, path) {
  return new Promise((resolve, reject) =>
    conn.openssh_forwardOutStreamLocal(path, (err, s) => (err ? reject(err) : resolve(s))));
}

const conn = new Client();
conn.on('error', (e) => fail('connection: ' + e.message));
conn.on('ready', async () => {
  try {
    const uname = await exec(conn, 'uname -s');
    if (uname.out.trim() !== 'Linux' || uname.code !== 0) fail('uname: ' + JSON.stringify(uname));
    const b64 = Buffer.from(install).toString('base64');
    const res = await exec(conn, `echo ${b64} | base64 -d | bash -l`);
    const m = new RegExp(`${uuid}: start\\n([\\s\\S]*)${uuid}: end`).exec(res.out);
    if (!m || res.code !== 0) fail('install script: ' + JSON.stringify(res));
    const pm = /listeningOn==(\d+)==/.exec(m[1]);
    if (!pm) fail('no listeningOn in ' + JSON.stringify(m[1]));
    const remotePort = Number(pm[1]);
    const gets = [];
    for (let i = 0; i < 20; i++) {
      gets.push(forwardOut(conn, remotePort).then((s) => httpGet(s, '/tcp' + i)));
    }
    const bodies = await Promise.all(gets);
    bodies.forEach((b, i) => { if (!b.endsWith('remote-server /tcp' + i)) fail('tcp ' + i + ': ' + JSON.stringify(b)); });
    const ub = await httpGet(await streamLocal(conn, sock), '/unix');
    if (!ub.endsWith('remote-server /unix')) fail('unix: ' + JSON.stringify(ub));
    console.log(JSON.stringify({ ok: true, remotePort, tcp: bodies.length, unix: true }));
    conn.end();
  } catch (e) {
    fail(e.stack || String(e));
  }
});
conn.connect({
  host: '127.0.0.1',
  port,
  username: 'tester',
  privateKey: fs.readFileSync(process.env.SSH_KEY),
  hostVerifier: (key) => Buffer.compare(key, hostKey) === 0,
  readyTimeout: 30000,
});
