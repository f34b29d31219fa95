/**
 * A TCP proxy for network-fault tests (issue 5): forwards 127.0.0.1:<port> to a target port and can
 * break the path the ways a network breaks:
 *   - `cut(n, 'reset' | 'silent', { once })`: after n more bytes from the client side, either reset the
 *     connection (RST on both sides: the server "going away") or stop forwarding while keeping the
 *     sockets open (a silent partition: no RST, no FIN, nothing ever arrives). With `once` only the
 *     connection that crossed the limit is hit and new connections pass (a transient fault); without it
 *     the fault stays until {@link TcpProxy.heal}: 'reset' resets every new connection at once (the server is
 *     gone; each attempt is counted in {@link TcpProxy.rejected}, so a test sees the client retry without
 *     timing it), 'silent' accepts new connections and forwards nothing.
 *   - `heal()`: forward normally again.
 */
import net from 'node:net';

export class TcpProxy {
  port = 0;
  /** Bytes forwarded from clients to the target since the start. */
  bytesUp = 0;
  /** Connections accepted since the start. */
  connections = 0;
  /** Connections reset on arrival while the server was gone ('reset' without `once`). */
  rejected = 0;
  private server: net.Server | null = null;
  private readonly pairs = new Set<{ c: net.Socket; s: net.Socket; silent: boolean }>();
  private budget = Infinity;
  private fault: { how: 'reset' | 'silent'; once: boolean } | null = null;
  /** When set, new connections are accepted and blackholed. */
  private silentAll = false;
  /** When set, new connections are reset on arrival (the server is gone). */
  private gone = false;

  constructor(private readonly targetPort: number) {}

  async start(): Promise<this> {
    const srv = net.createServer((c) => this.accept(c));
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = srv;
    this.port = (srv.address() as net.AddressInfo).port;
    return this;
  }

  get uri(): string {
    return `bolt://127.0.0.1:${this.port}`;
  }

  /** Arms a fault after `n` more client bytes. */
  cut(n: number, how: 'reset' | 'silent', opts: { once?: boolean } = {}): void {
    this.budget = n;
    this.fault = { how, once: opts.once ?? false };
  }

  /** Forward normally again. */
  async heal(): Promise<void> {
    this.budget = Infinity;
    this.fault = null;
    this.silentAll = false;
    this.gone = false;
    for (const p of this.pairs) if (p.silent) this.drop(p, false);
  }

  /** Closes everything. */
  async stop(): Promise<void> {
    for (const p of this.pairs) this.drop(p, false);
    const srv = this.server;
    this.server = null;
    if (srv) await new Promise<void>((r) => srv.close(() => r()));
  }

  private drop(p: { c: net.Socket; s: net.Socket }, reset: boolean): void {
    for (const x of [p.c, p.s]) {
      if (x.destroyed) continue;
      if (reset && typeof x.resetAndDestroy === 'function') x.resetAndDestroy();
      else x.destroy();
    }
  }

  private accept(c: net.Socket): void {
    if (this.gone) {
      this.rejected++;
      c.on('error', () => undefined);
      if (typeof c.resetAndDestroy === 'function') c.resetAndDestroy();
      else c.destroy();
      return;
    }
    this.connections++;
    const s = net.connect(this.targetPort, '127.0.0.1');
    const pair = { c, s, silent: this.silentAll };
    this.pairs.add(pair);
    c.on('error', () => undefined);
    s.on('error', () => undefined);
    const forget = () => {
      this.pairs.delete(pair);
      if (!pair.silent) this.drop(pair, false);
    };
    c.on('close', forget);
    s.on('close', forget);
    c.on('data', (d: Buffer) => {
      if (pair.silent) return;
      if (d.length < this.budget) {
        this.budget -= d.length;
        this.bytesUp += d.length;
        s.write(d);
        return;
      }
      // the fault point: forward what fits, then break
      const fit = Number.isFinite(this.budget) ? Math.max(0, this.budget) : d.length;
      if (fit > 0) s.write(d.subarray(0, fit));
      this.bytesUp += fit;
      const f = this.fault!;
      this.budget = Infinity;
      if (f.once) this.fault = null;
      if (f.how === 'silent') {
        pair.silent = true;
        if (!f.once) this.silentAll = true;
      } else {
        this.drop(pair, true);
        if (!f.once) {
          // the whole server goes away
          for (const p of this.pairs) this.drop(p, true);
          this.gone = true;
        }
      }
    });
    s.on('data', (d: Buffer) => {
      if (!pair.silent) c.write(d);
    });
  }
}
