/**
 * Caps on open connections, in total and per client address, checked when a connection is accepted
 * and before a byte is read: a client that opens connections without finishing requests (slowloris)
 * runs out of its share, not the server's file descriptors. Trusted proxies are exempt from the
 * per-address cap, since every client behind them shares their address.
 */
import net from 'node:net';

export interface ConnectionCaps {
  /** Open connections at once, all clients together; 0 turns the cap off. */
  maxTotal: number;
  /** Open connections at once from one address; 0 turns the cap off. */
  maxPerAddress: number;
  /** Addresses or CIDRs not held to maxPerAddress (the trusted proxies). */
  exempt: string[];
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client. */
function plainAddress(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}

function blockListOf(entries: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = net.isIPv6(address) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

export class ConnectionCounter {
  readonly #caps: ConnectionCaps;
  readonly #exempt: net.BlockList;
  readonly #perAddress = new Map<string, number>();
  #total = 0;

  constructor(caps: ConnectionCaps) {
    this.#caps = caps;
    this.#exempt = blockListOf(caps.exempt);
  }

  /** Counts the socket in and returns true, or returns false when a cap is reached (count unchanged). */
  admit(socket: net.Socket): boolean {
    const address = plainAddress(socket.remoteAddress);
    const held = this.#perAddress.get(address) ?? 0;
    if (this.#caps.maxTotal > 0 && this.#total >= this.#caps.maxTotal) return false;
    if (this.#caps.maxPerAddress > 0 && held >= this.#caps.maxPerAddress && !this.#isExempt(address)) {
      return false;
    }
    this.#total++;
    this.#perAddress.set(address, held + 1);
    socket.once('close', () => {
      this.#total--;
      const left = (this.#perAddress.get(address) ?? 1) - 1;
      if (left > 0) this.#perAddress.set(address, left);
      else this.#perAddress.delete(address);
    });
    return true;
  }

  #isExempt(address: string): boolean {
    return this.#exempt.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');
  }
}
