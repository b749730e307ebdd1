package egress

// NodeProxyHook is a CommonJS preload (NODE_OPTIONS=--require FILE) that
// routes Node's built-in fetch through the proxy named by HTTPS_PROXY. Node
// 20's fetch (its bundled undici) ignores the proxy variables, and inside a
// sandbox there is no other way out. It replaces undici's global dispatcher
// with an Agent of the same class whose connector opens a CONNECT tunnel to
// the proxy, then TLS for https origins (trusting NODE_EXTRA_CA_CERTS as
// usual). Hosts in NO_PROXY are connected directly. The hook does nothing
// when HTTPS_PROXY is unset or the runtime differs.
const NodeProxyHook = `'use strict';
// Installed by airlock: send Node's built-in fetch through the egress proxy.
(function () {
  const proxy = process.env.HTTPS_PROXY || process.env.https_proxy;
  if (!proxy || typeof globalThis.fetch !== 'function') return;
  try { void globalThis.Headers; } catch (e) { return; } // loads the bundled undici
  const sym = Symbol.for('undici.globalDispatcher.1');
  const cur = globalThis[sym];
  if (!cur || typeof cur.constructor !== 'function') return;
  const net = require('net'), tls = require('tls');
  let pu;
  try { pu = new URL(proxy); } catch (e) { return; }
  const noProxy = (process.env.NO_PROXY || process.env.no_proxy || '').split(',').map(s => s.trim()).filter(Boolean);
  function connect(opts, cb) {
    const host = String(opts.hostname || '').replace(/^\[|\]$/g, '');
    const https = opts.protocol === 'https:';
    const port = Number(opts.port) || (https ? 443 : 80);
    const servername = opts.servername || (net.isIP(host) ? undefined : host);
    let done = false;
    const finish = (err, sock) => { if (!done) { done = true; cb(err, sock); } };
    if (noProxy.includes(host)) {
      const s = https ? tls.connect({ host, port, servername, ALPNProtocols: ['http/1.1'] }) : net.connect(port, host);
      s.once(https ? 'secureConnect' : 'connect', () => finish(null, s));
      s.once('error', e => finish(e, null));
      return;
    }
    const s = net.connect(Number(pu.port) || 3128, pu.hostname.replace(/^\[|\]$/g, ''));
    s.once('error', e => finish(e, null));
    s.once('connect', () => {
      const h = host.includes(':') ? '[' + host + ']' : host;
      s.write('CONNECT ' + h + ':' + port + ' HTTP/1.1\r\nHost: ' + h + ':' + port + '\r\n\r\n');
    });
    let buf = Buffer.alloc(0);
    const onData = d => {
      buf = Buffer.concat([buf, d]);
      const i = buf.indexOf('\r\n\r\n');
      if (i < 0) { if (buf.length > 65536) { s.destroy(); finish(new Error('bad proxy answer'), null); } return; }
      s.removeListener('data', onData);
      s.pause();
      const head = buf.subarray(0, i).toString('latin1');
      const lines = head.split('\r\n');
      if (!/^HTTP\/1\.[01] 200/.test(lines[0])) {
        const denied = lines.find(l => /^x-airlock-denied:/i.test(l));
        const body = buf.subarray(i + 4).toString('utf8').trim();
        s.destroy();
        const err = new Error('airlock egress refused ' + host + ':' + port + ': ' + lines[0] +
          (denied ? ' (' + denied.trim() + ')' : '') + (body ? ' — ' + body : ''));
        err.code = 'AIRLOCK_EGRESS_DENIED';
        finish(err, null);
        return;
      }
      if (!https) { finish(null, s); return; }
      const t = tls.connect({ socket: s, servername, ALPNProtocols: ['http/1.1'] });
      t.once('secureConnect', () => finish(null, t));
      t.once('error', e => finish(e, null));
    };
    s.on('data', onData);
  }
  globalThis[sym] = new cur.constructor({ connect });
})();
`
