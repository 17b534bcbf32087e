/**
 * The one client of the /1.0 API the dashboard uses: every page action is one of these calls, made with
 * the session cookie (same origin) and, for every state change, the session's CSRF token in
 * `X-CSRF-Token`. The shapes are those of docs/openapi.json and docs/api.md.
 */

export type Role = 'owner' | 'member' | 'operator';
export type Scope = 'jobs' | 'connectors';
export type JobStatus = 'enqueued' | 'processing' | 'completed' | 'failed';

export interface User {
  id: string;
  accountId: string;
  email: string;
  role: Role;
}

export interface Session {
  user: User;
  account: { id: string; name: string };
  csrfToken: string;
}

export interface FileDescriptor {
  name: string;
  type: string;
  format: string;
  mime: string;
  size: number;
  sha1: string;
}

export interface JobStep {
  name: string;
  startedAt?: string;
  finishedAt?: string;
  outcome?: string;
}

export interface Job {
  id: string;
  status: JobStatus;
  message?: string;
  url?: string;
  input?: FileDescriptor;
  output?: FileDescriptor;
  progress?: number;
  createdAt?: string;
  queuedAt?: string;
  startedAt?: string;
  finishedAt?: string;
  steps?: JobStep[];
  metadata?: Record<string, unknown>;
}

export interface JobFilters {
  status?: string;
  kind?: string;
  since?: string;
  until?: string;
  minSize?: string;
  maxSize?: string;
  q?: string;
  cursor?: string;
  limit?: number;
}

export interface Account {
  id: string;
  name: string;
  createdAt: string;
  rateLimit: { limit: number; remaining: number; reset: number; windowSeconds: number };
  usage: { requests: number; jobs: number; bytesIn: number; bytesOut: number };
}

export interface UsageDay {
  date: string;
  kind: string;
  requests: number;
  jobs: number;
  failures: number;
  bytesIn: number;
  bytesOut: number;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt?: string | null;
  revokedAt?: string | null;
}

export interface Connector {
  id: string;
  kind: string;
  name: string;
  hint: string;
  createdAt: string;
}

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  statusCode?: number;
  error?: string;
  durationMs: number;
}

export interface Delivery {
  id: string;
  jobId: string;
  url: string;
  state: 'pending' | 'sending' | 'succeeded' | 'failed';
  nextAttemptAt?: string;
  createdAt: string;
  attempts: DeliveryAttempt[];
}

export interface WebhookSecretState {
  hint: string;
  rotatedAt?: string | null;
  previousValidUntil?: string | null;
}

export interface DashboardUserRow {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  lastSignInAt?: string | null;
}

export interface OperatorAccount {
  id: string;
  name: string;
  rateLimit: number;
  disabled: boolean;
  createdAt?: string;
  usage?: { requests: number; jobs: number; bytesIn: number; bytesOut: number };
}

export interface RunningJob {
  id: string;
  accountId: string;
  kind?: string;
  name?: string;
  startedAt?: string;
  progress?: number;
}

export interface OperatorOverview {
  queue: { lanes: { lane: string; waiting: number; running: number; oldestWaitingSeconds: number }[] };
  /** Workers of the answering process per lane. */
  workers: { lane: string; workers: number }[];
  /** Every process's running jobs, grouped by the worker (host:pid:slot) that claimed them. */
  running: { worker: string; jobs: RunningJob[] }[];
  disk: { free: number; total: number; low: boolean };
  /** Jobs finished since the answering process started, by kind and status (its Prometheus counters). */
  jobs: { kind: string; status: string; count: number }[];
  webhooks: { outcome: string; count: number }[];
}

/** An answer other than 2xx, with the service's error body (`{success:false,status,id,message}`). */
export class ApiError extends Error {
  readonly status: number;
  readonly requestId: string | undefined;
  readonly fields: { field: string; message: string }[];

  constructor(status: number, body: unknown) {
    const error = (body ?? {}) as { message?: string; id?: string; errors?: ApiError['fields'] };
    super(error.message ?? `The server answered ${status}.`);
    this.status = status;
    this.requestId = error.id;
    this.fields = error.errors ?? [];
  }
}

let csrfToken = '';

/** The CSRF token of the current session (from sign-in or GET /1.0/session); sent with every change. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

type Body = FormData | Record<string, unknown> | undefined;

function headersFor(method: string, body: Body): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined && !(body instanceof FormData)) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  return headers;
}

async function call<T>(method: string, path: string, body?: Body): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: headersFor(method, body),
    body: body === undefined ? null : body instanceof FormData ? body : JSON.stringify(body),
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : undefined;
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed as T;
}

/** `?a=1&b=2` of the defined, non-empty values. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

const enc = encodeURIComponent;

/**
 * POST /1.0/upload with upload progress (fetch cannot report it, XMLHttpRequest can). Always asynchronous:
 * the job's progress is then followed over its event stream.
 */
