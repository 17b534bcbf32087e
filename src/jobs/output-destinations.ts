/**
 * Where a job's output goes when the request names an external store (`store`): checked when the job is
 * submitted (the connector exists for the account, the target obeys its kind's rules) and written when it
 * is published. Implemented by the connector service; jobs know nothing of connectors or providers.
 */
export interface OutputDestinations {
  /** Throws NotFoundError (`store.id`) or ValidationError (one entry per bad `store.*` field). */
  check(accountId: string, store: Record<string, unknown>): Promise<void>;
  /** Writes the file; resolves to the object's URL. Throws StoreWriteError when the store fails the write. */
  deliver(
    accountId: string,
    store: Record<string, unknown>,
    file: { path: string; name: string; mime: string },
    signal: AbortSignal,
  ): Promise<{ url: string }>;
}
