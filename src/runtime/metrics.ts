/**
 * Prometheus metrics of one process (prom-client), served on the ops listener (ops-server.ts), apart from
 * the API: request rates and latencies per route, queue depth, job outcomes, durations and bytes saved per
 * kind and format, webhook attempt outcomes, and the runtime's own (event-loop lag, heap, CPU). Each layer
 * reports through its own small observer interface; only this file knows prom-client.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestObserver } from '../http/app.ts';
import type { MetricTotals } from '../http/routes/operator.ts';
import type { FinishedJob, JobObserver } from '../jobs/job-context.ts';
import type { JobQueue, LaneStats } from '../jobs/job-queue.ts';

export class ServiceMetrics implements RequestObserver, JobObserver, MetricTotals {
  readonly registry = new Registry();
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #latency: Histogram<'method' | 'route'>;
  readonly #jobs: Counter<'kind' | 'format' | 'status'>;
  readonly #jobSeconds: Histogram<'kind' | 'status'>;
  readonly #bytesIn: Counter<'kind' | 'format'>;
  readonly #bytesSaved: Counter<'kind' | 'format'>;
  readonly #webhooks: Counter<'outcome'>;

  constructor(queue: JobQueue, labels: { role: string }) {
    const registers = [this.registry];
    this.registry.setDefaultLabels(labels);
    collectDefaultMetrics({ register: this.registry, prefix: 'presso_' });
    this.#requests = new Counter({
      name: 'presso_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.#latency = new Histogram({
      name: 'presso_http_request_duration_seconds',
      help: 'Time to answer HTTP requests (a synchronous job included)',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    // Both gauges come from one stats() call per scrape.
    let stats: Promise<LaneStats[]> | undefined;
    const current = () => {
      stats ??= queue.stats().finally(() => {
        setImmediate(() => {
          stats = undefined;
        });
      });
      return stats;
    };
    new Gauge({
      name: 'presso_queue_jobs',
      help: 'Jobs in the queue by lane and state (waiting, running); the whole deployment’s in scaled mode',
      labelNames: ['lane', 'state'],
      registers,
      async collect() {
        for (const lane of await current()) {
          this.set({ lane: lane.lane, state: 'waiting' }, lane.waiting);
          this.set({ lane: lane.lane, state: 'running' }, lane.running);
        }
      },
    });
    new Gauge({
      name: 'presso_queue_oldest_waiting_seconds',
      help: 'How long the oldest waiting job of each lane has waited',
      labelNames: ['lane'],
      registers,
      async collect() {
        for (const lane of await current()) this.set({ lane: lane.lane }, lane.oldestWaitingSeconds);
      },
    });
    this.#jobs = new Counter({
      name: 'presso_jobs_finished_total',
      help: 'Jobs finished by this process, by input kind, input format and outcome',
      labelNames: ['kind', 'format', 'status'],
      registers,
    });
    this.#jobSeconds = new Histogram({
      name: 'presso_job_duration_seconds',
      help: 'Time a job took from its start on a worker to its end',
      labelNames: ['kind', 'status'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
      registers,
    });
    this.#bytesIn = new Counter({
      name: 'presso_job_input_bytes_total',
      help: 'Input bytes of completed jobs',
      labelNames: ['kind', 'format'],
      registers,
    });
    this.#bytesSaved = new Counter({
      name: 'presso_job_bytes_saved_total',
      help: 'Input bytes minus output bytes of completed jobs (conversions that grew count nothing)',
      labelNames: ['kind', 'format'],
      registers,
    });
    this.#webhooks = new Counter({
      name: 'presso_webhook_attempts_total',
      help: 'Webhook attempts by outcome: succeeded, retry, failed (given up)',
      labelNames: ['outcome'],
      registers,
    });
  }

  requestFinished(method: string, route: string, status: number, seconds: number): void {
    this.#requests.inc({ method, route, status: String(status) });
    this.#latency.observe({ method, route }, seconds);
  }

  jobFinished(job: FinishedJob): void {
    this.#jobs.inc({ kind: job.kind, format: job.format, status: job.status });
    this.#jobSeconds.observe({ kind: job.kind, status: job.status }, job.seconds);
    if (job.status !== 'completed') return;
    this.#bytesIn.inc({ kind: job.kind, format: job.format }, job.bytesIn);
    this.#bytesSaved.inc({ kind: job.kind, format: job.format }, Math.max(0, job.bytesIn - job.bytesOut));
  }

  webhookOutcome(outcome: 'succeeded' | 'retry' | 'failed'): void {
    this.#webhooks.inc({ outcome });
  }

  /** Totals since this process started, for the operator's overview: jobs by kind and outcome, webhook attempts. */
  async totals(): Promise<{
    jobs: { kind: string; status: string; count: number }[];
    webhooks: { outcome: string; count: number }[];
  }> {
    const jobs = new Map<string, { kind: string; status: string; count: number }>();
    for (const { labels, value } of (await this.#jobs.get()).values) {
      const kind = String(labels.kind);
      const status = String(labels.status);
      const entry = jobs.get(`${kind}/${status}`) ?? { kind, status, count: 0 };
      entry.count += value;
      jobs.set(`${kind}/${status}`, entry);
    }
    const webhooks = (await this.#webhooks.get()).values.map(({ labels, value }) => ({
      outcome: String(labels.outcome),
      count: value,
    }));
    return { jobs: [...jobs.values()], webhooks };
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