export function upload(file: File, data: Record<string, unknown>, onProgress: (sent: number) => void) {
  return new Promise<Job>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/1.0/upload');
    for (const [name, value] of Object.entries(headersFor('POST', new FormData()))) {
      xhr.setRequestHeader(name, value);
    }
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onerror = () => reject(new Error('The upload was cut off (network error).'));
    xhr.onload = () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {
        parsed = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(parsed as Job);
      else reject(new ApiError(xhr.status, parsed));
    };
    const form = new FormData();
    form.append('data', JSON.stringify({ ...data, async: true }));
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

export const api = {
  session: {
    get: () => call<Session>('GET', '/1.0/session'),
    signIn: (email: string, password: string) => call<Session>('POST', '/1.0/session', { email, password }),
    signOut: () => call<void>('DELETE', '/1.0/session'),
    signOutEverywhere: () => call<void>('DELETE', '/1.0/sessions'),
  },
  invites: {
    get: (token: string) =>
      call<{ email: string; accountName: string; role: Role }>('GET', `/1.0/invites/${enc(token)}`),
    accept: (token: string, password: string) =>
      call<Session>('POST', `/1.0/invites/${enc(token)}/accept`, { password }),
    create: (email: string, role: Role, accountId?: string) =>
      call<{ token: string; url: string; expiresAt: string }>('POST', '/1.0/invites', {
        email,
        role,
        ...(accountId ? { accountId } : {}),
      }),
  },
  users: {
    list: () => call<{ users: DashboardUserRow[] }>('GET', '/1.0/users'),
    setRole: (id: string, role: Role) => call<DashboardUserRow>('PATCH', `/1.0/users/${enc(id)}`, { role }),
    remove: (id: string) => call<void>('DELETE', `/1.0/users/${enc(id)}`),
  },
  account: () => call<Account>('GET', '/1.0/account'),
  usage: (days: number) => call<{ days: UsageDay[] }>('GET', `/1.0/usage${query({ days })}`),
  jobs: {
    list: (filters: JobFilters) =>
      call<{ jobs: Job[]; nextCursor?: string }>('GET', `/1.0/jobs${query({ ...filters })}`),
    // `detail=true`: the record plus its timings and steps (the plain record keeps the decided shape).
    get: (id: string) => call<Job>('GET', `/1.0/jobs/${enc(id)}?detail=true`),
    eventsUrl: (id: string) => `/1.0/jobs/${enc(id)}/events`,
  },
  webhooks: {
    list: (params: { job?: string; cursor?: string; limit?: number }) =>
      call<{ deliveries: Delivery[]; nextCursor?: string }>('GET', `/1.0/webhooks${query(params)}`),
    replay: (id: string) => call<{ id: string; state: 'pending' }>('POST', `/1.0/webhooks/${enc(id)}/replay`),
  },
  keys: {
    list: () => call<{ keys: ApiKey[] }>('GET', '/1.0/keys'),
    create: (name: string, scopes: Scope[]) =>
      call<ApiKey & { key: string }>('POST', '/1.0/keys', { name, scopes }),
    revoke: (id: string) => call<void>('DELETE', `/1.0/keys/${enc(id)}`),
  },
  connectors: {
    list: () => call<{ connectors: Connector[] }>('GET', '/1.0/connectors'),
    create: (body: Record<string, unknown>) => call<Connector>('POST', '/1.0/connectors', body),
    test: (id: string, bucket: string, region?: string) =>
      call<{ ok: true }>('POST', `/1.0/connectors/${enc(id)}/test`, {
        bucket,
        ...(region ? { region } : {}),
      }),
    remove: (id: string) => call<void>('DELETE', `/1.0/connectors/${enc(id)}`),
  },
  webhookSecret: {
    get: () => call<WebhookSecretState>('GET', '/1.0/webhook-secret'),
    rotate: () =>
      call<{ secret: string; previousValidUntil?: string | null }>('POST', '/1.0/webhook-secret/rotate'),
  },
  operator: {
    accounts: () => call<{ accounts: OperatorAccount[] }>('GET', '/1.0/operator/accounts'),
    createAccount: (body: { name: string; rateLimit?: number; ownerEmail?: string }) =>
      call<OperatorAccount & { inviteUrl?: string; invite?: { url: string } }>(
        'POST',
        '/1.0/operator/accounts',
        body,
      ),
    updateAccount: (id: string, body: { rateLimit?: number; disabled?: boolean }) =>
      call<OperatorAccount>('PATCH', `/1.0/operator/accounts/${enc(id)}`, body),
    overview: () => call<OperatorOverview>('GET', '/1.0/operator/overview'),
  },
  openapi: () => call<OpenApiDocument>('GET', '/1.0/openapi.json'),
};

/** What the Try-it forms read of the OpenAPI document. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
}
