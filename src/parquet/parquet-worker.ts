/**
 * The Parquet Worker (wrangler.parquet.toml): a Worker of its own, reached only by Sightline's
 * Worker through the `PARQUET` service binding (src/website-log/worker/calls.ts `exportLog`),
 * so that the Parquet writer stays out of the main Worker's bundle (docs/ARCHITECTURE.md,
 * "Exports"). `POST /events` with the event log's NDJSON export as its body answers the same
 * events as a Parquet file, streamed as the body comes (./parquet-stream.ts). It has no route
 * on the internet (`workers_dev = false`) and no binding: nothing to read but what it is sent.
 */
import { parquetStream } from './parquet-stream.ts';

export default {
  fetch(request: Request): Response {
    const path = new URL(request.url).pathname;
    if (request.method !== 'POST' || path !== '/events' || !request.body)
      return new Response('Not found', { status: 404 });
    return new Response(parquetStream(request.body), {
      headers: { 'content-type': 'application/vnd.apache.parquet' },
    });
  },
} satisfies ExportedHandler;
