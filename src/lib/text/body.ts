/**
 * Request bodies: the media type a body declares (the API's writes and the hit endpoints
 * accept different ones), and an API write body read into a plain object of fields. The
 * spec's clients send `application/x-www-form-urlencoded`; real clients also send JSON and
 * `multipart/form-data`, so all three are read the same way and validated by the same schema
 * afterwards.
 */
import type { HonoRequest } from 'hono';
import { ApiError } from '../errors.ts';

/** The media type of a request's body, lower-cased, without parameters ('' when none is sent). */
export function mediaType(req: HonoRequest): string {
  return (req.header('content-type') ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

export async function readFields(req: HonoRequest): Promise<Record<string, unknown>> {
  const type = mediaType(req);
  if (type === 'application/json' || type.endsWith('+json')) {
    const text = await req.text();
    if (text.trim() === '') return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError(400, 'The request body is not valid JSON.');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new ApiError(400, 'The request body must be a JSON object.');
    }
    return parsed as Record<string, unknown>;
  }
  if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') {
    try {
      return { ...(await req.parseBody()) };
    } catch {
      throw new ApiError(400, 'The request body could not be parsed.');
    }
  }
  if (type === '') {
    const text = await req.text();
    if (text === '') return {};
  }
  throw new ApiError(
    415,
    'Unsupported content type: send application/x-www-form-urlencoded, application/json or multipart/form-data.',
  );
}
