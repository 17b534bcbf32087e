/**
 * `#/try`: drop files (or pick them), set options per kind (forms read from the OpenAPI document), optionally
 * a connector to write the outputs to, then each file is uploaded with the session and followed live.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Connector, upload } from '../api.ts';
import { SchemaForm } from '../components/schema-form.tsx';
import { type TryItem, TryResult } from '../components/try-result.tsx';
import { ErrorMessage, Loading, PageTitle, useLoad } from '../components/ui.tsx';
import { followJob } from '../live-job.ts';
import { kindForms, type Values } from '../schema-fields.ts';
import { downloadAll } from '../try-download.ts';

/** Uploads at once: the server allows a few per key; the rest wait their turn here. */
const PARALLEL = 3;

let nextItemId = 0;

function StoreOptions(props: { connectors: Connector[]; store: Values; onChange: (store: Values) => void }) {
  const { connectors, store, onChange } = props;
  const set = (name: string, value: string) => {
    const copy: Values = { ...store };
    if (value) copy[name] = value;
    else delete copy[name];
    onChange(copy);
  };
  return (
    <fieldset>
      <legend>Write the outputs to a store (optional)</legend>
      <div class="field">
        <label for="store-id">Connector</label>
        <select
          id="store-id"
          value={String(store.id ?? '')}
          onChange={(e) => set('id', e.currentTarget.value)}
        >
          <option value="">None: download links from this server</option>
          {connectors.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({c.kind})
            </option>
          ))}
        </select>
      </div>
      {store.id ? (
        <>
          <div class="field">
            <label for="store-bucket">Bucket</label>
            <input
              id="store-bucket"
              required
              value={String(store.bucket ?? '')}
              onInput={(e) => set('bucket', e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="store-region">Region (S3, B2, Spaces)</label>
            <input
              id="store-region"
              value={String(store.region ?? '')}
              onInput={(e) => set('region', e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="store-path">Path (a folder ending in /, or an object name)</label>
            <input
              id="store-path"
              value={String(store.path ?? '')}
              onInput={(e) => set('path', e.currentTarget.value)}
            />
          </div>
        </>
      ) : null}
    </fieldset>
  );
}

export function TryPage() {
  const doc = useLoad(() => api.openapi());
  const connectors = useLoad(() => api.connectors.list());
  const forms = doc.data ? kindForms(doc.data) : [];
  const [kind, setKind] = useState('image');
  const [options, setOptions] = useState<Values>({});
  const [store, setStore] = useState<Values>({});
  const [items, setItems] = useState<TryItem[]>([]);
  const [dragging, setDragging] = useState(false);
  const [zipError, setZipError] = useState<unknown>(undefined);
  const queue = useRef<TryItem[]>([]);
  const running = useRef(0);
  const stops = useRef<(() => void)[]>([]);

  useEffect(
    () => () => {
      for (const stop of stops.current) stop();
    },
    [],
  );

  const update = (id: number, change: Partial<TryItem>) =>
    setItems((list) => list.map((item) => (item.id === id ? { ...item, ...change } : item)));

  const pump = () => {
    while (running.current < PARALLEL && queue.current.length > 0) {
      const item = queue.current.shift()!;
      running.current += 1;
      const done = () => {
        running.current -= 1;
        pump();
      };
      update(item.id, { phase: 'uploading' });
      upload(item.file, item.data, (sent) => update(item.id, { sent }))
        .then((job) => {
          update(item.id, { phase: 'processing', job });
          return new Promise<void>((resolve) => {
            const stop = followJob(job.id, (change) => {
              setItems((list) =>
                list.map((it) => (it.id === item.id ? { ...it, job: { ...it.job!, ...change } } : it)),
              );
              if (change.status === 'completed' || change.status === 'failed') {
                if (change.input || change.message) {
                  update(item.id, { phase: 'done' });
                  resolve();
                }
              }
            });
            stops.current.push(stop);
          });
        })
        .catch((error: unknown) => update(item.id, { phase: 'done', error }))
        .finally(done);
    }
  };

  const add = (files: FileList | null) => {
    if (!files || files.length === 0) return;
    const data: Values = { ...options };
    if (store.id) data.store = store;
    const added = [...files].map(
      (file): TryItem => ({
        id: nextItemId++,
        file,
        data,
        phase: 'queued',
        sent: 0,
        before: URL.createObjectURL(file),
      }),
    );
    setItems((list) => [...added, ...list]);
    queue.current.push(...added);
    pump();
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    add(event.dataTransfer?.files ?? null);
  };
  const current = forms.find((f) => f.kind === kind) ?? forms[0];
  const finished = items.filter((item) => item.job?.status === 'completed' && item.job.url);

  return (
    <>
      <PageTitle>Try it</PageTitle>
      <p>
        Drop files of any kind the service takes. Each is uploaded with the options below and processed like
        an API request; sizes, savings and the result appear as each job finishes.
      </p>
      <section aria-labelledby="options-title" class="card">
        <h2 id="options-title">Options</h2>
        {doc.loading && <Loading what="the parameter forms" />}
        <ErrorMessage error={doc.error} />
        {forms.length > 0 && (
          <>
            <fieldset class="tabs">
              <legend class="visually-hidden">Options for the kind</legend>
              {forms.map((f) => (
                <button
                  key={f.kind}
                  type="button"
                  aria-pressed={f.kind === current?.kind}
                  onClick={() => setKind(f.kind)}
                >
                  {f.form.label}
                </button>
              ))}
            </fieldset>
            {current && (
              <div>
                <p class="muted">
                  {current.description ?? `Parameters for ${current.kind} files.`} Empty fields keep the
                  server's defaults; each file uses the options of its own kind.
                </p>
                <SchemaForm group={current.form} values={options} onChange={setOptions} />
              </div>
            )}
          </>
        )}
        {connectors.data && (
          <StoreOptions connectors={connectors.data.connectors} store={store} onChange={setStore} />
        )}
      </section>
      <section aria-labelledby="files-title">
        <h2 id="files-title">Files</h2>
        {/* biome-ignore lint/a11y/noStaticElementInteractions: dropping is the pointer's shortcut; the file button is the keyboard's way. */}
        <div
          class={`dropzone${dragging ? ' dragging' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <p>Drop files here, or</p>
          <label for="try-files" class="button primary">
            Choose files
          </label>
          <input
            id="try-files"
            class="visually-hidden"
            type="file"
            multiple
            onChange={(e) => {
              add(e.currentTarget.files);
              e.currentTarget.value = '';
            }}
          />
        </div>
        {finished.length > 1 && (
          <p>
            <button
              type="button"
              onClick={() => {
                setZipError(undefined);
                downloadAll(finished).catch(setZipError);
              }}
            >
              Download all ({finished.length}) as ZIP
            </button>
            <ErrorMessage error={zipError} />
          </p>
        )}
        <ul class="results" aria-live="polite">
          {items.map((item) => (
            <TryResult key={item.id} item={item} />
          ))}
        </ul>
      </section>
    </>
  );
}
