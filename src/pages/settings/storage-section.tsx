/**
 * A website's storage on its settings page (`/websites/{id}`): what its event log keeps —
 * its events, bytes and the partitions with their dates — as the API's
 * `GET /api/v1/websites/{id}/storage` says it (src/websites/schemas.ts).
 */
import type { FC } from 'hono/jsx';
import type { WebsiteRow } from '../../db/schema.ts';
import type { Env } from '../../env.ts';
import { formatBytes, formatNumber } from '../../query/present/readable.ts';
import { storageOf } from '../../website-log/worker/calls.ts';
import { type StorageRecord, storageRecord } from '../../websites/schemas.ts';

/** The website's storage, for its settings page. */
export async function storageRecordOf(env: Env, site: WebsiteRow) {
  return storageRecord(await storageOf(env, site.id));
}

export const StorageSection: FC<{ storage: StorageRecord }> = ({ storage }) => (
  <section aria-labelledby="storage">
    <h2 id="storage">Storage</h2>
    {storage.partitions.length === 0 ? (
      <p>The event log holds nothing yet: its first hit starts it.</p>
    ) : (
      <>
        <p>
          The event log holds {formatNumber(storage.events)}{' '}
          {storage.events === 1 ? 'event' : 'events'} (page views and custom events) in{' '}
          {formatBytes(storage.bytes)}, kept whole and unsampled.
        </p>
        <table>
          <thead>
            <tr>
              <th scope="col">Dates</th>
              <th scope="col" class="num">
                Events
              </th>
              <th scope="col" class="num">
                Size
              </th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {storage.partitions.map((p) => (
              <tr>
                <td>
                  {p.from} – {p.to}
                </td>
                <td class="num">{formatNumber(p.events)}</td>
                <td class="num">{formatBytes(p.bytes)}</td>
                <td>{p.closed ? 'closed' : 'open: takes new hits'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </>
    )}
  </section>
);
