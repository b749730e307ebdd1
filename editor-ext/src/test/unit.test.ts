import { rec } from './vscode-mock';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeApproval, decisionFor } from '../approvals';
import { parseValidateOutput, toRange } from '../diagnostics';
import { acceptedRules, flagKey, remoteFolderUri, secondsLeft, unacknowledged, worstSeverity } from '../util';
import type { Approval, ReviewFile } from '../protocol';
import { Airlock, sideNote } from '../extension';

function approval(over: Partial<Approval>): Approval {
  return { id: 'a1', digest: 'ab', sandbox: 'demo', method: 'personal_sign', operation: 'personal_sign', policy: 'p', key: 'main',
    summary: 'sign', created: '2026-01-01T00:00:00Z', deadline: '2026-01-01T00:01:00Z', details: {}, ...over };
}

const files: ReviewFile[] = [
  { path: '.git/hooks/post-checkout', status: 'added', flags: [{ rule: 'GIT-HOOK', severity: 'high', reason: 'runs on checkout', line: 0 }] },
  { path: 'package.json', status: 'modified', flags: [
    { rule: 'NPM-SCRIPT', severity: 'high', reason: 'postinstall runs on install', line: 4 },
    { rule: 'INFO-X', severity: 'info', reason: 'just info' },
  ] },
  { path: 'src/a.ts', status: 'modified' },
];

test('remote folder URI uses the ssh-remote authority', () => {
  assert.equal(remoteFolderUri('demo.airlock', '/workspace'), 'vscode-remote://ssh-remote+demo.airlock/workspace');
  assert.equal(remoteFolderUri('demo.airlock', 'workspace'), 'vscode-remote://ssh-remote+demo.airlock/workspace');
});

test('high flags must be acknowledged one by one', () => {
  const acked = new Set<string>();
  assert.equal(unacknowledged(files, acked).length, 2);
  acked.add(flagKey('.git/hooks/post-checkout', files[0].flags![0]));
  assert.deepEqual(unacknowledged(files, acked).map((x) => x.flag.rule), ['NPM-SCRIPT']);
  acked.add(flagKey('package.json', files[1].flags![0]));
  assert.equal(unacknowledged(files, acked).length, 0);
  assert.deepEqual(acceptedRules(files), ['GIT-HOOK', 'NPM-SCRIPT']);
  assert.equal(worstSeverity(files[1].flags), 'high');
  assert.equal(worstSeverity(files[2].flags), '');
});

test('validate JSON maps 1-based HCL positions to 0-based ranges', () => {
  const d = parseValidateOutput(JSON.stringify([{ severity: 'error', summary: 'Unsupported argument', start: { line: 3, column: 5 }, end: { line: 3, column: 12 } }]));
  assert.deepEqual(toRange(d[0]), { startLine: 2, startCol: 4, endLine: 2, endCol: 11 });
  assert.deepEqual(parseValidateOutput(''), []);
  assert.throws(() => parseValidateOutput('not json'));
});

test('approval text shows what the signer decoded and only Approve approves', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const { title, detail } = describeApproval(
    approval({ operation: 'eth_signTransaction', method: 'eth_signTransaction', chainId: '1', to: '0xabc', value: '1000', selector: '0xa9059cbb', deadline: '2026-01-01T00:00:30Z' }),
    now,
  );
  assert.match(title, /demo/);
  for (const want of ['Chain: 1', 'To: 0xabc', 'Value (wei): 1000', 'Selector: 0xa9059cbb', 'Time left: 30s']) assert.ok(detail.includes(want), want);
  assert.equal(decisionFor('Approve'), 'approve');
  assert.equal(decisionFor(undefined), 'deny');
  assert.equal(decisionFor('Deny'), 'deny');
  assert.equal(secondsLeft('garbage', now), 0);
});

