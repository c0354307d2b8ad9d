/**
 * The MCP server at `/mcp` (src/mcp/): the protocol's messages and errors, each tool's answer
 * against the API's own, the roles of members, and bad input — never a 5xx.
 */
import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { members } from '../../../src/db/schema.ts';
import { PROTOCOL_VERSIONS } from '../../../src/mcp/protocol.ts';
import { call, db, makeOwner, makeWebsite } from '../../support/api.ts';
import { sendHit } from '../../support/hits.ts';
import { flushLog } from '../../support/ingest-fixtures.ts';

type Rpc = {
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

let owner: Awaited<ReturnType<typeof makeOwner>>;
let other: Awaited<ReturnType<typeof makeOwner>>;
let site: Awaited<ReturnType<typeof makeWebsite>>;
let othersSite: Awaited<ReturnType<typeof makeWebsite>>;

const post = (
  body: unknown,
  key: string | null = owner.key,
  headers: Record<string, string> = {},
) =>
  call('/mcp', {
    method: 'POST',
    key,
    headers: { accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? { raw: body, type: 'application/json' } : { json: body },
  });

let next = 1;
async function rpc(method: string, params?: Record<string, unknown>, key?: string) {
  const res = await post(
    { jsonrpc: '2.0', id: next++, method, ...(params ? { params } : {}) },
    key,
  );
  expect(res.status).toBe(200);
  return res.json as unknown as Rpc;
}

const callTool = async (name: string, args: Record<string, unknown>, key?: string) =>
  (await rpc('tools/call', { name, arguments: args }, key)).result as {
    content: { type: string; text: string }[];
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
  };

const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  owner = await makeOwner('mcp');
  other = await makeOwner('mcp-other');
  site = await makeWebsite(owner.key, { domain: 'mcp.example.com' });
  othersSite = await makeWebsite(other.key, { domain: 'mcp-other.example.com' });
  for (const [path, ip] of [
    ['/', '198.51.100.1'],
    ['/pricing', '198.51.100.1'],
    ['/', '198.51.100.2'],
  ] as const) {
    const res = await sendHit({ page: `https://mcp.example.com${path}` }, { ip });
    expect(res.status).toBe(202);
  }
  await flushLog(site.id);
});

describe('the protocol', () => {
  it('initializes with a version both speak, pings and lists read-only tools', async () => {
    const init = await rpc('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'test', version: '1' },
    });
    expect(init.result).toMatchObject({
      protocolVersion: '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'sightline' },
    });
    const newer = await rpc('initialize', { protocolVersion: '2099-01-01', capabilities: {} });
    expect(newer.result?.protocolVersion).toBe(PROTOCOL_VERSIONS[0]);
    expect((await rpc('ping')).result).toEqual({});
    const { tools } = (await rpc('tools/list')).result as {
      tools: {
        name: string;
        inputSchema: { type: string };
        annotations: Record<string, boolean>;
      }[];
    };
    expect(tools.map((t) => t.name)).toEqual([
      'list_websites',
      'query',
      'list_goals',
      'list_segments',
      'list_funnels',
      'funnel',
      'journeys',
      'realtime',
    ]);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.annotations.readOnlyHint).toBe(true);
    }
  });

  it('answers notifications and responses 202, without a body', async () => {
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    expect(note.text).toBe('');
    expect((await post({ jsonrpc: '2.0', id: 5, result: {} })).status).toBe(202);
  });

  it("answers malformed messages with JSON-RPC's errors, never a 5xx", async () => {
    const cases: [unknown, number, number][] = [
      ['{not json', 400, -32700],
      [[{ jsonrpc: '2.0', id: 1, method: 'ping' }], 400, -32600],
      [{ jsonrpc: '1.0', id: 1, method: 'ping' }, 400, -32600],
      [{ jsonrpc: '2.0', id: 1, method: 7 }, 400, -32600],
      [{ jsonrpc: '2.0', id: {}, method: 'ping' }, 400, -32600],
      [{ jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' }, 400, -32600],
      [{ jsonrpc: '2.0', id: 1, method: 'resources/list' }, 200, -32601],
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'drop_tables' } },
        200,
        -32602,
      ],
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'realtime', arguments: { site_id: 7 } },
        },
        200,
        -32602,
      ],
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'realtime', arguments: {} },
        },
        200,
        -32602,
      ],
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'journeys',
            arguments: { site_id: 'mcp.example.com', page: '/', steps: 9 },
          },
        },
        200,
        -32602,
      ],
    ];
    for (const [body, status, code] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((res.json as unknown as Rpc).error?.code, JSON.stringify(body)).toBe(code);
    }
    const big = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(70_000) },
    });
    expect(big.status).toBe(413);
    expect((big.json as unknown as Rpc).error?.code).toBe(-32600);
  });

  it("takes the tool's own arguments only: no name of an object's prototype", async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_websites","arguments":{"${name}":1}}}`;
      const res = await post(body);
      expect(res.status, name).toBe(200);
      const error = (res.json as unknown as Rpc).error;
      expect(error?.code, name).toBe(-32602);
      expect(error?.message, name).toContain(`arguments.${name} is not an argument`);
    }
  });

  it('reads at most 64 KB of a body: a chunked one that never ends gets its 413', async () => {
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 4096;
        controller.enqueue(new TextEncoder().encode(' '.repeat(4096)));
      },
    });
    const res = await exports.default.fetch(
      new Request('https://sightline.test/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${owner.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: endless,
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as Rpc).error?.code).toBe(-32600);
    // Read up to the limit and a chunk past it, never the rest.
    expect(sent).toBeLessThanOrEqual(64 * 1024 + 3 * 4096);
  });

  it('asks for a key (401), refuses a foreign origin (403), other methods (405) and versions (400)', async () => {
    for (const key of [null, 'not-a-key']) {
      const res = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, key);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    const foreign = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, owner.key, {
      origin: 'https://attacker.example',
    });
    expect(foreign.status).toBe(403);
    const same = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, owner.key, {
      origin: 'https://sightline.test',
    });
    expect(same.status).toBe(200);
    const get = await call('/mcp', { key: owner.key });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const version = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, owner.key, {
      'mcp-protocol-version': '1999-01-01',
    });
    expect(version.status).toBe(400);
  });
});

