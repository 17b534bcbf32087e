/**
 * A small Google Cloud Storage JSON-API server for the store tests (no GCS emulator installs here): what the
 * official SDK uses to write, read and delete objects. Multipart uploads (`uploadType=multipart`, object name
 * in the query), resumable sessions (a `location`, chunks answered 308 with a `range` until the last), object
 * metadata and media reads, deletes; every object resource carries `crc32c` and `md5Hash`, which the SDK
 * checks. Unknown buckets answer 404 like GCS.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CRC32C } from '@google-cloud/storage';

export interface FakeObject {
  bucket: string;
  name: string;
  data: Buffer;
  metadata: Record<string, unknown>;
  predefinedAcl: string | undefined;
}

export interface FakeGcs {
  url: string;
  objects: Map<string, FakeObject>;
  close(): Promise<void>;
}

const read = (req: IncomingMessage) =>
  new Promise<Buffer>((ok, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => ok(Buffer.concat(chunks)));
    req.on('error', fail);
  });

export async function startFakeGcs(buckets: string[]): Promise<FakeGcs> {
  const objects = new Map<string, FakeObject>();
  const sessions = new Map<
    string,
    {
      bucket: string;
      name: string;
      metadata: Record<string, unknown>;
      acl: string | undefined;
      parts: Buffer[];
    }
  >();
  let nextSession = 0;
  const resource = (o: FakeObject) => {
    const crc = new CRC32C();
    crc.update(o.data);
    return {
      kind: 'storage#object',
      ...o.metadata,
      bucket: o.bucket,
      name: o.name,
      size: String(o.data.length),
      crc32c: crc.toString(),
      md5Hash: createHash('md5').update(o.data).digest('base64'),
      generation: '1',
    };
  };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const store = (o: FakeObject, res: ServerResponse) => {
    objects.set(`${o.bucket}/${o.name}`, o);
    json(res, 200, resource(o));
  };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/storage\/v1/, '');
    const body = await read(req);
    const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
    if (upload) {
      const bucket = decodeURIComponent(upload[1]!);
      if (!buckets.includes(bucket))
        return json(res, 404, { error: { code: 404, message: 'The specified bucket does not exist.' } });
      const acl = url.searchParams.get('predefinedAcl') ?? undefined;
      const type = url.searchParams.get('uploadType');
      const uploadId = url.searchParams.get('upload_id');
      if (type === 'multipart') {
        // multipart/related: a JSON metadata part, then the data part.
        const boundary = /boundary=([^;]+)/.exec(req.headers['content-type'] ?? '')?.[1]?.replace(/"/g, '');
        const parts = body.toString('latin1').split(`--${boundary}`);
        const meta = JSON.parse(parts[1]!.split('\r\n\r\n').slice(1).join('\r\n\r\n').trim());
        const dataPart = parts[2]!;
        const start = dataPart.indexOf('\r\n\r\n') + 4;
        const data = Buffer.from(dataPart.slice(start, dataPart.length - 2), 'latin1');
        return store(
          {
            bucket,
            name: url.searchParams.get('name') ?? meta.name,
            data,
            metadata: meta,
            predefinedAcl: acl,
          },
          res,
        );
      }
      if (type === 'resumable' && uploadId === null) {
        const id = String(++nextSession);
        const meta = body.length > 0 ? JSON.parse(body.toString()) : {};
        sessions.set(id, {
          bucket,
          name: url.searchParams.get('name') ?? meta.name,
          metadata: meta,
          acl,
          parts: [],
        });
        res
          .writeHead(200, {
            location: `http://${req.headers.host}${url.pathname}?uploadType=resumable&upload_id=${id}`,
          })
          .end();
        return;
      }
      const session = uploadId === null ? undefined : sessions.get(uploadId);
      if (session === undefined) return json(res, 404, { error: { code: 404, message: 'no such upload' } });
      session.parts.push(body);
      const range = /bytes (\d+)-(\d+)\/(\d+|\*)/.exec(String(req.headers['content-range'] ?? ''));
      const received = session.parts.reduce((n, p) => n + p.length, 0);
      if (range && range[3] === '*') {
        res.writeHead(308, { range: `bytes=0-${received - 1}` }).end();
        return;
      }
      sessions.delete(uploadId as string);
      return store(
        {
          bucket: session.bucket,
          name: session.name,
          data: Buffer.concat(session.parts),
          metadata: session.metadata,
          predefinedAcl: session.acl,
        },
        res,
      );
    }
    const object = /^\/b\/([^/]+)\/o\/(.+)$/.exec(path);
    if (object) {
      const key = `${decodeURIComponent(object[1]!)}/${decodeURIComponent(object[2]!)}`;
      const found = objects.get(key);
      if (req.method === 'DELETE') {
        objects.delete(key);
        res.writeHead(found ? 204 : 404).end();
        return;
      }
      if (found === undefined) return json(res, 404, { error: { code: 404, message: 'No such object' } });
      if (url.searchParams.get('alt') === 'media') {
        res
          .writeHead(200, {
            'content-type': String(found.metadata.contentType ?? 'application/octet-stream'),
          })
          .end(found.data);
        return;
      }
      return json(res, 200, resource(found));
    }
    json(res, 404, { error: { code: 404, message: `not handled: ${req.method} ${url.pathname}` } });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    objects,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
