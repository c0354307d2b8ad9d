/**
 * The Model Context Protocol as Sightline's server speaks it (docs/ARCHITECTURE.md, "Ask from
 * an assistant"): JSON-RPC 2.0 messages, one per request of the Streamable HTTP transport, and
 * the errors the specification names. Small on purpose: the official SDK's server would take
 * the Worker past its size budget (docs/BENCHMARKS.md, section 6).
 */

/** The protocol versions this server speaks, newest first (the first is offered). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** JSON-RPC's error codes (and the protocol's). */
export const ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
} as const;

type Id = string | number;

/** What one message of a POST is. */
export type Message =
  | { kind: 'request'; id: Id; method: string; params: Record<string, unknown> }
  | { kind: 'notification'; method: string }
  | { kind: 'response' }
  | { kind: 'invalid'; id: Id | null; message: string };

const isId = (id: unknown): id is Id =>
  (typeof id === 'string' && id.length > 0) || (typeof id === 'number' && Number.isInteger(id));

/** Reads a parsed JSON value as one JSON-RPC message (batches are not part of the protocol). */
export function readMessage(value: unknown): Message {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { kind: 'invalid', id: null, message: 'Invalid Request: expected one JSON-RPC object' };
  const m = value as Record<string, unknown>;
  const id = isId(m.id) ? m.id : null;
  if (m.jsonrpc !== '2.0')
    return { kind: 'invalid', id, message: 'Invalid Request: "jsonrpc" must be "2.0"' };
  if (m.method === undefined && ('result' in m || 'error' in m)) return { kind: 'response' };
  if (typeof m.method !== 'string' || m.method === '')
    return { kind: 'invalid', id, message: 'Invalid Request: "method" must be a string' };
  if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null))
    return { kind: 'invalid', id, message: 'Invalid Request: "params" must be an object' };
  if (!('id' in m)) return { kind: 'notification', method: m.method };
  if (id === null)
    return { kind: 'invalid', id, message: 'Invalid Request: "id" must be a string or an integer' };
  const params = (m.params ?? {}) as Record<string, unknown>;
  if (Array.isArray(params))
    return { kind: 'invalid', id, message: 'Invalid Request: "params" must be an object' };
  return { kind: 'request', id, method: m.method, params };
}

/** A JSON-RPC error answer. */
export const errorMessage = (id: Id | null, code: number, message: string) => ({
  jsonrpc: '2.0' as const,
  id,
  error: { code, message },
});

/** A JSON-RPC result answer. */
export const resultMessage = (id: Id, result: unknown) => ({ jsonrpc: '2.0' as const, id, result });

/** An error a request's handling answers (`code`: JSON-RPC's). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
