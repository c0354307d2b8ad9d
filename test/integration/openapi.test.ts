import { describe, expect, it } from 'vitest';
import { call } from '../support/api.ts';

describe('OpenAPI document and reference page', () => {
  it('serves an OpenAPI 3.1 document generated from the request schemas', async () => {
    const res = await call('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://sightline.test/api/v1' }]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/stats/{id}',
      '/stats/{id}/summary',
      '/websites',
      '/websites/{id}',
    ]);
    expect(Object.keys(doc.paths['/websites']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/websites/{id}']).sort()).toEqual([
      'delete',
      'get',
      'patch',
      'put',
    ]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });

    const input = doc.components.schemas.WebsiteInput;
    expect(Object.keys(input.properties)).toEqual([
      'domain',
      'privacy',
      'password',
      'email',
      'exclude_bots',
      'exclude_params',
      'exclude_ips',
      'timezone',
    ]);
    expect(input.properties.privacy).toMatchObject({ type: 'integer', enum: [0, 1, 2] });
    expect(input.properties.exclude_bots).toMatchObject({ type: 'integer', enum: [0, 1] });
    const post = doc.paths['/websites'].post;
    expect(Object.keys(post.requestBody.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    expect(Object.keys(post.responses).sort()).toEqual(['201', '401', '422']);
    const list = doc.paths['/websites'].get;
    const perPage = list.parameters.find((p: { name: string }) => p.name === 'per_page');
    expect(perPage).toMatchObject({
      in: 'query',
      schema: { type: 'integer', enum: [10, 25, 50, 100] },
    });
    expect(doc.components.schemas.Website.properties.password.type).toBe('boolean');

    const stats = doc.paths['/stats/{id}'].get;
    const names = stats.parameters.find((p: { name: string }) => p.name === 'name');
    expect(names.schema.enum).toHaveLength(22);
    const examples = stats.responses['200'].content['application/json'].examples;
    expect(Object.keys(examples)).toEqual(['browser', 'pageviews']);
    expect(examples.browser.value.data[0]).toEqual({ value: 'Chrome', count: 1204 });
    expect(Object.keys(doc.components.schemas.Stats.properties)).toEqual([
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
    // Nothing loaded from elsewhere: no scripts at all, no external stylesheets or images.
    expect(res.text).not.toMatch(/<script/i);
    expect(res.text).not.toMatch(/(src|href)="https?:/i);
  });
});
