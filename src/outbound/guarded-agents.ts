/**
 * Node http and https Agents that apply the outbound address guard to every connection they open. The object
 * store SDKs (AWS SDK v3, @azure/storage-blob) and the GCS client bring their own HTTP stack instead of the
 * OutboundClient's undici Agent; handed these agents, every socket they open is checked when it is opened,
 * on every call: a literal IP before connecting, a name through the guard's own lookup (resolveChecked),
 * which judges every address it resolves to and hands the socket exactly those, so what is checked is what is
 * dialled (no DNS rebinding between a check and the connection). Unix socket paths are refused outright.
 *
 * SDKs wrap a connection error in errors of their own (and may retry it), so the first refusal is also kept
 * here: the caller asks `refusal` after a failure to say which setting pointed at a refused address.
 */
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ParsedCidr } from './address-guard.ts';
import { addressRefusal } from './address-guard.ts';
import { AddressRefusedError, resolveChecked, unbracket } from './guarded-connector.ts';

/** Sockets these agents opened (after the guard let them): the tests prove with it that no SDK bypasses them. */
const guardedSockets = new WeakSet<object>();

/** True when `socket` was opened by a GuardedAgents agent, after the guard allowed its address. */
export function isGuardedSocket(socket: object): boolean {
  return guardedSockets.has(socket);
}

type OnCreate = (error: Error | null, stream: Duplex) => void;
type Create = (options: http.ClientRequestArgs, callback?: OnCreate) => Duplex | null | undefined;

class Guard {
  readonly #allow: ParsedCidr[];
  readonly #onRefused: (error: AddressRefusedError) => void;
  readonly lookup: LookupFunction;

  constructor(allow: ParsedCidr[], onRefused: (error: AddressRefusedError) => void) {
    this.#allow = allow;
    this.#onRefused = onRefused;
    // net.connect and tls.connect call this instead of dns.lookup for a name, and connect to what it answers.
    this.lookup = (hostname, options, callback) => {
      const family = typeof options.family === 'number' ? options.family : undefined;
      resolveChecked(hostname, this.#allow, family, (error, addresses: LookupAddress[]) => {
        if (error instanceof AddressRefusedError) this.#onRefused(error);
        if (error) return callback(error as NodeJS.ErrnoException, '', 0);
        if (options.all) return callback(null, addresses);
        const first = addresses[0]!;
        callback(null, first.address, first.family);
      });
    };
  }

  /** The agent's createConnection, with the guard in front of `create` (the base class's). */
  connect(options: http.ClientRequestArgs, callback: OnCreate | undefined, create: Create) {
    const refuse = (error: Error) => {
      // The agent's callback reports the error on the request; returning nothing means "no socket".
      callback?.(error, undefined as unknown as Duplex);
      return undefined;
    };
    if (options.socketPath !== undefined) {
      const error = new AddressRefusedError('a Unix socket', options.socketPath, 'not a network address');
      this.#onRefused(error);
      return refuse(error);
    }
    const host = unbracket(String(options.host ?? options.hostname ?? 'localhost'));
    if (isIP(host) !== 0) {
      const reason = addressRefusal(host, this.#allow);
      if (reason !== undefined) {
        const error = new AddressRefusedError(host, host, reason);
        this.#onRefused(error);
        return refuse(error);
      }
    }
    const socket = create({ ...options, host, lookup: this.lookup }, callback);
    if (socket) guardedSockets.add(socket);
    return socket;
  }
}

class GuardedHttpAgent extends http.Agent {
  readonly #guard: Guard;

  constructor(guard: Guard, options: http.AgentOptions) {
    super(options);
    this.#guard = guard;
  }

  override createConnection(options: http.ClientRequestArgs, callback?: OnCreate) {
    return this.#guard.connect(options, callback, (o, c) => super.createConnection(o, c));
  }
}

class GuardedHttpsAgent extends https.Agent {
  readonly #guard: Guard;

  constructor(guard: Guard, options: https.AgentOptions) {
    super(options);
    this.#guard = guard;
  }

  override createConnection(options: http.ClientRequestArgs, callback?: OnCreate) {
    return this.#guard.connect(options, callback, (o, c) => super.createConnection(o, c));
  }
}

/** One pair of guarded agents, for one piece of work (a probe, a delivery); `destroy()` closes their sockets. */
export class GuardedAgents {
  readonly http: http.Agent;
  readonly https: https.Agent;
  /** The connect time-out the SDKs are given (PRESSO_FETCH_CONNECT_TIMEOUT). */
  readonly connectTimeoutMs: number;
  #refusal: AddressRefusedError | undefined;

  constructor(allow: ParsedCidr[], connectTimeoutMs: number) {
    const guard = new Guard(allow, (error) => {
      this.#refusal ??= error;
    });
    // Keep-alive within one piece of work (S3 parts, a GCS token then its upload); destroy() ends it.
    this.http = new GuardedHttpAgent(guard, { keepAlive: true });
    this.https = new GuardedHttpsAgent(guard, { keepAlive: true });
    this.connectTimeoutMs = connectTimeoutMs;
  }

  /** The first connection the guard refused, if any. */
  get refusal(): AddressRefusedError | undefined {
    return this.#refusal;
  }

  /** The agent for a URL's scheme (`http:` or `https:`). */
  forUrl(url: string | URL): http.Agent {
    return new URL(url).protocol === 'http:' ? this.http : this.https;
  }

  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}
