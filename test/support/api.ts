/** Fixture builders and a small client for driving the Worker through its real `fetch`. */
import { listDurableObjectIds } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { createOwner } from '../../src/accounts/owners.ts';
import { hashPassword } from '../../src/accounts/password.ts';
import { createDb } from '../../src/db/client.ts';
import type { WebsiteLog } from '../../src/website-log/object/durable-object.ts';
import { OWNER_PASSWORD } from './owner-password.ts';

export const ORIGIN = 'https://sightline.test';
export const db = () => createDb(env.DB);

let ownerSeq = 0;

/** Every fixture owner's password, hashed once per test file (PBKDF2 is slow on purpose). */
let ownerPasswordHash: Promise<string> | undefined;

/** A new owner with an API key, who can log in with `OWNER_PASSWORD`; emails are unique per test file run. */
export async function makeOwner(label = 'owner') {
  ownerSeq += 1;
  const email = `${label}-${ownerSeq}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  ownerPasswordHash ??= hashPassword(OWNER_PASSWORD);
  const owner = await createOwner(db(), { email, passwordHash: await ownerPasswordHash });
  return { ...owner, key: owner.apiKey };
}

type Body =
  | { json: unknown }
  | { form: Record<string, string> }
  | { multipart: Record<string, string> }
  | { raw: BodyInit; type?: string };

export type CallOptions = {
  method?: string;
  key?: string | null;
  headers?: Record<string, string>;
  body?: Body;
};

/** Calls the Worker; `key` sets the Bearer header (null sends none). */
export async function call(
  path: string,
  { method = 'GET', key = null, headers = {}, body }: CallOptions = {},
) {
  const init: RequestInit = { method, headers: { ...headers } };
  const h = init.headers as Record<string, string>;
  if (key !== null) h.authorization = `Bearer ${key}`;
  if (body && 'json' in body) {
    h['content-type'] = 'application/json';
    init.body = JSON.stringify(body.json);
  } else if (body && 'form' in body) {
    h['content-type'] = 'application/x-www-form-urlencoded';
    init.body = new URLSearchParams(body.form).toString();
  } else if (body && 'multipart' in body) {
    const form = new FormData();
    for (const [k, v] of Object.entries(body.multipart)) form.append(k, v);
    init.body = form;
  } else if (body && 'raw' in body) {
    if (body.type) h['content-type'] = body.type;
    init.body = body.raw;
  }
  return readResponse(await exports.default.fetch(new Request(`${ORIGIN}${path}`, init)));
}

/** An API answer's fields, as the tests read them (the OpenAPI document describes them). */
export type Fields = Record<string, unknown>;

/** A response as the tests read it. */
export type Answer = {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON object the text holds: its fields are unknown until a test narrows them. */
  json: Fields;
};

/** An error: its message, status and the fields it names (validation). */
export type ErrorBody = { message: string; status: number; errors: Record<string, string[]> };
/** One record. */
export type OneBody = { data: Fields; status: number };
/** A page of records: the list and phpAnalytics' pagination fields. */
export type ListBody<T = Fields> = Fields & {
  data: T[];
  meta: Fields;
  links: Fields;
  status: number;
};

export const errorOf = (res: Answer) => res.json as ErrorBody;
export const oneOf = (res: Answer) => res.json as OneBody;
export const listOf = <T = Fields>(res: Answer) => res.json as ListBody<T>;

/** A response's status, headers, text and, when the text is JSON, its value. */
export async function readResponse(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json: json as Fields };
}

/** A call to `/api/v1/websites/{siteId}{path}` with `key`, and a JSON body when given. */
export const websiteApi =
  (siteId: () => number) =>
  (path: string, key: string, method = 'GET', json?: unknown) =>
    call(`/api/v1/websites/${siteId()}${path}`, {
      method,
      key,
      ...(json === undefined ? {} : { body: { json } }),
    });

/** Creates a website through the API and returns its record. */
export async function makeWebsite(key: string, fields: Record<string, string> = {}) {
  const domain = fields.domain ?? `site-${crypto.randomUUID().slice(0, 8)}.example.org`;
  const res = await call('/api/v1/websites', {
    method: 'POST',
    key,
    body: { form: { ...fields, domain } },
  });
  if (res.status !== 201) throw new Error(`makeWebsite failed: ${res.status} ${res.text}`);
  return oneOf(res).data as { id: number; domain: string } & Fields;
}

type Table =
  | 'websites'
  | 'owners'
  | 'api_keys'
  | 'stats'
  | 'website_purges'
  | 'report_sends'
  | 'log_positions'
  | 'sessions'
  | 'throttles'
  | 'secrets';

const selectAll = (table: Table) => env.DB.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`);

/** Rolls every website's event log of this file up into D1, as readers would, one by one. */
export async function flushAllLogs(): Promise<void> {
  const logs = env.WEBSITE_LOG as unknown as DurableObjectNamespace<WebsiteLog>;
  for (const id of await listDurableObjectIds(logs)) {
    const outcome = await logs.get(id).flush();
    if (!outcome.ok) throw new Error('a log did not flush');
  }
}

/**
 * The roll-ups are what a reader sees once the logs have flushed (a hit reaches `stats` only
 * then): a snapshot of them flushes every log first, or "nothing was stored" could not fail.
 */
async function flushedFor(tables: Table[]): Promise<void> {
  if (tables.includes('stats') || tables.includes('log_positions')) await flushAllLogs();
}

/** Every row of a table, for asserting that a failed request changed nothing. */
export async function snapshot(table: Table) {
  await flushedFor([table]);
  const { results } = await selectAll(table).all();
  return results;
}

/** Every row of several tables, read in one batch (one round trip, one consistent view). */
export async function snapshots<T extends Table>(
  ...tables: T[]
): Promise<Record<T, Record<string, unknown>[]>> {
  await flushedFor(tables);
  const results = await env.DB.batch<Record<string, unknown>>(tables.map(selectAll));
  return Object.fromEntries(tables.map((table, i) => [table, results[i]?.results ?? []])) as Record<
    T,
    Record<string, unknown>[]
  >;
}

export const UNAUTHENTICATED = { message: 'Unauthenticated.', status: 401 };
export const NOT_FOUND = { message: 'Resource not found.', status: 404 };
