// Signing approvals: what the signer decoded, shown in a modal; nothing is
// approved by default (closing the dialog denies).
import type { Approval } from './protocol';
import { secondsLeft } from './util';

export function describeApproval(a: Approval, now: number = Date.now()): { title: string; detail: string } {
  const lines: string[] = [];
  const add = (k: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '') lines.push(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  };
  add('Sandbox', a.sandbox);
  add('Operation', a.operation);
  add('Key', a.key);
  add('Chain', a.chainId);
  add('To', a.to);
  add('Value', a.value);
  add('Selector', a.selector);
  add('Typed-data domain', a.domain);
  add('Summary', a.summary);
  add('Digest', a.digest);
  const left = secondsLeft(a.deadline, now);
  if (a.deadline) lines.push(`Time left: ${left}s (no answer = deny)`);
  return { title: `Airlock: sandbox "${a.sandbox}" asks to sign (${a.operation})`, detail: lines.join('\n') };
}

/** Maps the modal's answer to a decision. Only an explicit "Approve" approves. */
export function decisionFor(choice: string | undefined): 'approve' | 'deny' {
  return choice === 'Approve' ? 'approve' : 'deny';
}
