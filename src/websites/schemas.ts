/**
 * Website API schemas: the list query and the website record returned by every operation,
 * and how a row becomes that record. Used both to validate requests and to generate the
 * OpenAPI document. (The input fields are src/websites/input.ts.)
 */

import type { WebsiteRow } from '../db/schema.ts';
import { pageField, perPageField } from '../http/pagination.ts';
import { searchField, stringChoice } from '../lib/fields.ts';
import { type Infer, s } from '../lib/json-schema.ts';
import { apiTimestamp } from '../lib/time/dates.ts';
import type { LogStorage } from '../website-log/object/read/storage-used.ts';
import type { Role } from './queries.ts';

export const websiteListQuerySchema = s.object({
  search: searchField(
    'Substring of the domain, in any case of any letter; an international domain is found by its Unicode or its ASCII (punycode) spelling.',
  ).optional(),
  search_by: stringChoice(
    'search_by',
    ['domain'],
    'Field to search. Defaults to domain.',
  ).optional(),
  sort_by: stringChoice(
    'sort_by',
    ['id', 'domain'],
    'Sort by id (creation order, default) or domain.',
  ).optional(),
  sort: stringChoice('sort', ['desc', 'asc'], 'Sort direction. Defaults to desc.').optional(),
  per_page: perPageField(25),
  page: pageField,
});

export const websiteSchema = s
  .object({
    id: s.number().int().openapi({ example: 1 }),
    domain: s.string().openapi({ example: 'example.com' }),
    privacy: s
      .number()
      .int()
      .openapi({ example: 1, description: '0 public, 1 private, 2 password' }),
    password: s.boolean().openapi({
      description: 'True when a statistics page password is set; the password is never returned.',
    }),
    email: s.number().int().openapi({ example: 0 }),
    exclude_bots: s.number().int().openapi({ example: 1 }),
    exclude_datacenters: s.number().int().openapi({
      example: 1,
      description: '1 when hits from hosting and cloud networks (data centres) are dropped.',
    }),
    exclude_params: s.string().nullable().openapi({ example: 'fbclid\ngclid' }),
    exclude_ips: s.string().nullable().openapi({ example: '203.0.113.0/24' }),
    timezone: s.string().openapi({ example: 'UTC' }),
    created_at: s.string().openapi({ example: '2026-11-22T09:30:00.000000Z' }),
    updated_at: s.string().openapi({ example: '2026-11-22T09:30:00.000000Z' }),
    role: s.enum(['owner', 'admin', 'viewer']).openapi({
      example: 'owner',
      description:
        "The key's person's role on the website: `owner`, or a member's `admin` (changes it below its owner) or `viewer` (reads it).",
    }),
  })
  .openapi('Website');

export type WebsiteRecord = Infer<typeof websiteSchema>;

/**
 * A website row as the API shows it to a person with `role` on it: never its password hash,
 * only whether one is set.
 */
export function toWebsiteRecord(row: WebsiteRow, role: Role): WebsiteRecord {
  return {
    id: row.id,
    domain: row.domain,
    privacy: row.privacy,
    password: row.passwordHash !== null,
    email: row.email,
    exclude_bots: row.excludeBots,
    exclude_datacenters: row.excludeDatacenters,
    exclude_params: row.excludeParams === '' ? null : row.excludeParams,
    exclude_ips: row.excludeIps === '' ? null : row.excludeIps,
    timezone: row.timezone,
    created_at: apiTimestamp(row.createdAt),
    updated_at: apiTimestamp(row.updatedAt),
    role,
  };
}

const partitionSchema = s
  .object({
    from: s.string().openapi({ example: '2026-01-01', description: 'Its first local date.' }),
    to: s.string().openapi({ example: '2026-11-27', description: 'Its last local date.' }),
    events: s.number().int().openapi({ example: 1180000 }),
    bytes: s.number().int().openapi({ example: 101000000 }),
    closed: s.boolean().openapi({ description: 'A closed partition takes no more hits.' }),
  })
  .openapi('LogPartition');

export const storageSchema = s
  .object({
    events: s.number().int().openapi({ example: 1180000 }),
    bytes: s.number().int().openapi({ example: 101000000 }),
    partitions: s.array(partitionSchema),
  })
  .openapi('Storage');

export type StorageRecord = Infer<typeof storageSchema>;

/** A log's partitions as the API shows them: those that hold a date, oldest first. */
export function storageRecord(parts: (LogStorage & { closed: boolean })[]): StorageRecord {
  const partitions = parts.flatMap(({ events, bytes, from, to, closed }) =>
    from === null || to === null ? [] : [{ from, to, events, bytes, closed }],
  );
  const sum = (key: 'events' | 'bytes') => partitions.reduce((n, p) => n + p[key], 0);
  return { events: sum('events'), bytes: sum('bytes'), partitions };
}
