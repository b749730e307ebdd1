// Signing approvals: what the signer decoded, shown in a modal; nothing is
// approved by default (closing the dialog denies).
import type { Approval, Move, TypedField } from './protocol';
import { secondsLeft } from './util';

/**
 * Escapes what a terminal or a dialog would interpret or hide: C0/C1
 * controls, bidi overrides, zero-width and other invisible format
 * characters, line separators. The signer escapes every agent-controlled
 * string already; this is the last guard (it leaves backslashes alone, so it
 * does not change the signer's escapes).
 */
export function safeText(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** One decoded move in words (the same wording as `airlock approvals`). */
export function moveText(m: Move): string {
  let pre = m.index ? `#${m.index} ` : '';
  if (m.risk === 'high' && m.kind !== 'unknown') pre += 'HIGH RISK ';
  if (m.kind === 'unknown') return safeText(`${pre}UNKNOWN CALLDATA: ${m.note ?? ''}`);
  let s = pre + m.kind;
  const amt = m.amountText ? `${m.amountText} (${m.amount} base units)` : m.amount;
  if (amt) s += ` amount ${amt}`;
  if (m.tokenId) s += ` token id ${m.tokenId}`;
  if (m.approved !== undefined) s += ` approved=${m.approved}`;
  if (m.from) s += ` from ${m.from}`;
  if (m.to) s += ` to ${m.to}`;
  if (m.token) s += ` token ${m.token}`;
  if (m.deadline) s += ` deadline ${m.deadline}`;
  if (m.note) s += ` (${m.note})`;
  return safeText(s);
}

/** The EIP-712 message as an indented tree, one field per line. */
export function typedTree(fields: TypedField[] | undefined, indent = '  '): string[] {
  const out: string[] = [];
  for (const f of fields ?? []) {
    if ((f.fields && f.fields.length > 0) || f.value === undefined || f.value === '') {
      out.push(`${indent}${safeText(f.name)} (${safeText(f.type)}):`);
      out.push(...typedTree(f.fields, indent + '  '));
    } else {
      out.push(`${indent}${safeText(f.name)} (${safeText(f.type)}): ${safeText(f.value)}`);
    }
  }
  return out;
}

export function describeApproval(a: Approval, now: number = Date.now()): { title: string; detail: string } {
  const lines: string[] = [];
  const add = (k: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '') lines.push(`${k}: ${safeText(typeof v === 'string' ? v : JSON.stringify(v))}`);
  };
  // The signer lists high-risk moves first (unlimited, operator, delegatecall, unknown).
  for (const m of a.moves ?? []) lines.push(m.kind === 'unknown' || m.risk === 'high' ? `⚠ ${moveText(m)}` : `Moves: ${moveText(m)}`);
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
  if (d.messageLines?.length) {
    // The whole message, to its last line (the dialog scrolls).
    lines.push(`Message (${d.messageLines.length} lines${d.messageHex ? ', not UTF-8: hex, 32 bytes a line' : ''}):`);
    d.messageLines.forEach((l, i) => lines.push(`  ${i + 1}| ${safeText(l)}`));
    lines.push('End of message');
  } else {
    add('Message', d.message);
  }
  add('Primary type', d.primaryType);
  if (d.typedMessage?.length) {
    lines.push('Typed-data message:');
    lines.push(...typedTree(d.typedMessage));
  }
  add('Purpose', d.purpose);
  add('Issuer', d.issuer);
  add('Audience', d.audience);
  add('Subject', d.subject);
  add('Claims', d.claims?.join(', '));
  add('Git object', d.gitType);
  add('Git signer', d.gitWho);
  add('Host', a.host);
  add('Path', a.path);
  if (a.size !== undefined) add('Body size', a.size < 0 ? 'unknown (chunked)' : `${a.size} bytes`);
  add('Held by rule', a.rule);
  add('Summary', a.summary);
  add('Digest', a.digest);
  const left = secondsLeft(a.deadline, now);
  if (a.deadline) lines.push(`Time left: ${left}s (no answer = deny)`);
  const title = a.operation === 'network'
    ? `Airlock: sandbox "${safeText(a.sandbox)}" wants to send ${safeText(a.method)} ${safeText(a.host ?? '')}${safeText(a.path ?? '')}`
    : `Airlock: sandbox "${safeText(a.sandbox)}" asks to sign (${safeText(a.operation)})`;
  return { title, detail: lines.join('\n') };
}

/** Maps the modal's answer to a decision. Only an explicit "Approve" approves. */
export function decisionFor(choice: string | undefined): 'approve' | 'deny' {
  return choice === 'Approve' ? 'approve' : 'deny';
}
