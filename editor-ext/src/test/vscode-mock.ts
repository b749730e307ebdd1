// A minimal stand-in for the `vscode` module so the extension's logic runs
// under node's test runner. Calls the tests do not expect throw, so a missing
// piece fails loudly instead of returning nothing.
import Module from 'node:module';

export interface Recorded {
  commands: Map<string, (...a: any[]) => unknown>;
  executed: { id: string; args: unknown[] }[];
  messages: { kind: string; text: string; opts?: any; items: string[] }[];
  answer: (kind: string, text: string, items: string[]) => string | undefined;
  diagnostics: Map<string, any[]>;
  extensions: Set<string>;
}

export const rec: Recorded = {
  commands: new Map(),
  executed: [],
  messages: [],
  answer: () => {
    throw new Error('unexpected dialog');
  },
  diagnostics: new Map(),
  extensions: new Set(),
};

class EventEmitter<T> {
  private fs: ((e: T) => void)[] = [];
  event = (f: (e: T) => void) => {
    this.fs.push(f);
    return { dispose() {} };
  };
  fire(e: T) {
    this.fs.forEach((f) => f(e));
  }
}
class TreeItem {
  description?: string;
  tooltip?: string;
  contextValue?: string;
  iconPath?: unknown;
  command?: unknown;
  constructor(public label: string, public collapsibleState = 0) {}
}
class Uri {
  constructor(public scheme: string, public authority: string, public path: string, public query: string) {}
  static from(c: { scheme: string; authority?: string; path?: string; query?: string }) {
    return new Uri(c.scheme, c.authority ?? '', c.path ?? '', c.query ?? '');
  }
  static parse(s: string) {
    const u = new URL(s);
    return new Uri(u.protocol.replace(/:$/, ''), u.host, decodeURIComponent(u.pathname), u.search.replace(/^\?/, ''));
  }
  toString() {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? '?' + this.query : ''}`;
  }
}
class Range {
  constructor(public startLine: number, public startCol: number, public endLine: number, public endCol: number) {}
}
class Diagnostic {
  source?: string;
  constructor(public range: Range, public message: string, public severity: number) {}
}
const channel = () => ({ appendLine() {}, dispose() {}, show() {} });
const dialog = (kind: string) => async (text: string, ...rest: any[]) => {
  const opts = typeof rest[0] === 'object' ? rest.shift() : undefined;
  rec.messages.push({ kind, text, opts, items: rest });
  return rest.length ? rec.answer(kind, text, rest) : undefined;
};

export const vscode = {
  EventEmitter,
  TreeItem,
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  ThemeIcon: class {
    constructor(public id: string) {}
  },
  Uri,
  Range,
  Diagnostic,
  DiagnosticSeverity: { Error: 0, Warning: 1 },
  StatusBarAlignment: { Left: 1 },
  window: {
    createOutputChannel: channel,
    createStatusBarItem: () => ({ text: '', show() {}, dispose() {} }),
    registerTreeDataProvider: () => ({ dispose() {} }),
    showErrorMessage: dialog('error'),
    showWarningMessage: dialog('warning'),
    showInformationMessage: dialog('info'),
    showQuickPick: async () => {
      throw new Error('unexpected quick pick');
    },
    createTerminal: () => ({ show() {} }),
  },
  languages: {
    createDiagnosticCollection: () => ({
      set: (uri: Uri, d: any[]) => rec.diagnostics.set(uri.toString(), d),
      dispose() {},
    }),
  },
  workspace: {
    getConfiguration: () => ({ get: () => undefined }),
    registerTextDocumentContentProvider: () => ({ dispose() {} }),
    onDidOpenTextDocument: () => ({ dispose() {} }),
    onDidSaveTextDocument: () => ({ dispose() {} }),
    textDocuments: [],
    findFiles: async () => [],
  },
  commands: {
    registerCommand: (id: string, f: (...a: any[]) => unknown) => {
      rec.commands.set(id, f);
      return { dispose() {} };
    },
    executeCommand: async (id: string, ...args: unknown[]) => {
      rec.executed.push({ id, args });
    },
  },
  extensions: { getExtension: (id: string) => (rec.extensions.has(id) ? { id } : undefined) },
};

// Route require('vscode') to the mock.
const M = Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown };
const origLoad = M._load;
M._load = function (req: string, ...rest: unknown[]) {
  if (req === 'vscode') return vscode;
  return origLoad.call(this, req, ...rest);
};
