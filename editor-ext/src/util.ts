// Small pure helpers shared by the views (no vscode import, unit-testable).
import type { ReviewFile, Flag, SandboxInfo } from './protocol';

export function sandboxDescription(s: SandboxInfo): string {
  const ports = (s.ports ?? []).map((p) => `${p.bind ?? '127.0.0.1'}:${p.host}→${p.guest}`).join(' ');
  return [s.state, s.backend, s.mode, ports].filter(Boolean).join(' · ');
}

export function remoteAuthority(sshHost: string): string {
  return `ssh-remote+${sshHost}`;
}

export function remoteFolderUri(sshHost: string, folder: string): string {
  const p = folder.startsWith('/') ? folder : '/' + folder;
  return `vscode-remote://${remoteAuthority(sshHost)}${p}`;
}

export function worstSeverity(flags: Flag[] | undefined): string {
  const order = ['high', 'medium', 'info'] as const;
  for (const sev of order) if ((flags ?? []).some((f) => f.severity === sev)) return sev;
  return '';
}

/** A key identifying one high flag, for one-by-one acknowledgement. */
export function flagKey(file: string, f: Flag): string {
  return `${file}\u0000${f.rule}\u0000${f.line ?? 0}`;
}

/** The high flags that still need acknowledging before Apply. */
export function unacknowledged(files: ReviewFile[], acknowledged: Set<string>): { file: string; flag: Flag }[] {
  const out: { file: string; flag: Flag }[] = [];
  for (const file of files)
    for (const flag of file.flags ?? [])
      if (flag.severity === 'high' && !acknowledged.has(flagKey(file.path, flag))) out.push({ file: file.path, flag });
  return out;
}

/** The rule IDs to pass as --accept / accept[] once every high flag is acknowledged. */
export function acceptedRules(files: ReviewFile[]): string[] {
  const ids = new Set<string>();
  for (const file of files) for (const flag of file.flags ?? []) if (flag.severity === 'high') ids.add(flag.rule);
  return [...ids].sort();
}

export function secondsLeft(deadline: string | undefined, now: number = Date.now()): number {
  if (!deadline) return 0;
  const t = Date.parse(deadline);
  return Number.isNaN(t) ? 0 : Math.max(0, Math.round((t - now) / 1000));
}