describe('the tools', () => {
  it('list the websites the key may read, with its role', async () => {
    const r = await callTool('list_websites', {});
    expect(r.structuredContent).toEqual({
      websites: [{ site_id: 'mcp.example.com', timezone: 'UTC', role: 'owner' }],
    });
    expect(r.content[0]?.text).toContain('mcp.example.com');
  });

  it('answer a v2 question as POST /api/v2/query does, and its errors in the same words', async () => {
    const question = {
      site_id: 'mcp.example.com',
      metrics: ['visitors', 'pageviews'],
      date_range: [today(), today()],
      dimensions: ['event:page'],
    };
    const r = await callTool('query', question);
    const api = await call('/api/v2/query', {
      method: 'POST',
      key: owner.key,
      body: { json: question },
    });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual(api.json);
    expect(r.content[0]?.text).toContain('| event:page | visitors | pageviews |');
    expect(r.content[0]?.text).toContain('| / | 2 | 2 |');
    const bad = { ...question, metrics: ['scroll_depht'] };
    const wrong = await callTool('query', bad);
    const apiWrong = await call('/api/v2/query', {
      method: 'POST',
      key: owner.key,
      body: { json: bad },
    });
    expect(wrong.isError).toBe(true);
    expect(wrong.content[0]?.text).toBe((apiWrong.json as { error: string }).error);
  });

  it('list goals and funnels, answer a funnel, journeys and realtime as the API does', async () => {
    const goal = await call(`/api/v1/websites/${site.id}/goals`, {
      method: 'POST',
      key: owner.key,
      body: { form: { page: '/pricing' } },
    });
    expect(goal.status).toBe(201);
    const funnel = await call(`/api/v1/websites/${site.id}/funnels`, {
      method: 'POST',
      key: owner.key,
      body: { json: { name: 'Buy', steps: [{ page: '/' }, { page: '/pricing' }] } },
    });
    expect(funnel.status).toBe(201);
    const funnelId = (funnel.json.data as { id: number }).id;
    const goals = await callTool('list_goals', { site_id: 'mcp.example.com' });
    expect(goals.structuredContent?.goals).toHaveLength(1);
    const funnels = await callTool('list_funnels', { site_id: 'mcp.example.com' });
    expect(funnels.structuredContent?.funnels).toMatchObject([{ id: funnelId, name: 'Buy' }]);
    const answered = await callTool('funnel', {
      site_id: 'mcp.example.com',
      funnel_id: funnelId,
      date_range: 'day',
    });
    const api = await call(
      `/api/v1/stats/${site.id}/funnels/${funnelId}?from=${today()}&to=${today()}`,
      {
        key: owner.key,
      },
    );
    expect(answered.structuredContent?.steps).toEqual((api.json.data as { steps: unknown }).steps);
    const journeys = await callTool('journeys', {
      site_id: 'mcp.example.com',
      page: '/',
      date_range: 'day',
      filters: [{ dimension: 'browser', operator: 'not', value: 'Safari' }],
    });
    expect(journeys.structuredContent?.paths).toEqual([
      { path: ['/', '(exit)'], visits: 1 },
      { path: ['/', '/pricing'], visits: 1 },
    ]);
    const badFilter = await callTool('journeys', {
      site_id: 'mcp.example.com',
      page: '/',
      filters: [{ dimension: 'shoe_size', value: '42' }],
    });
    expect(badFilter.isError).toBe(true);
    const realtime = await callTool('realtime', { site_id: 'mcp.example.com' });
    expect(realtime.structuredContent).toEqual({ visitors: expect.any(Number) });
  });

  it("answer another person's website as an unknown one, and a member's as the API does", async () => {
    for (const name of ['list_goals', 'list_segments', 'list_funnels', 'realtime']) {
      const theirs = await callTool(name, { site_id: othersSite.domain });
      const unknown = await callTool(name, { site_id: 'nobody.example.com' });
      expect(theirs).toEqual(unknown);
      expect(theirs.isError).toBe(true);
    }
    const q = { metrics: ['visitors'], date_range: 'day' };
    expect(await callTool('query', { site_id: othersSite.domain, ...q })).toEqual(
      await callTool('query', { site_id: 'nobody.example.com', ...q }),
    );
    // A viewer of the owner's website (an invitation accepted) reads it.
    await db().insert(members).values({
      websiteId: site.id,
      ownerId: other.id,
      email: other.email,
      role: 'viewer',
      createdAt: Date.now(),
      acceptedAt: Date.now(),
    });
    const listed = await callTool('list_websites', {}, other.key);
    expect(listed.structuredContent?.websites).toEqual(
      expect.arrayContaining([{ site_id: 'mcp.example.com', timezone: 'UTC', role: 'viewer' }]),
    );
    const read = await callTool('realtime', { site_id: 'mcp.example.com' }, other.key);
    expect(read.isError).toBeUndefined();
  });
});
