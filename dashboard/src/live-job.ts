/**
 * Follows one job over its server-sent events (`GET /1.0/jobs/:id/events`: `status` and `progress`
 * events until it ends), then reads the finished record once. No polling loop; EventSource sends the
 * session cookie and reconnects by itself if the stream drops before the end.
 */
import { api, type Job, type JobStatus } from './api.ts';

const ENDED: JobStatus[] = ['completed', 'failed'];

export function followJob(id: string, onUpdate: (job: Partial<Job>) => void): () => void {
  const source = new EventSource(api.jobs.eventsUrl(id));
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    source.close();
    api.jobs
      .get(id)
      .then(onUpdate, (error: unknown) =>
        onUpdate({ status: 'failed', message: error instanceof Error ? error.message : String(error) }),
      );
  };
  const read = (event: MessageEvent<string>) => {
    try {
      return JSON.parse(event.data) as Partial<Job>;
    } catch {
      return undefined;
    }
  };
  source.addEventListener('status', (event) => {
    const data = read(event as MessageEvent<string>);
    if (!data) return;
    onUpdate(data);
    if (data.status && ENDED.includes(data.status)) finish();
  });
  source.addEventListener('progress', (event) => {
    const data = read(event as MessageEvent<string>);
    if (data && typeof data.progress === 'number') onUpdate({ progress: data.progress });
  });
  // The server closes the stream when the job ends; a close seen as an error then is the end, not a fault.
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) finish();
  });
  return () => {
    finished = true;
    source.close();
  };
}
