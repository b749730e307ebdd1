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
  add('Operation', a.operation === a.method ? a.operation : `${a.operation} (${a.method})`);
  add('Policy', a.policy);
  add('Key', a.key);
  add('Chain', a.chainId);
  add('From', a.from);
  add('To', a.create ? '(contract creation)' : a.to);
  add('Value (wei)', a.value);
  add('Selector', a.selector);
  add('Typed-data domain', a.domain);
  const d = a.details ?? {};
  add('Message', d.message);
  add('Primary type', d.primaryType);
  add('Purpose', d.purpose);
  add('Issuer', d.issuer);
  add('Audience', d.audience);
  add('Claims', d.claims?.join(', '));
  add('Git object', d.gitType);
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
