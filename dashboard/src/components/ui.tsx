/** Small building blocks every page uses: the page title, loading and error states, copy, status. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';

/**
 * The page's heading. It takes the focus when the page opens, so a keyboard or screen-reader user lands
 * on the new page instead of staying on the link they followed.
 */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = error.fields.map((f) => `${f.field}: ${f.message}`).join('; ');
    return `${error.message}${fields ? ` (${fields})` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export function ErrorMessage({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p class="error" role="alert">
      {describeError(error)}
    </p>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when the page opens (and on `reload`), keeping its answer or its error. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!current) return;
        setError(failure);
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [round, ...deps]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data, error, loading, reload };
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** Copies `text` and says so (in a live region, so a screen reader hears it too). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied.');
    } catch {
      setCopied('Copy failed: select the text and copy it.');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span role="status" class="muted">
        {copied}
      </span>
    </span>
  );
}

/** A one-time secret: shown in full until the user leaves the page, with a copy button. */
export function ShownOnce({ label, secret }: { label: string; secret: string }) {
  return (
    <section class="once" aria-label={label}>
      <p>
        <strong>{label}</strong>: copy it now, it will not be shown again.
      </p>
      <code class="secret">{secret}</code> <CopyButton text={secret} label="Copy" />
    </section>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}

/** Runs an action from a button: busy while it runs, its error shown next to it. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}

/**
 * A table's sideways-scrolling frame on a phone. It takes the focus (a labelled region), so keyboard users
 * can scroll it even when the table holds no control of its own.
 */
export function ScrollArea({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
    <section class="scroll" tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}
