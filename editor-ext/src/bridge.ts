// The bridge client: JSON-RPC 2.0 with Content-Length framing over
// $AIRLOCK_HOME/bridge.sock (vscode-jsonrpc speaks the same framing as the
// Go side's jsonrpc2.VSCodeObjectCodec).
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  createMessageConnection,
  MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';

export function airlockHome(env: NodeJS.ProcessEnv = process.env, configured = ''): string {
  if (configured) return configured;
  if (env.AIRLOCK_HOME) return env.AIRLOCK_HOME;
  return path.join(env.HOME || os.homedir(), '.airlock');
}

export function socketPath(home: string): string {
  return path.join(home, 'bridge.sock');
}

export type NotificationHandler = (method: string, params: unknown) => void;

/** A connection to `airlock bridge`. */
export class BridgeClient {
  private constructor(private readonly conn: MessageConnection, private readonly socket: net.Socket) {}

  static connect(sock: string, timeoutMs = 5000): Promise<BridgeClient> {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection(sock);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`bridge did not answer on ${sock}`));
      }, timeoutMs);
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        const conn = createMessageConnection(new StreamMessageReader(socket), new StreamMessageWriter(socket));
        conn.listen();
        resolve(new BridgeClient(conn, socket));
      });
    });
  }

  call<T>(method: string, params?: unknown): Promise<T> {
    return this.conn.sendRequest<T>(method, params ?? {});
  }

  /** Subscribes to bridge notifications (sandbox.changed, approval.requested, egress.denied). */
  async subscribe(handler: NotificationHandler): Promise<void> {
    this.conn.onNotification((method: string, params: unknown) => handler(method, params));
    await this.call('bridge.subscribe', {});
  }

  onClose(f: () => void): void {
    this.conn.onClose(f);
  }

  dispose(): void {
    this.conn.dispose();
    this.socket.destroy();
  }
}
