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
import { SettingsSection } from './section.tsx';

/** The website's storage, for its settings page. */
export async function storageRecordOf(env: Env, site: WebsiteRow) {
  return storageRecord(await storageOf(env, site.id));
}

export const StorageSection: FC<{ storage: StorageRecord }> = ({ storage }) => (
  <SettingsSection
    id="storage"
    title="Storage"
    hint={
      storage.partitions.length === 0
        ? undefined
        : `The event log holds ${formatNumber(storage.events)} ${storage.events === 1 ? 'event' : 'events'} (page views and custom events) in ${formatBytes(storage.bytes)}, kept whole and unsampled.`
    }
    table={{
      head: ['Dates', { label: 'Events', num: true }, { label: 'Size', num: true }, 'State'],
      rows: storage.partitions.map((p) => ({
        cells: [
          `${p.from} – ${p.to}`,
          formatNumber(p.events),
          formatBytes(p.bytes),
          p.closed ? 'closed' : 'open: takes new hits',
        ],
      })),
    }}
    empty="The event log holds nothing yet: its first hit starts it."
  />
);
