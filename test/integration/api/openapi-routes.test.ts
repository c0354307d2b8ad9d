/**
 * One source of truth per route: every API route is served by the OpenAPI definition that
 * documents it. The document lists exactly the routes the app serves, and each documented
 * parameter is validated as documented (required ones, enums), because the same definition
 * does both.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app/app.tsx';
import { call, errorOf, makeOwner, makeWebsite, oneOf } from '../../support/api.ts';

type Parameter = {
  name: string;
  in: string;
  required?: boolean;
  schema?: { enum?: unknown[] };
};
type Operation = { parameters?: Parameter[] };
type Document = { paths: Record<string, Record<string, Operation>> };

let key: string;
let doc: Document;
let siteId: number;
let funnelId: number;

beforeAll(async () => {
  ({ key } = await makeOwner('openapi-routes'));
  siteId = (await makeWebsite(key, { domain: 'openapi-routes.example.com' })).id;
  const funnel = await call(`/api/v1/websites/${siteId}/funnels`, {
    method: 'POST',
    key,
    body: { json: { name: 'Sign-up', steps: [{ page: '/' }, { event: 'Signup' }] } },
  });
  funnelId = (funnel.json as { data: { id: number } }).data.id;
  doc = (await call('/api/v1/openapi.json')).json as Document;
});

/** `METHOD /path/{param}` of every operation in the document. */
function documented(): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe('the OpenAPI document and the routes served', () => {
  it('list the same operations', () => {
    const served = createApp()
      .routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/v1/'))
      .map((r) => `${r.method} ${r.path.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}')}`)
      .filter((op) => op !== 'GET /openapi.json' && op !== 'GET /docs');
    expect([...new Set(served)].sort()).toEqual(documented().sort());
  });

  it('validate every documented query parameter as documented', async () => {
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        // Plausible's Sites API answers as Plausible's does (test/integration/goals/goals.test.ts).
        if (method !== 'get' || path.startsWith('/sites/')) continue;
        const query = (op.parameters ?? []).filter((p) => p.in === 'query');
        const url = `/api/v1${path.replace('{id}', String(siteId)).replace('{funnel_id}', String(funnelId))}`;
        for (const param of query) {
          if (param.required) {
            const res = await call(url, { key });
            expect(res.status, `${path} without ${param.name}`).toBe(422);
            expect(errorOf(res).errors[param.name], `${path} ${param.name}`).toEqual([
              `The ${param.name.replace(/_/g, ' ')} field is required.`,
            ]);
            checked++;
          }
          if (param.schema?.enum) {
            const res = await call(`${url}?${param.name}=not-one-of-them`, { key });
            expect(res.status, `${path} ${param.name}`).toBe(422);
            expect(errorOf(res).errors[param.name], `${path} ${param.name}`).toHaveLength(1);
            checked++;
          }
        }
      }
    }
    // name, from and to of the statistics; their enums; the list's enums.
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  it('answer PATCH as documented, the same as PUT', async () => {
    for (const method of ['PUT', 'PATCH']) {
      const res = await call(`/api/v1/websites/${siteId}`, {
        method,
        key,
        body: { json: { timezone: method === 'PUT' ? 'Europe/Berlin' : 'Asia/Tokyo' } },
      });
      expect(res.status, method).toBe(200);
    }
    expect(oneOf(await call(`/api/v1/websites/${siteId}`, { key })).data.timezone).toBe(
      'Asia/Tokyo',
    );
  });
});
