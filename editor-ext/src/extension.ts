// Airlock for VS Code: the person's window onto the agent's sandbox.
import * as vscode from 'vscode';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { BridgeClient, airlockHome, socketPath } from './bridge';
import { describeApproval, decisionFor } from './approvals';
import { runValidate, toRange } from './diagnostics';
import { Methods, Notifications, type Approval, type ApprovalsListResult, type ListResult, type ReviewFileContent, type ReviewResult } from './protocol';
import { acceptedRules, remoteFolderUri, unacknowledged } from './util';
import { ApprovalsProvider, FlagItem, ReviewContentProvider, ReviewFileItem, ReviewProvider, SandboxesProvider, SandboxItem } from './views';

const REMOTE_SSH_IDS = ['ms-vscode-remote.remote-ssh', 'jeanp413.open-remote-ssh'];

export class Airlock {
  readonly sandboxes = new SandboxesProvider();
  readonly review = new ReviewProvider();
  readonly approvals = new ApprovalsProvider();
  readonly output = vscode.window.createOutputChannel('Airlock');
  readonly egress = vscode.window.createOutputChannel('Airlock Egress');
  readonly diagnostics = vscode.languages.createDiagnosticCollection('airlock');
  readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  private client?: BridgeClient;

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  get cli(): string {
    return vscode.workspace.getConfiguration('airlock').get<string>('path') || 'airlock';
  }
  get home(): string {
    return airlockHome(this.env, vscode.workspace.getConfiguration('airlock').get<string>('home') || '');
  }
  private cliEnv(): NodeJS.ProcessEnv {
    return { ...this.env, AIRLOCK_HOME: this.home };
  }

