/**
 * Turns anything thrown while answering a request into the documented error body
 * `{success: false, status, id, message, errors?}`. Causes are logged; bodies never carry stack traces.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  BadRequestError,
  InternalError,
  InvalidJsonError,
  PayloadTooLargeError,
  PressoError,
  toPressoError,
  UnsupportedContentTypeError,
  ValidationError,
} from '../errors/catalog.ts';
import { storageErrorOr } from '../errors/storage-full.ts';
import { toFieldErrors } from '../validation/schema-validator.ts';

/** The largest JSON body (fetch, webhooks): parameters and a URL, never file content. */
export const JSON_BODY_LIMIT = 1024 * 1024;

function fromFastify(raw: FastifyError, maxInputBytes: number): PressoError {
  // A full disk (upload streaming, storing the input) or database (recording the job) is a 507,
  // whatever wrapped it on the way here.
  const error = storageErrorOr(raw);
  if (error instanceof PressoError) return error;
  if (error.validation) {
    return new ValidationError(toFieldErrors(error.validation as never, error.validationContext ?? 'body'));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedContentTypeError();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new InvalidJsonError();
    case 'FST_REQ_FILE_TOO_LARGE':
      return new PayloadTooLargeError(maxInputBytes);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError(JSON_BODY_LIMIT, 'The request body');
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new BadRequestError(error.message, { cause: error });
  return toPressoError(error);
}

export function errorBody(error: PressoError, requestId: string) {
  const body: Record<string, unknown> = {
    success: false,
    status: error.statusCode,
    id: requestId,
    message: error.message,
  };
  if (error.errors) body.errors = error.errors;
  return body;
}

export function makeErrorHandler(maxInputBytes: number) {
  return (raw: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const error = fromFastify(raw, maxInputBytes);
    if (error instanceof InternalError || error.statusCode >= 500) {
      request.log.error({ err: error.cause ?? raw, code: error.code }, 'request failed');
    } else {
      request.log.info(
        { code: error.code, status: error.statusCode, detail: error.message },
        'request refused',
      );
    }
    reply.code(error.statusCode).headers(error.headers).send(errorBody(error, request.id));
  };
}
