// Wire types of `airlock bridge`, mirroring bridge/protocol (Go). A Go test
// (bridge/protocol/tsdrift_test.go) checks that every JSON field name of the Go
// types appears here, so the two cannot drift silently.

export interface PortInfo {
  name?: string;
  guest: number;
  host: number;
  bind?: string;
}

export interface SandboxInfo {
  name: string;
  backend: string;
  mode: string;
  state: string;
  ports?: PortInfo[];
  sshHost?: string;
  workspace?: string;
  configPath?: string;
  note?: string;
}

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

export interface Approval {
  id: string;
  sandbox: string;
  operation: string;
  key?: string;
  chainId?: number | string;
  to?: string;
  value?: string;
  selector?: string;
  domain?: unknown;
  summary?: string;
  digest?: string;
  deadline?: string;
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
