// sandbox.hcl diagnostics from `airlock validate --json`, as VS Code ranges.
import { execFile } from 'node:child_process';

/** One entry of `airlock validate --json` (see internal/config/doc.go). */
export interface ValidateDiagnostic {
  severity: string;
  summary: string;
  detail?: string;
  filename?: string;
  start?: { line: number; column: number };
  end?: { line: number; column: number };
}

export interface Range0 {
  startLine: number;
  startCol: number;
  endLine: number;
  endCol: number;
}

/** HCL positions are 1-based; VS Code's are 0-based. */
export function toRange(d: ValidateDiagnostic): Range0 {
  const s = d.start ?? { line: 1, column: 1 };
  const e = d.end ?? s;
  return {
    startLine: Math.max(0, s.line - 1),
    startCol: Math.max(0, s.column - 1),
    endLine: Math.max(0, e.line - 1),
    endCol: Math.max(0, e.column - 1),
  };
}

export function parseValidateOutput(stdout: string): ValidateDiagnostic[] {
  const text = stdout.trim();
  if (!text) return [];
  const parsed = JSON.parse(text);
  if (Array.isArray(parsed)) return parsed as ValidateDiagnostic[];
  if (parsed && Array.isArray(parsed.diagnostics)) return parsed.diagnostics as ValidateDiagnostic[];
  return [];
}

/** Runs the CLI; exit code 1 with JSON on stdout is the "has diagnostics" case. */
export function runValidate(airlock: string, file: string, env: NodeJS.ProcessEnv): Promise<ValidateDiagnostic[]> {
  return new Promise((resolve, reject) => {
    execFile(airlock, ['validate', '--json', '-f', file], { env, timeout: 15000 }, (err, stdout, stderr) => {
      try {
        resolve(parseValidateOutput(stdout));
      } catch {
        reject(new Error(err ? `airlock validate failed: ${stderr.trim() || err.message}` : 'airlock validate printed no JSON'));
      }
    });
  });
}