  /** Runs the CLI (which starts the bridge on demand). */
  runCli(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
    return new Promise((resolve) => {
      execFile(this.cli, args, { env: this.cliEnv(), timeout: 120000 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ stdout, stderr, code });
      });
    });
  }

  async bridge(): Promise<BridgeClient> {
    if (this.client) return this.client;
    const sock = socketPath(this.home);
    let client: BridgeClient;
    try {
      client = await BridgeClient.connect(sock);
    } catch {
      await this.runCli(['ls', '--json']); // starts the daemon on demand
      client = await BridgeClient.connect(sock);
    }
    client.onClose(() => {
      if (this.client === client) this.client = undefined;
    });
    await client.subscribe((method, params) => this.onNotification(method, params));
    this.client = client;
    return client;
  }

  async call<T>(method: string, params?: unknown): Promise<T> {
    return (await this.bridge()).call<T>(method, params);
  }

  onNotification(method: string, params: unknown): void {
    switch (method) {
      case Notifications.sandboxChanged:
        void this.refresh();
        break;
      case Notifications.approvalRequested:
        void this.refresh();
        void this.promptApproval(params as Approval);
        break;
      case Notifications.egressDenied:
        this.egress.appendLine(`${new Date().toISOString()} denied ${JSON.stringify(params)}`);
        break;
    }
  }

  async refresh(): Promise<void> {
    try {
      const res = await this.call<ListResult>(Methods.sandboxList, {});
      const list = res.sandboxes ?? [];
      this.sandboxes.set(list);
      this.status.text = `$(vm) Airlock: ${list.filter((s) => s.state === 'running').length}/${list.length}`;
      this.status.show();
    } catch (e) {
      this.sandboxes.set([], String(e));
      this.output.appendLine(`refresh: ${e}`);
    }
    try {
      const res = await this.call<ApprovalsListResult>(Methods.approvalsList, {});
      this.approvals.set(res.approvals ?? []);
    } catch {
      /* signer not configured */
    }
  }

  async up(): Promise<void> {
    const files = await vscode.workspace.findFiles('sandbox.hcl', null, 1);
    if (!files.length) {
      void vscode.window.showErrorMessage('Airlock: no sandbox.hcl in this workspace.');
      return;
    }
    const plan = await this.runCli(['plan', '-f', files[0].fsPath]);
    const ok = await vscode.window.showWarningMessage('Bring up this sandbox?', { modal: true, detail: plan.stdout }, 'Approve and start');
    if (ok !== 'Approve and start') return;
    const res = await this.runCli(['up', '-f', files[0].fsPath, '--yes']);
    this.output.appendLine(res.stdout + res.stderr);
    if (res.code !== 0) void vscode.window.showErrorMessage(`Airlock up failed: ${res.stderr.trim()}`);
    await this.refresh();
  }

  async lifecycle(method: string, item?: SandboxItem): Promise<void> {
    const name = item?.sandbox.name ?? (await this.pickSandbox());
    if (!name) return;
    if (method === Methods.sandboxRemove) {
      const ok = await vscode.window.showWarningMessage(`Remove sandbox "${name}" and everything in it?`, { modal: true }, 'Remove');
      if (ok !== 'Remove') return;
    }
    try {
      await this.call(method, { name });
    } catch (e) {
      void vscode.window.showErrorMessage(`Airlock: ${(e as Error).message}`);
    }
    await this.refresh();
  }

  async pickSandbox(): Promise<string | undefined> {
    const names = this.sandboxes.sandboxes.map((s) => s.name);
    if (names.length === 1) return names[0];
    return vscode.window.showQuickPick(names, { placeHolder: 'Sandbox' });
  }

  async attach(item?: SandboxItem): Promise<void> {
    const name = item?.sandbox.name ?? (await this.pickSandbox());
    if (!name) return;
    const remote = REMOTE_SSH_IDS.find((id) => vscode.extensions.getExtension(id));
    if (!remote) {
      void vscode.window.showErrorMessage(
        'Airlock: attaching needs the Remote-SSH extension. Install "ms-vscode-remote.remote-ssh" (VS Code) or "jeanp413.open-remote-ssh" (VSCodium/code-server), then try again.',
      );
      return;
    }
    const install = await this.runCli(['ssh-config', '--install']);
    if (install.code !== 0) {
      void vscode.window.showErrorMessage(`Airlock: ssh-config --install failed: ${install.stderr.trim()}`);
      return;
    }
    const info = this.sandboxes.sandboxes.find((x) => x.name === name);
    const host = info?.sshHost || `${name}.airlock`;
    await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.parse(remoteFolderUri(host, info?.workspace || '/workspace')), {
      forceNewWindow: true,
    });
  }

  terminal(item?: SandboxItem): void {
    const name = item?.sandbox.name;
    if (!name) return;
    const t = vscode.window.createTerminal({ name: `airlock: ${name}`, shellPath: this.cli, shellArgs: ['ssh', name], env: { AIRLOCK_HOME: this.home } });
    t.show();
  }

  async showReview(item?: SandboxItem): Promise<void> {
    const name = item?.sandbox.name ?? (await this.pickSandbox());
    if (!name) return;
    try {
      const res = await this.call<ReviewResult>(Methods.reviewList, { name, requestedAtMs: Date.now() });
      this.review.set(name, res.files ?? [], res.notes ?? []);
      await vscode.commands.executeCommand('airlock.review.focus');
      if (res.summary?.historyHigh) {
        void vscode.window.showWarningMessage(
          `Airlock: ${res.summary.historyHigh} version(s) in the agent's commits have high flags the files above do not show (see the notes). ` +
            `Apply refuses them until each commit is accepted: look at it with \`airlock diff ${name} --commit COMMIT PATH\`, then \`airlock apply ${name} --accept HISTORY:COMMIT\`.`,
        );
      }
    } catch (e) {
      void vscode.window.showErrorMessage(`Airlock review: ${(e as Error).message}`);
    }
  }

  async fileSide(sandbox: string, p: string, side: string): Promise<string> {
    const res = await this.call<ReviewFileContent>(Methods.reviewFile, { name: sandbox, path: p });
    if (res.binary) return '(airlock: not text and larger than 1 MiB: not shown here)\n';
    if (side === 'current' && (res.escaped || res.checkout)) {
      void vscode.window.showInformationMessage(sideNote(p, res));
    }
    return side === 'base' ? res.base ?? '' : res.current ?? '';
  }

  async openDiff(sandbox: string, p: string): Promise<void> {
    const left = ReviewContentProvider.uri(sandbox, p, 'base');
    const right = ReviewContentProvider.uri(sandbox, p, 'current');
    await vscode.commands.executeCommand('vscode.diff', left, right, `${p} (${sandbox}: base ↔ agent)`, { preview: true });
  }

  async apply(): Promise<void> {
    const name = this.review.sandbox;
    if (!name) return;
    const missing = unacknowledged(this.review.files, this.review.acknowledged);
    if (missing.length) {
      void vscode.window.showErrorMessage(
        `Airlock: acknowledge each high-risk flag first (${missing.length} left, e.g. ${missing[0].flag.rule} in ${missing[0].file}).`,
      );
      return;
    }
    const ok = await vscode.window.showWarningMessage(`Apply the reviewed changes of "${name}" to the host repository?`, { modal: true }, 'Apply');
    if (ok !== 'Apply') return;
    try {
      const res = await this.call<{ branch?: string }>(Methods.reviewApply, { name, accept: acceptedRules(this.review.files) });
      void vscode.window.showInformationMessage(`Airlock: applied${res?.branch ? ` to branch ${res.branch}` : ''}.`);
    } catch (e) {
      void vscode.window.showErrorMessage(`Airlock apply: ${(e as Error).message}`);
    }
  }

  async revert(item?: ReviewFileItem): Promise<void> {
    if (!item) return;
    const ok = await vscode.window.showWarningMessage(`Restore ${item.file.path} from the baseline?`, { modal: true }, 'Revert');
    if (ok !== 'Revert') return;
    await this.call(Methods.reviewRevert, { name: item.sandbox, paths: [item.file.path] });
    await this.showReview();
  }

  private prompting = new Set<string>();
  async promptApproval(a: Approval): Promise<void> {
    if (!a?.id || this.prompting.has(a.id)) return;
    this.prompting.add(a.id);
    try {
      const { title, detail } = describeApproval(a);
      // Deny first: it is the dialog's default button, so Enter never approves.
      const choice = await vscode.window.showWarningMessage(title, { modal: true, detail }, 'Deny', 'Approve');
      await this.call(Methods.approvalsDecide, { id: a.id, decision: decisionFor(choice), digest: a.digest });
    } catch (e) {
      this.output.appendLine(`approval ${a.id}: ${e}`);
    } finally {
      this.prompting.delete(a.id);
      await this.refresh();
    }
  }

  async validate(doc: vscode.TextDocument): Promise<void> {
    if (path.basename(doc.fileName) !== 'sandbox.hcl' && !doc.fileName.endsWith('.sandbox.hcl')) return;
    try {
      const diags = await runValidate(this.cli, doc.fileName, this.cliEnv());
      this.diagnostics.set(
        doc.uri,
        diags.map((d) => {
          const r = toRange(d);
          const diag = new vscode.Diagnostic(
            new vscode.Range(r.startLine, r.startCol, r.endLine, r.endCol),
            d.detail ? `${d.summary}: ${d.detail}` : d.summary,
            d.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Error,
          );
          diag.source = 'airlock';
          return diag;
        }),
      );
    } catch (e) {
      this.output.appendLine(String(e));
    }
  }

  register(ctx: vscode.ExtensionContext): void {
    const cmd = (id: string, f: (...a: any[]) => unknown) => ctx.subscriptions.push(vscode.commands.registerCommand(id, f));
    ctx.subscriptions.push(
      this.output,
      this.egress,
      this.diagnostics,
      this.status,
      vscode.window.registerTreeDataProvider('airlock.sandboxes', this.sandboxes),
      vscode.window.registerTreeDataProvider('airlock.review', this.review),
      vscode.window.registerTreeDataProvider('airlock.approvals', this.approvals),
      vscode.workspace.registerTextDocumentContentProvider(ReviewContentProvider.scheme, new ReviewContentProvider((s, p, side) => this.fileSide(s, p, side))),
      vscode.workspace.onDidOpenTextDocument((d) => this.validate(d)),
      vscode.workspace.onDidSaveTextDocument((d) => this.validate(d)),
    );
    cmd('airlock.refresh', () => this.refresh());
    cmd('airlock.up', () => this.up());
    cmd('airlock.stop', (i?: SandboxItem) => this.lifecycle(Methods.sandboxStop, i));
    cmd('airlock.start', (i?: SandboxItem) => this.lifecycle(Methods.sandboxStart, i));
    cmd('airlock.remove', (i?: SandboxItem) => this.lifecycle(Methods.sandboxRemove, i));
    cmd('airlock.attach', (i?: SandboxItem) => this.attach(i));
    cmd('airlock.terminal', (i?: SandboxItem) => this.terminal(i));
    cmd('airlock.review.show', (i?: SandboxItem) => this.showReview(i));
    cmd('airlock.review.openDiff', (s: string, p: string) => this.openDiff(s, p));
    cmd('airlock.review.acknowledge', (i: FlagItem) => i && this.review.acknowledge(i.file, i.flag));
    cmd('airlock.review.apply', () => this.apply());
    cmd('airlock.review.revert', (i?: ReviewFileItem) => this.revert(i));
    cmd('airlock.approvals.decide', (a: Approval) => this.promptApproval(a));
    vscode.workspace.textDocuments.forEach((d) => void this.validate(d));
    void this.refresh();
  }
}

export function activate(ctx: vscode.ExtensionContext): Airlock {
  const airlock = new Airlock();
  airlock.register(ctx);
  return airlock;
}

export function deactivate(): void {}

/** What the diff of one path shows beyond its bytes: escaped non-text, checkout conversions. */
export function sideNote(p: string, res: ReviewFileContent): string {
  const parts: string[] = [];
  if (res.escaped) parts.push('it is not text: NUL, control and non-UTF-8 bytes are shown as \\xNN, a backslash as \\\\');
  if (res.checkout) parts.push(`it is shown as checkout writes it (.gitattributes: ${res.checkout}), not as the repository stores it`);
  return `Airlock: ${p}: ${parts.join('; ')}.`;
}
