// Tree views: sandboxes, review (files and their flags), approvals.
import * as vscode from 'vscode';
import type { Approval, Flag, ReviewFile, SandboxInfo } from './protocol';
import { flagKey, sandboxDescription, worstSeverity } from './util';
import { moveText, safeText } from './approvals';

export class SandboxItem extends vscode.TreeItem {
  constructor(public readonly sandbox: SandboxInfo) {
    super(sandbox.name, vscode.TreeItemCollapsibleState.None);
    this.description = sandboxDescription(sandbox);
    this.contextValue = `sandbox-${sandbox.state}`;
    this.tooltip = `${sandbox.name}.airlock — ${this.description}${sandbox.note ? '\n' + sandbox.note : ''}`;
    this.iconPath = new vscode.ThemeIcon(sandbox.state === 'running' ? 'vm-running' : 'vm');
  }
}

export class SandboxesProvider implements vscode.TreeDataProvider<SandboxItem> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  sandboxes: SandboxInfo[] = [];
  error = '';

  set(list: SandboxInfo[], error = ''): void {
    this.sandboxes = list;
    this.error = error;
    this.changed.fire();
  }
  getTreeItem(e: SandboxItem): vscode.TreeItem {
    return e;
  }
  getChildren(): SandboxItem[] {
    return this.sandboxes.map((s) => new SandboxItem(s));
  }
}

export class ReviewFileItem extends vscode.TreeItem {
  constructor(public readonly sandbox: string, public readonly file: ReviewFile) {
    super(file.path, file.flags?.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    const worst = worstSeverity(file.flags);
    this.description = worst ? `${file.status} · ${worst.toUpperCase()}` : file.status;
    this.contextValue = `file-${worst || 'clean'}`;
    this.tooltip = (file.flags ?? []).map((f) => `[${f.severity}] ${f.rule}: ${f.reason}`).join('\n') || file.status;
    this.iconPath = new vscode.ThemeIcon(worst === 'high' ? 'error' : worst === 'medium' ? 'warning' : 'file');
    this.command = { command: 'airlock.review.openDiff', title: 'Open Diff', arguments: [sandbox, file.path] };
  }
}

export class FlagItem extends vscode.TreeItem {
  constructor(public readonly sandbox: string, public readonly file: string, public readonly flag: Flag, acked: boolean) {
    super(`${flag.severity.toUpperCase()} ${flag.rule}${flag.line ? ` (line ${flag.line})` : ''}`);
    this.description = acked ? 'acknowledged' : flag.reason;
    this.tooltip = flag.reason;
    this.contextValue = flag.severity === 'high' && !acked ? 'flag-high' : 'flag';
    this.iconPath = new vscode.ThemeIcon(acked ? 'pass' : flag.severity === 'high' ? 'error' : 'warning');
  }
}

/** A review note (history the apply brings, a running sandbox, a capture
 * that failed): shown above the files, escaped (notes name agent paths). */
export class NoteItem extends vscode.TreeItem {
  constructor(public readonly note: string) {
    super(safeText(note));
    this.tooltip = safeText(note);
    this.contextValue = 'note';
    this.iconPath = new vscode.ThemeIcon(/\bHIGH\b/.test(note) ? 'error' : 'info');
  }
}

type ReviewNode = NoteItem | ReviewFileItem | FlagItem;

export class ReviewProvider implements vscode.TreeDataProvider<ReviewNode> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  sandbox = '';
  files: ReviewFile[] = [];
  notes: string[] = [];
  acknowledged = new Set<string>();

  set(sandbox: string, files: ReviewFile[], notes: string[] = []): void {
    if (sandbox !== this.sandbox) this.acknowledged.clear();
    this.sandbox = sandbox;
    this.files = files;
    this.notes = notes;
    this.changed.fire();
  }
  acknowledge(file: string, flag: Flag): void {
    this.acknowledged.add(flagKey(file, flag));
    this.changed.fire();
  }
  getTreeItem(e: ReviewNode): vscode.TreeItem {
    return e;
  }
  getChildren(e?: ReviewNode): ReviewNode[] {
    if (!e) return [...this.notes.map((n) => new NoteItem(n)), ...this.files.map((f) => new ReviewFileItem(this.sandbox, f))];
    if (e instanceof ReviewFileItem)
      return (e.file.flags ?? []).map((f) => new FlagItem(this.sandbox, e.file.path, f, this.acknowledged.has(flagKey(e.file.path, f))));
    return [];
  }
}

export class ApprovalsProvider implements vscode.TreeDataProvider<vscode.TreeItem> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  pending: Approval[] = [];

  set(list: Approval[]): void {
    this.pending = list;
    this.changed.fire();
  }
  getTreeItem(e: vscode.TreeItem): vscode.TreeItem {
    return e;
  }
  getChildren(): vscode.TreeItem[] {
    return this.pending.map((a) => {
      const item = new vscode.TreeItem(safeText(`${a.sandbox}: ${a.operation}`));
      item.description = a.moves?.length ? moveText(a.moves[0]) : a.to ? safeText(`to ${a.to}`) : a.id;
      item.command = { command: 'airlock.approvals.decide', title: 'Decide', arguments: [a] };
      return item;
    });
  }
}

/** Read-only documents for the base and current side of a review diff. */
export class ReviewContentProvider implements vscode.TextDocumentContentProvider {
  static readonly scheme = 'airlock-review';
  constructor(private readonly fetch: (sandbox: string, path: string, side: string) => Promise<string>) {}

  static uri(sandbox: string, path: string, side: 'base' | 'current'): vscode.Uri {
    return vscode.Uri.from({ scheme: ReviewContentProvider.scheme, authority: sandbox, path: '/' + path, query: side });
  }
  provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    return this.fetch(uri.authority, uri.path.replace(/^\//, ''), uri.query);
  }
}
