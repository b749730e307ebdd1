// Wire types of `airlock bridge`. protocol.gen.ts is generated from the Go
// package bridge/protocol (a Go test fails when it is stale); this file adds
// the method-name table the extension uses.

export * from './protocol.gen';
import type { Port, Sandbox } from './protocol.gen';
export type { Approval } from './protocol.gen';
export type PortInfo = Port;
export type SandboxInfo = Sandbox;

export interface Flag {
  rule: string;
  severity: 'high' | 'medium' | 'info';
  line?: number;
  reason: string;
}

export interface ReviewFile {
  path: string;
  status: string;
  oldMode?: string;
  newMode?: string;
  flags?: Flag[];
}

export interface ReviewResult {
  sandbox: string;
  mode?: string;
  files: ReviewFile[];
  summary?: { high: number; medium: number; info: number; files: number };
}

export interface ReviewFileContent {
  path: string;
  base: string;
  current: string;
  baseExists?: boolean;
  currentExists?: boolean;
  binary?: boolean;
}

export const Methods = {
  sandboxList: 'sandbox.list',
  sandboxUp: 'sandbox.up',
  sandboxStop: 'sandbox.stop',
  sandboxStart: 'sandbox.start',
  sandboxRemove: 'sandbox.remove',
  sandboxSSHHost: 'sandbox.sshHost',
  reviewList: 'review.list',
  reviewFile: 'review.file',
  reviewApply: 'review.apply',
  reviewRevert: 'review.revert',
  approvalsList: 'approvals.list',
  approvalsDecide: 'approvals.decide',
  policyList: 'policy.list',
  policyLog: 'policy.log',
  subscribe: 'bridge.subscribe',
} as const;

export const Notifications = {
  sandboxChanged: 'sandbox.changed',
  approvalRequested: 'approval.requested',
  egressDenied: 'egress.denied',
} as const;
