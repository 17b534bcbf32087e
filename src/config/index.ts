/**
 * Configuration, one typed section per component, read from `PRESSO_*` environment variables and
 * validated at start-up. `describeConfig()` lists every variable for the README table.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError } from '../errors/catalog.ts';
import { parseCidr } from '../outbound/address-guard.ts';
import type { AudioLimits } from '../processors/audio/limits.ts';
import { type ImageLimits, largestImageShare } from '../processors/image/limits.ts';
import type { VideoLimits } from '../processors/video/limits.ts';
import {
  bytes,
  described,
  duration,
  durationList,
  type Env,
  int,
  list,
  oneOf,
  optionalStr,
  str,
} from './env.ts';

const MiB = 1024 * 1024;

export interface Config {
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  server: {
    host: string;
    port: number;
    publicUrl: string;
    tls: 'on' | 'off';
    tlsCertPath: string | undefined;
    tlsKeyPath: string | undefined;
    trustedProxies: string[];
    shutdownGraceMs: number;
    headersTimeoutMs: number;
    bodyIdleTimeoutMs: number;
    bodyMinBytesPerSecond: number;
    maxConnections: number;
    maxConnectionsPerAddress: number;
    maxUploadsPerKey: number;
  };
  service: { name: string; siteUrl: string };
  jobs: {
    maxInputBytes: number;
    asyncThresholdBytes: number;
    syncTimeoutMs: number;
    workers: number;
    retentionMs: number;
    outputTtlMs: number;
    maxAttempts: number;
  };
  outbound: {
    allowCidrs: string[];
    connectTimeoutMs: number;
    totalTimeoutMs: number;
    maxRedirects: number;
  };
  webhooks: { timeoutMs: number; retrySchedule: number[] };
  storage: { minFreeBytes: number; retryMs: number };
  rateLimit: { defaultLimit: number; windowMs: number };
  /** The image processor's limits, in its own shape so the config passes straight through. */
  images: ImageLimits;
  /** The video processor's limits, in its own shape. */
  videos: VideoLimits;
  /** The audio processor's limits, in its own shape. */
  audio: AudioLimits;
  bootstrapAccount: string | undefined;
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = resolve(
    str(env, 'PRESSO_DATA_DIR', './data', 'Directory for the database, files, TLS pair and keys'),
  );
  const port = int(env, 'PRESSO_PORT', 8443, 'TCP port of the HTTPS API', 0, 65535);
  const tls = oneOf(
    env,
    'PRESSO_TLS',
    'on',
    ['on', 'off'] as const,
    'Terminate TLS here, or expect a trusted proxy',
  );
  const trustedProxies = list(
    env,
    'PRESSO_TRUSTED_PROXIES',
    [],
    'Proxy addresses/CIDRs whose X-Forwarded-Proto is trusted',
  );
  const allowCidrs = list(
    env,
    'PRESSO_OUTBOUND_ALLOW',
    [],
    'CIDRs that fetch and webhooks may reach despite the private-address guard',
  );
  for (const [name, cidrs] of [
    ['PRESSO_TRUSTED_PROXIES', trustedProxies],
    ['PRESSO_OUTBOUND_ALLOW', allowCidrs],
  ] as const) {
    for (const cidr of cidrs) {
      if (!parseCidr(cidr)) throw new ConfigError(`${name} has an invalid address or CIDR: "${cidr}"`);
    }
  }
  if (tls === 'off' && trustedProxies.length === 0) {
    throw new ConfigError(
      'PRESSO_TLS=off needs PRESSO_TRUSTED_PROXIES: only a trusted proxy may terminate TLS',
    );
  }
  const publicUrl = str(
    env,
    'PRESSO_PUBLIC_URL',
    '',
    'Base URL clients use (default https://localhost:<port>)',
  );
  const config: Config = {
    dataDir,
    logLevel: oneOf(
      env,
      'PRESSO_LOG_LEVEL',
      'info',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'Log level',
    ),
    server: {
      host: str(env, 'PRESSO_HOST', '127.0.0.1', 'Address to listen on (0.0.0.0 for all interfaces)'),
      port,
      publicUrl: (publicUrl || `https://localhost:${port}`).replace(/\/+$/, ''),
      tls,
      tlsCertPath: optionalStr(
        env,
        'PRESSO_TLS_CERT',
        'PEM certificate path (default: self-signed pair in the data dir)',
      ),
      tlsKeyPath: optionalStr(env, 'PRESSO_TLS_KEY', 'PEM private key path'),
      trustedProxies,
      shutdownGraceMs: duration(
        env,
        'PRESSO_SHUTDOWN_GRACE',
        25_000,
        'Time running jobs get to finish on shutdown',
      ),
      headersTimeoutMs: duration(
        env,
        'PRESSO_HEADERS_TIMEOUT',
        20_000,
        'Time a client has to send the request headers (and the first byte); then 408',
      ),
      bodyIdleTimeoutMs: duration(
        env,
        'PRESSO_BODY_IDLE_TIMEOUT',
        30_000,
        'A request body that sends nothing for this long is refused with 408; also the window of the minimum rate',
      ),
      // Apache's mod_reqtimeout defaults (body=20s, MinRate=500) have long been safe for real clients.
      bodyMinBytesPerSecond: bytes(
        env,
        'PRESSO_BODY_MIN_RATE',
        500,
        'Slowest accepted request body, per second, averaged over each idle time-out window; 0 turns it off',
      ),
      maxConnections: int(
        env,
        'PRESSO_MAX_CONNECTIONS',
        2000,
        'Open client connections at once; more are closed on accept (0: no cap)',
      ),
      maxConnectionsPerAddress: int(
        env,
        'PRESSO_MAX_CONNECTIONS_PER_ADDRESS',
        200,
        'Open connections at once from one client address, trusted proxies exempt (0: no cap)',
      ),
      maxUploadsPerKey: int(
        env,
        'PRESSO_MAX_UPLOADS_PER_KEY',
        16,
        'Uploads one API key may be sending at once; more get 429 (0: no cap)',
      ),
    },
    service: {
      name: str(env, 'PRESSO_SERVICE_NAME', 'Presso', 'Service name in the outbound User-Agent'),
      siteUrl: str(
        env,
        'PRESSO_SERVICE_URL',
        'https://github.com/presso-dev/presso',
        'Site URL in the outbound User-Agent',
      ),
    },
    jobs: {
      maxInputBytes: bytes(env, 'PRESSO_MAX_INPUT_BYTES', 1024 * MiB, 'Largest accepted input'),
      asyncThresholdBytes: bytes(
        env,
        'PRESSO_ASYNC_THRESHOLD_BYTES',
        32 * MiB,
        'Inputs larger than this run asynchronously',
      ),
      syncTimeoutMs: duration(
        env,
        'PRESSO_SYNC_TIMEOUT',
        60_000,
        'Synchronous requests answer 202 after this long',
      ),
      workers: int(
        env,
        'PRESSO_WORKERS',
        { value: availableParallelism(), shown: '(CPU count)' },
        'Jobs processed at once by this process',
        0,
        256,
      ),
      retentionMs: duration(env, 'PRESSO_JOB_RETENTION', 7 * 86_400_000, 'How long job records are kept'),
      outputTtlMs: duration(
        env,
        'PRESSO_OUTPUT_TTL',
        2 * 3_600_000,
        'Lifetime of temporary output URLs and files',
      ),
      maxAttempts: int(
        env,
        'PRESSO_JOB_MAX_ATTEMPTS',
        3,
        'Runs of a job interrupted by crashes before it fails',
        1,
        20,
      ),
    },
    outbound: {
      allowCidrs,
      connectTimeoutMs: duration(env, 'PRESSO_FETCH_CONNECT_TIMEOUT', 10_000, 'Outbound connect time-out'),
      totalTimeoutMs: duration(
        env,
        'PRESSO_FETCH_TIMEOUT',
        300_000,
        'Outbound download time-out, whole transfer',
      ),
      maxRedirects: int(env, 'PRESSO_FETCH_MAX_REDIRECTS', 5, 'Redirects followed by fetch', 0, 20),
    },
    webhooks: {
      timeoutMs: duration(env, 'PRESSO_WEBHOOK_TIMEOUT', 10_000, 'Time-out of one webhook delivery attempt'),
      retrySchedule: durationList(
        env,
        'PRESSO_WEBHOOK_RETRY_SCHEDULE',
        [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
        'Delays between webhook retries (about 24 h in all)',
      ),
    },
    storage: {
      minFreeBytes: bytes(
        env,
        'PRESSO_MIN_FREE_DISK',
        512 * MiB,
        'Free space on the data directory below which /healthz answers 503 low-disk (readiness)',
      ),
      retryMs: duration(
        env,
        'PRESSO_STORAGE_RETRY',
        10_000,
        'How long a job stopped by a full disk or database waits before it runs again',
      ),
    },
    rateLimit: {
      defaultLimit: int(env, 'PRESSO_RATE_LIMIT', 100_000, 'Default requests per window for new accounts', 1),
      windowMs: duration(env, 'PRESSO_RATE_WINDOW', 900_000, 'Rolling rate-limit window'),
    },
    images: {
      maxPixels: int(
        env,
        'PRESSO_IMAGE_MAX_PIXELS',
        50_000_000,
        'Largest image accepted, in pixels summed over the frames of an animation',
        1,
      ),
      maxFrames: int(env, 'PRESSO_IMAGE_MAX_FRAMES', 1000, 'Most frames accepted in an animated image', 1),
      timeBudgetMs: duration(
        env,
        'PRESSO_IMAGE_TIME_BUDGET',
        120_000,
        'Time one image may take to process before it is refused',
      ),
      svgMaxBytes: bytes(env, 'PRESSO_SVG_MAX_BYTES', 10 * MiB, 'Largest SVG accepted'),
      svgMaxDepth: int(
        env,
        'PRESSO_SVG_MAX_DEPTH',
        256,
        'Deepest element nesting accepted in an SVG',
        1,
        100_000,
      ),
      svgMaxElements: int(env, 'PRESSO_SVG_MAX_ELEMENTS', 50_000, 'Most elements accepted in an SVG', 1),
      memoryInFlight: bytes(
        env,
        'PRESSO_IMAGE_MEMORY_IN_FLIGHT',
        400_000_000,
        'Decoded image memory (pixels × channels × bytes per sample × 2 working copies) all image jobs ' +
          'of a process may hold at once; larger jobs take turns. Must hold PRESSO_IMAGE_MAX_PIXELS as ' +
          '8-bit RGBA (8 bytes per pixel)',
      ),
    },
    videos: {
      maxDurationSeconds: int(
        env,
        'PRESSO_VIDEO_MAX_DURATION',
        4 * 3600,
        'Longest video accepted, in seconds',
        1,
      ),
      maxFramePixels: int(
        env,
        'PRESSO_VIDEO_MAX_FRAME_PIXELS',
        8192 * 4320,
        'Largest video frame accepted, in pixels (8K is 35 MP)',
        1,
      ),
      maxStreams: int(env, 'PRESSO_VIDEO_MAX_STREAMS', 32, 'Most streams accepted in a video file', 1),
      maxOutputBytes: bytes(
        env,
        'PRESSO_VIDEO_MAX_OUTPUT',
        4 * 1024 * MiB,
        'Largest video output written; ffmpeg stops beyond it and the job fails',
      ),
      timeBudgetMs: duration(
        env,
        'PRESSO_VIDEO_TIME_BUDGET',
        3_600_000,
        'Time one video may take to process (quality search included); the job then fails, never retried',
      ),
      encodesInFlight: int(
        env,
        'PRESSO_VIDEO_ENCODES',
        1,
        'Video encodes one process runs at once; others wait their turn so images keep their share',
        1,
        64,
      ),
    },
    audio: {
      maxDurationSeconds: int(
        env,
        'PRESSO_AUDIO_MAX_DURATION',
        6 * 3600,
        'Longest audio file accepted, in seconds',
        1,
      ),
      maxFramePixels: 16_000_000,
      maxStreams: 16,
      maxOutputBytes: 2 * 1024 * MiB,
      timeBudgetMs: duration(
        env,
        'PRESSO_AUDIO_TIME_BUDGET',
        900_000,
        'Time one audio file may take to process; the job then fails, never retried',
      ),
    },
    bootstrapAccount: optionalStr(
      env,
      'PRESSO_BOOTSTRAP_ACCOUNT',
      'Create this account with a key on first start',
    ),
  };
  if (config.jobs.asyncThresholdBytes > config.jobs.maxInputBytes) {
    throw new ConfigError('PRESSO_ASYNC_THRESHOLD_BYTES must not exceed PRESSO_MAX_INPUT_BYTES');
  }
  if (config.images.memoryInFlight < largestImageShare(config.images)) {
    throw new ConfigError(
      `PRESSO_IMAGE_MEMORY_IN_FLIGHT (${config.images.memoryInFlight} bytes) must hold the largest accepted ` +
        `image: PRESSO_IMAGE_MAX_PIXELS (${config.images.maxPixels}) × 8 bytes = ` +
        `${largestImageShare(config.images)} bytes`,
    );
  }
  if ((config.server.tlsCertPath === undefined) !== (config.server.tlsKeyPath === undefined)) {
    throw new ConfigError('PRESSO_TLS_CERT and PRESSO_TLS_KEY must be set together');
  }
  return config;
}

/** Every variable with its default and meaning, in the order the loader reads them. */
export function describeConfig() {
  loadConfig({});
  return [...described];
}
