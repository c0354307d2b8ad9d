/**
 * The MCP server at `/mcp` under `wrangler dev`, as assistants meet it: the official
 * TypeScript SDK's client (`@modelcontextprotocol/sdk`) connects with a Bearer key, lists the
 * tools and calls each; and the protocol's conformance suite (`@modelcontextprotocol/conformance`)
 * runs its server scenarios that apply to a server with its own tools, through a small proxy
 * that adds the key (the suite sends none; Sightline has no unauthenticated mode). Scenarios
 * left out, and why: docs/ARCHITECTURE.md, "Ask from an assistant".
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unstable_DevWorker } from 'wrangler';
import { withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { startWorker } from '../../scripts/lib/worker.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { createWebsite } from '../../src/websites/service.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SITE = 'assistant.example.com';

let state: string;
let worker: Unstable_DevWorker;
let apiKey: string;
let proxy: Server;

/** The server's URL; through the proxy, which adds the key to every request. */
const direct = () => `http://127.0.0.1:${worker.port}/mcp`;
const proxied = () => `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'sightline-mcp-'));
  await withDatabase({ remote: false, persistTo: state }, async (db) => {
    const owner = await createOwner(db, { email: 'asks@example.com', password: 'asking away' });
    apiKey = owner.apiKey;
    await createWebsite(db, owner.id, { domain: SITE }, suffixesOnDisk);
  });
  worker = await startWorker(state);
  const hit = await fetch(`http://127.0.0.1:${worker.port}/api/event`, {
    method: 'POST',
    headers: {
      'content-type': 'text/plain',
      'user-agent':
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    },
    body: JSON.stringify({ page: `https://${SITE}/launch` }),
  });
  expect(hit.status).toBe(202);
  // The proxy: the request as the suite sent it (its Host and Origin too), plus the key.
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !['connection', 'content-length'].includes(name))
        headers.set(name, value);
    headers.set('authorization', `Bearer ${apiKey}`);
    const answer = await fetch(`http://127.0.0.1:${worker.port}${req.url}`, {
      method: req.method,
      headers,
      body: ['GET', 'HEAD'].includes(req.method ?? 'GET') ? undefined : Buffer.concat(chunks),
    });
    const passed: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding'].includes(name))
        passed[name] = value;
    });
    res.writeHead(answer.status, passed);
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
});

afterAll(async () => {
  proxy?.close();
  await worker?.stop();
  if (state) await rm(state, { recursive: true, force: true });
});

describe("the official SDK's client", () => {
  it('connects with a key, lists the tools and calls each', async () => {
    const client = new Client({ name: 'sightline-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(direct()), {
        requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      }),
    );
    const { tools } = await client.listTools();
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
    const sites = await client.callTool({ name: 'list_websites', arguments: {} });
    expect(sites.structuredContent).toEqual({
      websites: [{ site_id: SITE, timezone: 'UTC', role: 'owner' }],
    });
    const query = await client.callTool({
      name: 'query',
      arguments: {
        site_id: SITE,
        metrics: ['pageviews'],
        date_range: 'day',
        dimensions: ['event:page'],
      },
    });
    expect(query.isError).toBeFalsy();
    expect((query.content as { text: string }[])[0]?.text).toContain('| /launch | 1 |');
    for (const [name, args] of [
      ['list_goals', { site_id: SITE }],
      ['list_funnels', { site_id: SITE }],
      ['journeys', { site_id: SITE, page: '/launch', date_range: 'day' }],
      ['realtime', { site_id: SITE }],
    ] as const) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, name).toBeFalsy();
    }
    const funnel = await client.callTool({
      name: 'funnel',
      arguments: { site_id: SITE, funnel_id: 1 },
    });
    expect(funnel.isError).toBe(true);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
    await expect(client.callTool({ name: 'realtime', arguments: { site_id: 42 } })).rejects.toThrow(
      /site_id must be a string/,
    );
    await client.close();
  });

  it('is refused without a key', async () => {
    const client = new Client({ name: 'sightline-test', version: '1.0.0' });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(direct()))),
    ).rejects.toThrow();
  });
});

/** The conformance suite's server scenarios this server takes part in. */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

/** Runs one scenario of the suite against the proxy; its exit code and output. */
function conformance(scenario: string): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [
        join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
        'server',
        '--url',
        proxied(),
        '--scenario',
        scenario,
      ],
      { cwd: state, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => done({ code, out }));
  });
}

describe("the protocol's conformance suite", () => {
  it.each(SCENARIOS)('passes %s', async (scenario) => {
    const { code, out } = await conformance(scenario);
    expect(code, out).toBe(0);
  });
});
