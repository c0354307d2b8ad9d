/**
 * Sightline's MCP server at `/mcp` (docs/ARCHITECTURE.md, "Ask from an assistant"): the
 * protocol's Streamable HTTP transport without sessions — each POST one JSON-RPC message,
 * answered with one JSON response (notifications and responses: 202) — authenticated by a
 * Sightline API key as a Bearer token, limited as the Stats API is. Every failure is the
 * protocol's: JSON-RPC errors, 401 without a valid key, 403 for a foreign `Origin` (DNS
 * rebinding), 405 for other methods, 413 for a body over 64 KB, never a 5xx.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { findOwnerIdByApiKey } from '../accounts/api-keys.ts';
import { createDb } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { clientAddressKey } from '../lib/ip.ts';
import { logError } from '../lib/log.ts';
import { RETRY_AFTER_SECONDS, withinLimit } from '../lib/rate-limit.ts';
import { answerText } from './answer-text.ts';
import { problemOf } from './arguments.ts';
import {
  ERRORS,
  errorMessage,
  PROTOCOL_VERSIONS,
  RpcError,
  readMessage,
  resultMessage,
} from './protocol.ts';
import { type Asker, TOOLS, ToolFailure } from './tools.ts';

/** A message is small; the limit leaves room for long filters all the same. */
const BODY_LIMIT = 64 * 1024;

const INSTRUCTIONS =
  "Sightline web analytics: exact, unsampled numbers of the websites this key may read. Start with list_websites; site_id is a website's domain. query answers any metrics × dimensions × filters question as Plausible's Stats API v2 does.";

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** Host names of this machine, with or without a port. */
const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/**
 * Whether a request may be answered (DNS rebinding protection): its `Origin`, when sent, is
 * the server's own (as requested, or as configured in `PUBLIC_URL`); a request from this
 * machine (a server under `wrangler dev`) names this machine or `PUBLIC_URL` as its host and
 * origin — a page of another site whose name was pointed at 127.0.0.1 is refused.
 */
function allowed(request: Request, client: string | undefined, publicUrl: string | undefined) {
  const url = new URL(request.url);
  let configured: URL | undefined;
  try {
    configured = publicUrl ? new URL(publicUrl) : undefined;
  } catch {}
  const origin = request.headers.get('origin');
  const ours = (o: string) => o === url.origin || o === configured?.origin;
  if (client !== '127.0.0.1' && client !== '::1') return origin === null || ours(origin);
  const local = (host: string) => LOOPBACK_HOST.test(host) || host === configured?.host;
  let originHost: string | undefined;
  try {
    originHost = origin === null ? undefined : new URL(origin).host;
  } catch {
    return false;
  }
  return local(url.host) && (originHost === undefined || local(originHost) || ours(origin ?? ''));
}

/** Answers one request of the protocol. */
async function answer(asker: Asker, method: string, params: Record<string, unknown>) {
  switch (method) {
    case 'initialize': {
      const asked = params.protocolVersion;
      return {
        protocolVersion: PROTOCOL_VERSIONS.includes(asked as string) ? asked : PROTOCOL_VERSIONS[0],
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'sightline', title: 'Sightline', version: '1.0.0' },
        instructions: INSTRUCTIONS,
      };
    }
    case 'ping':
      return {};
    case 'tools/list':
      return {
        tools: TOOLS.map(({ name, title, description, inputSchema }) => ({
          name,
          title,
          description,
          inputSchema,
          annotations: { readOnlyHint: true, openWorldHint: false },
        })),
      };
    case 'tools/call': {
      const tool = TOOLS.find((t) => t.name === params.name);
      if (!tool) throw new RpcError(ERRORS.invalidParams, `Unknown tool: ${String(params.name)}`);
      const args = params.arguments ?? {};
      const problem = problemOf(tool.inputSchema, args);
      if (problem)
        throw new RpcError(ERRORS.invalidParams, `Invalid arguments for ${tool.name}: ${problem}`);
      try {
        const structured = await tool.run(asker, args as Record<string, unknown>);
        return {
          content: [{ type: 'text', text: answerText(structured) }],
          structuredContent: structured,
        };
      } catch (err) {
        if (!(err instanceof ToolFailure)) throw err;
        return { content: [{ type: 'text', text: err.message }], isError: true };
      }
    }
    default:
      throw new RpcError(ERRORS.methodNotFound, `Method not found: ${method}`);
  }
}

export function createMcpRoutes() {
  const mcp = new Hono<AppEnv>();
  // At most 64 KB of any body, read no further (a chunked one without Content-Length too).
  mcp.use(
    '/',
    bodyLimit({
      maxSize: BODY_LIMIT,
      onError: () =>
        json(errorMessage(null, ERRORS.invalidRequest, 'Request too large: at most 64 KB.'), 413),
    }),
  );
  mcp.all('/', async (c) => {
    if (!allowed(c.req.raw, c.req.header('cf-connecting-ip'), c.env.PUBLIC_URL))
      return json(
        errorMessage(
          null,
          ERRORS.invalidRequest,
          'Forbidden: this Origin or Host may not call the server.',
        ),
        403,
      );
    if (c.req.method !== 'POST')
      return json(
        errorMessage(
          null,
          ERRORS.invalidRequest,
          'Method not allowed: send JSON-RPC messages by POST.',
        ),
        405,
        { allow: 'POST' },
      );
    const key = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
    const unauthorized = (message: string) =>
      json(errorMessage(null, ERRORS.invalidRequest, message), 401, {
        'www-authenticate': 'Bearer',
      });
    if (!key) return unauthorized('Unauthorized: send a Sightline API key as a Bearer token.');
    const tooMany = () =>
      json(
        errorMessage(null, ERRORS.invalidRequest, 'Too many requests: try again in a minute.'),
        429,
        {
          'retry-after': String(RETRY_AFTER_SECONDS),
        },
      );
    const address = clientAddressKey(c);
    if (!(await withinLimit(c.env, 'RATE_LIMIT_ADDRESSES', [address, 'api']))) return tooMany();
    if (!(await withinLimit(c.env, 'RATE_LIMIT_API', [key]))) return tooMany();
    const db = createDb(c.env.DB);
    const personId = await findOwnerIdByApiKey(db, key);
    if (personId === null) return unauthorized('Unauthorized: the API key is not valid.');
    const version = c.req.header('mcp-protocol-version');
    if (version !== undefined && !PROTOCOL_VERSIONS.includes(version))
      return json(
        errorMessage(null, ERRORS.invalidRequest, `Unsupported protocol version: ${version}`),
        400,
      );
    if (!/application\/json/i.test(c.req.header('content-type') ?? ''))
      return json(
        errorMessage(null, ERRORS.invalidRequest, 'Unsupported Media Type: send application/json.'),
        415,
      );
    const text = await c.req.text();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return json(errorMessage(null, ERRORS.parse, 'Parse error: the body is not JSON.'), 400);
    }
    const message = readMessage(value);
    if (message.kind === 'invalid')
      return json(errorMessage(message.id, ERRORS.invalidRequest, message.message), 400);
    if (message.kind !== 'request') return new Response(null, { status: 202 });
    const asker: Asker = { env: c.env, db, personId, address };
    try {
      return json(resultMessage(message.id, await answer(asker, message.method, message.params)));
    } catch (err) {
      if (err instanceof RpcError) return json(errorMessage(message.id, err.code, err.message));
      logError('mcp request failed', { method: message.method }, err);
      return json(
        errorMessage(message.id, ERRORS.internal, 'Internal error: try again in a moment.'),
      );
    }
  });
  return mcp;
}
