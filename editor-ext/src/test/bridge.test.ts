// Integration: the extension's bridge client (vscode-jsonrpc) against a real
// `airlock bridge` on a unix socket in a temp AIRLOCK_HOME.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BridgeClient, socketPath } from '../bridge';
import { CodeNotFound, type ListResult } from '../protocol';

const AIRLOCK = path.resolve(__dirname, '../../../bin/airlock');
let home = '';
let daemon: ChildProcess;
let client: BridgeClient;

before(async () => {
  assert.ok(fs.existsSync(AIRLOCK), `${AIRLOCK} missing: run make build first`);
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-ext-'));
  daemon = spawn(AIRLOCK, ['bridge'], { env: { ...process.env, AIRLOCK_HOME: home }, stdio: 'ignore' });
  const sock = socketPath(home);
  for (let i = 0; i < 100 && !fs.existsSync(sock); i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(fs.statSync(sock).mode & 0o777, 0o600, 'bridge.sock is private');
  client = await BridgeClient.connect(sock);
});

after(() => {
  client?.dispose();
  daemon?.kill('SIGTERM');
  fs.rmSync(home, { recursive: true, force: true });
});

test('sandbox.list over Content-Length framed JSON-RPC', async () => {
  const res = await client.call<ListResult>('sandbox.list', {});
  assert.deepEqual(res.sandboxes ?? [], []);
});

test('unknown sandbox is a deliberate not-found error', async () => {
  await assert.rejects(client.call('sandbox.stop', { name: 'nope' }), (e: { code: number; message: string }) => {
    assert.equal(e.code, CodeNotFound);
    assert.match(e.message, /nope/);
    return true;
  });
});

test('unknown methods and malformed params are refused, and the bridge keeps serving', async () => {
  await assert.rejects(client.call('no.such.method', {}));
  await assert.rejects(client.call('sandbox.stop', { name: 42 }));
  await client.subscribe(() => {});
  const res = await client.call<ListResult>('sandbox.list', {});
  assert.ok(Array.isArray(res.sandboxes ?? []));
});
