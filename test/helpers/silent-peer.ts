/**
 * A TCP peer on 127.0.0.1 that accepts connections, reads what the client sends (so it sees the client
 * close) and never answers: a Bolt server that hangs (test/reliability/neo4j-guards.test.ts,
 * test/reliability/slow/neo4j-silent-peer.test.ts).
 */
import net from 'node:net';

export interface SilentPeer {
  port: number;
  /** Connections still open. */
  open(): number;
  /** Ends the open connections and stops listening. */
  close(): Promise<void>;
}

export async function silentPeer(): Promise<SilentPeer> {
  const open = new Set<net.Socket>();
  const server = net.createServer((s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => undefined);
    s.resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    open: () => open.size,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
