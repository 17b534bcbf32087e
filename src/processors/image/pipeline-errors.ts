/** Maps sharp/libvips failures to the service's errors for input problems. */
import { PressoError, UnprocessableInputError, UnsupportedMediaError } from '../../errors/catalog.ts';
import type { Deadline } from '../shared/deadline.ts';
import { publicDetail } from '../shared/public-detail.ts';

/** Maps a sharp/libvips failure to the service's error for that input problem. */
export function toInputError(error: unknown, deadline?: Deadline): Error {
  // System errors (disk full, missing work directory) are the server's problem, not the input's.
  if (error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string') return error;
  // Already one of ours (a limit, a tool failure).
  if (error instanceof PressoError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/unsupported image format/i.test(message)) {
    return new UnsupportedMediaError('The file is not an image format this service can read.');
  }
  if (/exceeds pixel limit/i.test(message)) {
    return new UnprocessableInputError('The image has more pixels than this server accepts.', error);
  }
  if (deadline !== undefined && /timeout/i.test(message)) return deadline.exceeded(error);
  // libvips names the file it read: a server path, which the client must not see.
  const detail = publicDetail(message.split('\n')[0] ?? '');
  return new UnprocessableInputError(`The image is corrupt or truncated: ${detail}`, error);
}
