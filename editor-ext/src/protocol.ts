// Wire types of `airlock bridge`. protocol.gen.ts is generated from the Go
// package bridge/protocol (a Go test fails when it is stale); this file adds
// the method-name table the extension uses.

export * from './protocol.gen';
import type { Port, Sandbox } from './protocol.gen';

export type PortInfo = Port;
export type SandboxInfo = Sandbox;

import * as G from './protocol.gen';

// Names the extension uses, bound to the generated constants so a rename on
// the Go side breaks this build instead of failing at run time.
export const Methods = {
  sandboxList: G.MethodList,
  sandboxUp: G.MethodUp,
  sandboxStop: G.MethodStop,
  sandboxStart: G.MethodStart,
  sandboxRemove: G.MethodRemove,
  sandboxSSHHost: G.MethodSSHHost,
  reviewList: G.MethodReviewList,
  reviewFile: G.MethodReviewFile,
  reviewApply: G.MethodReviewApply,
  reviewRevert: G.MethodReviewRevert,
  approvalsList: G.MethodApprovalsList,
  approvalsDecide: G.MethodApprovalsDecide,
  policyList: G.MethodPolicyList,
  policyLog: G.MethodPolicyLog,
  subscribe: G.MethodSubscribe,
} as const;

export const Notifications = {
  sandboxChanged: G.NotifyChanged,
  approvalRequested: G.NotifyApprovalRequested,
  egressDenied: G.NotifyEgressDenied,
} as const;
