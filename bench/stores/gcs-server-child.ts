/** The GCS JSON-API test server in a process of its own (bench/stores): prints its URL, serves until killed. */
import { startFakeGcs } from '../../test/support/fake-gcs.ts';

const server = await startFakeGcs(['out']);
console.log(server.url);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
