import { describe, expect, it } from 'vitest';
import { call } from '../../support/api.ts';

/** The value at a path of keys in a JSON value (undefined where there is none). */
const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);
/** The keys of the object at a path. */
const keysAt = (value: unknown, ...keys: string[]) =>
  Object.keys((at(value, ...keys) ?? {}) as object);
/** A parameter of an operation, by name. */
const parameter = (operation: unknown, name: string) =>
  (at(operation, 'parameters') as { name: string }[]).find((p) => p.name === name);

describe('OpenAPI document and reference page', () => {
  it('serves an OpenAPI 3.1 document generated from the request schemas', async () => {
    const res = await call('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://sightline.test/api/v1' }]);
    expect(keysAt(doc, 'paths').sort()).toEqual([
      '/sites/goals',
      '/sites/goals/{goal_id}',
      '/stats/{id}',
      '/stats/{id}/funnels/{funnel_id}',
      '/stats/{id}/journeys',
      '/stats/{id}/summary',
      '/websites',
      '/websites/{id}',
      '/websites/{id}/alerts',
      '/websites/{id}/alerts/{alert_id}',
      '/websites/{id}/alerts/{alert_id}/confirmation',
      '/websites/{id}/annotations',
      '/websites/{id}/annotations/{annotation_id}',
      '/websites/{id}/archive',
      '/websites/{id}/export',
      '/websites/{id}/filtered',
      '/websites/{id}/funnels',
      '/websites/{id}/funnels/{funnel_id}',
      '/websites/{id}/goals',
      '/websites/{id}/goals/{goal_id}',
      '/websites/{id}/imports',
      '/websites/{id}/imports/{import_id}',
      '/websites/{id}/members',
      '/websites/{id}/members/{member_id}',
      '/websites/{id}/report-recipients',
      '/websites/{id}/report-recipients/{recipient_id}',
      '/websites/{id}/report-recipients/{recipient_id}/confirmation',
      '/websites/{id}/report-recipients/{recipient_id}/test',
      '/websites/{id}/segments',
      '/websites/{id}/segments/{segment_id}',
      '/websites/{id}/shared-links',
      '/websites/{id}/shared-links/{link_id}',
      '/websites/{id}/storage',
    ]);
    expect(keysAt(doc, 'paths', '/websites').sort()).toEqual(['get', 'post']);
    expect(keysAt(doc, 'paths', '/websites/{id}').sort()).toEqual([
      'delete',
      'get',
      'patch',
      'put',
    ]);
    expect(at(doc, 'components', 'securitySchemes', 'bearerAuth')).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });

    const input = at(doc, 'components', 'schemas', 'WebsiteInput');
    expect(keysAt(input, 'properties')).toEqual([
      'domain',
      'privacy',
      'password',
      'email',
      'exclude_bots',
      'exclude_datacenters',
      'exclude_params',
      'exclude_ips',
      'timezone',
    ]);
    expect(at(input, 'properties', 'privacy')).toMatchObject({ type: 'integer', enum: [0, 1, 2] });
    expect(at(input, 'properties', 'exclude_bots')).toMatchObject({
      type: 'integer',
      enum: [0, 1],
    });
    expect(at(input, 'properties', 'exclude_datacenters')).toMatchObject({
      type: 'integer',
      enum: [0, 1],
    });
    const post = at(doc, 'paths', '/websites', 'post');
    expect(keysAt(post, 'requestBody', 'content').sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    expect(keysAt(post, 'responses').sort()).toEqual(['201', '401', '422']);
    const perPage = parameter(at(doc, 'paths', '/websites', 'get'), 'per_page');
    expect(perPage).toMatchObject({
      in: 'query',
      schema: { type: 'integer', enum: [10, 25, 50, 100] },
    });
    // Funnels: paged as the website list, a step one of three shapes.
    expect(keysAt(doc, 'paths', '/websites/{id}/funnels/{funnel_id}').sort()).toEqual([
      'delete',
      'get',
      'put',
    ]);
    expect(parameter(at(doc, 'paths', '/websites/{id}/funnels', 'get'), 'per_page')).toEqual(
      perPage,
    );
    expect(at(doc, 'paths', '/websites/{id}/funnels', 'post', 'tags')).toEqual(['Funnels']);
    // Imports: the file is the body (a zip, a gzip or a CSV); exports are downloads.
    expect(
      keysAt(doc, 'paths', '/websites/{id}/imports', 'post', 'requestBody', 'content').sort(),
    ).toEqual(['application/gzip', 'application/zip', 'text/csv']);
    expect(keysAt(doc, 'paths', '/websites/{id}/imports', 'post', 'responses').sort()).toEqual([
      '201',
      '401',
      '404',
      '409',
      '413',
      '415',
      '422',
    ]);
    expect(keysAt(doc, 'components', 'schemas', 'Import', 'properties')).toEqual([
      'id',
      'source',
      'from',
      'to',
      'rows',
      'created_at',
    ]);
    expect(
      keysAt(doc, 'paths', '/websites/{id}/export', 'get', 'responses', '200', 'content').sort(),
    ).toEqual([
      'application/vnd.apache.parquet',
      'application/x-ndjson',
      'application/zip',
      'text/csv',
    ]);
    expect(keysAt(doc, 'components', 'schemas', 'Funnel', 'properties')).toEqual([
      'id',
      'name',
      'steps',
      'created_at',
    ]);
    expect(
      (at(doc, 'components', 'schemas', 'FunnelStep', 'anyOf') as { required: string[] }[]).map(
        (s) => s.required,
      ),
    ).toEqual([['page'], ['event'], ['goal']]);
    expect(at(doc, 'components', 'schemas', 'Website', 'properties', 'password', 'type')).toBe(
      'boolean',
    );

    const stats = at(doc, 'paths', '/stats/{id}', 'get');
    expect(at(parameter(stats, 'name'), 'schema', 'enum')).toHaveLength(32);
    expect(at(parameter(stats, 'property'), 'schema', 'maxLength')).toBe(300);
    const examples = at(stats, 'responses', '200', 'content', 'application/json', 'examples');
    expect(keysAt(examples)).toEqual(['browser', 'pageviews']);
    expect(at(examples, 'browser', 'value', 'data', '0')).toEqual({ value: 'Chrome', count: 1204 });
    expect(keysAt(doc, 'components', 'schemas', 'Stats', 'properties')).toEqual([
      'current_page',
      'data',
      'first_page_url',
      'from',
      'last_page',
      'last_page_url',
      'next_page_url',
      'path',
      'per_page',
      'prev_page_url',
      'to',
      'total',
      'status',
    ]);
  });

  it('serves a self-contained reference page', async () => {
    const res = await call('/api/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    for (const op of [
      'GET /websites',
      'POST /websites',
      'GET /websites/{id}',
      'PUT /websites/{id}',
      'DELETE /websites/{id}',
    ]) {
      expect(res.text).toContain(op);
    }
    expect(res.text).toContain('exclude_ips');
    // A described use of a named schema shows as that schema: the summary's `previous` figures.
    expect(res.text.replaceAll('&quot;', '"')).toMatch(/"previous": \{\s+"visitors": 1840,/);
    // Plausible's Stats API v2 beside it, its lists those the code checks.
    expect(res.text).toContain('POST /api/v2/query');
    for (const name of ['bounce_rate', 'visit:source', 'time:week', 'has_done'])
      expect(res.text).toContain(name);
    // Nothing loaded from elsewhere: the dashboard's own script only (the search box), no
    // external stylesheets or images.
    expect([...res.text.matchAll(/<script[^>]*>/gi)].map((m) => m[0])).toEqual([
      expect.stringMatching(/^<script src="\/assets\/app\.[0-9a-f]{12}\.js" defer(="")?>$/),
    ]);
    expect(res.text).not.toMatch(/(src|href)="https?:/i);
    // The texts' Markdown is rendered: code as code, no backtick left outside the examples.
    const text = res.text.replace(/<pre[\s\S]*?<\/pre>/g, '');
    expect(text).not.toContain('`');
    expect(text).toContain('<code>domain</code>');
    // The page's one inline style is the one its policy allows (an escaped `>` would not be).
    const style = res.text.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? '';
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(style));
    const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
    expect(res.headers.get('content-security-policy')).toContain(`'sha256-${hash}'`);
    // Contents beside the sections, and a search box over them, shown by the script.
    expect(res.text).toContain('<nav class="contents" aria-label="Contents">');
    expect(res.text).toMatch(/<label hidden="" data-search-sections="main &gt; section">/);
  });
});