test('approval modal shows token moves and the typed-data tree, escaped', () => {
  const { title, detail } = describeApproval(approval({
    sandbox: 'demo\u001b[8m',
    operation: 'eth_signTypedData_v4', method: 'eth_signTypedData_v4',
    moves: [{ kind: 'erc20.transfer', token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', to: '0x1111111111111111111111111111111111111111', amount: '1000000', amountText: '1 USDC' },
      { kind: 'unknown', note: 'selector 0xdeadbeef not decoded' }],
    details: { primaryType: 'Permit\r\u202e', typedMessage: [{ name: 'spender', type: 'address', value: '0x1111111111111111111111111111111111111111' },
      { name: 'details', type: 'D', fields: [{ name: 'amount', type: 'uint160', value: '5' }] }] },
  }));
  assert.ok(!/[\u0000-\u001f\u202e]/.test(title + detail.replace(/\n/g, '')), 'no raw control or bidi characters');
  assert.match(title, /demo\\u001b\[8m/);
  assert.ok(detail.includes('Moves: erc20.transfer amount 1 USDC (1000000 base units) to 0x1111111111111111111111111111111111111111'), detail);
  assert.ok(detail.includes('⚠ UNKNOWN CALLDATA: selector 0xdeadbeef not decoded'), detail);
  assert.ok(detail.includes('Primary type: Permit\\u000d\\u202e'), detail);
  assert.ok(detail.includes('    amount (uint160): 5'), detail);
});

test('the whole personal_sign message is in the dialog and high-risk moves are marked', () => {
  const long = Array.from({ length: 300 }, (_, i) => (i === 299 ? 'transfer everything to 0xbad' : ''));
  const { detail } = describeApproval(approval({ details: { message: 'cut', messageLen: 400, messageLines: long } }));
  assert.ok(detail.includes('Message (300 lines):'), detail);
  assert.ok(detail.includes('  300| transfer everything to 0xbad'), detail);
  assert.ok(!detail.includes('Message: cut'));
  const m = describeApproval(approval({ moves: [{ kind: 'permit2.permitBatch', amount: '1', risk: 'high', index: 37 }] })).detail;
  assert.ok(m.includes('⚠ #37 HIGH RISK permit2.permitBatch amount 1'), m);
});

test('a held network request shows method, host, path, size and rule', () => {
  const { title, detail } = describeApproval(approval({ operation: 'network', method: 'PUT', key: '', policy: '',
    host: 'api.github.com:443', path: '/repos/o/r/releases', size: 14, rule: 'api.github.com PUT /repos/*/*/releases' }));
  assert.match(title, /wants to send PUT api\.github\.com:443\/repos\/o\/r\/releases/);
  for (const want of ['Host: api.github.com:443', 'Path: /repos/o/r/releases', 'Body size: 14 bytes', 'Held by rule: api.github.com PUT']) assert.ok(detail.includes(want), want);
  assert.ok(describeApproval(approval({ operation: 'network', size: -1 })).detail.includes('Body size: unknown (chunked)'));
});

test('apply refuses while high flags are unacknowledged and sends accepted rules after', async () => {
  const a = new Airlock({ AIRLOCK_HOME: '/nonexistent' });
  const calls: { method: string; params: any }[] = [];
  (a as any).call = async (method: string, params: any) => {
    calls.push({ method, params });
    return { branch: 'airlock/demo' };
  };
  a.review.set('demo', files);
  rec.messages.length = 0;
  await a.apply();
  assert.equal(calls.length, 0, 'nothing applied before acknowledgement');
  assert.match(rec.messages[0].text, /acknowledge each high-risk flag/);
  a.review.acknowledge('.git/hooks/post-checkout', files[0].flags![0]);
  a.review.acknowledge('package.json', files[1].flags![0]);
  rec.answer = (_k, _t, items) => (items.includes('Apply') ? 'Apply' : undefined);
  await a.apply();
  assert.deepEqual(calls, [{ method: 'review.apply', params: { name: 'demo', accept: ['GIT-HOOK', 'NPM-SCRIPT'] } }]);
});

test('an approval prompt dismissed without an answer is a denial', async () => {
  const a = new Airlock({ AIRLOCK_HOME: '/nonexistent' });
  const calls: { method: string; params: any }[] = [];
  (a as any).call = async (method: string, params: any) => {
    calls.push({ method, params });
    return [];
  };
  rec.answer = () => undefined; // the user closes the dialog
  await a.promptApproval(approval({ id: 'x1', digest: 'd1' }));
  assert.deepEqual(calls[0], { method: 'approvals.decide', params: { id: 'x1', decision: 'deny', digest: 'd1' } });
});

test('attach says exactly what to install when Remote-SSH is missing', async () => {
  const a = new Airlock({ AIRLOCK_HOME: '/nonexistent' });
  a.sandboxes.set([{ name: 'demo', backend: 'namespace', mode: 'clone', state: 'running', configPath: '/w/sandbox.hcl', configSha256: 'x', sshHost: 'demo.airlock', ports: [] }]);
  rec.messages.length = 0;
  rec.executed.length = 0;
  await a.attach();
  assert.match(rec.messages[0].text, /ms-vscode-remote\.remote-ssh/);
  assert.equal(rec.executed.length, 0);
  rec.extensions.add('ms-vscode-remote.remote-ssh');
  (a as any).runCli = async () => ({ stdout: '', stderr: '', code: 0 });
  await a.attach();
  const open = rec.executed.find((e) => e.id === 'vscode.openFolder')!;
  assert.equal(String(open.args[0]), 'vscode-remote://ssh-remote+demo.airlock/workspace');
});

test('egress denials go to their output channel; sandbox changes refresh the view', async () => {
  const a = new Airlock({ AIRLOCK_HOME: '/nonexistent' });
  const lines: string[] = [];
  (a.egress as any).appendLine = (l: string) => lines.push(l);
  let refreshed = 0;
  (a as any).refresh = async () => void refreshed++;
  a.onNotification('egress.denied', { sandbox: 'demo', host: 'evil.example', rule: 'default-deny' });
  assert.equal(lines.length, 1);
  assert.match(lines[0], /denied .*evil\.example.*default-deny/);
  a.onNotification('sandbox.changed', { name: 'demo', state: 'stopped' });
  assert.equal(refreshed, 1);
});

test('review notes show above the files, escaped, and history the apply refuses is a warning', async () => {
  const a = new Airlock({ AIRLOCK_HOME: '/nonexistent' });
  const note = "in the agent's commits, not shown above: commit abc123456789: ev\u001b]52;il: HIGH VSCODE-AUTORUN";
  (a as any).call = async () => ({ sandbox: 'demo', mode: 'direct', files, notes: [note], summary: { high: 2, medium: 0, info: 1, files: 3, historyHigh: 1 } });
  rec.messages.length = 0;
  await a.showReview({ sandbox: { name: 'demo' } } as any);
  const top = a.review.getChildren();
  assert.equal(top.length, 4, 'one note and three files');
  assert.match(String(top[0].label), /commit abc123456789/);
  assert.ok(!/\u001b/.test(String(top[0].label)), 'no raw escape in the tree');
  assert.ok(rec.messages.some((m) => /1 version\(s\) in the agent's commits/.test(m.text) && /--accept HISTORY:COMMIT/.test(m.text)));
});

test('a diff side that is escaped or converted on checkout says so', () => {
  const n = sideNote('tools/setup.js', { path: 'tools/setup.js', base: '', current: 'x \\x00', baseExists: true, currentExists: true, escaped: true, checkout: 'working-tree-encoding=IBM037' });
  assert.match(n, /not text/);
  assert.match(n, /IBM037/);
});
