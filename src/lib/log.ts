/**
 * Error logging without secrets. Every failure the Worker logs goes through `logError`: one
 * structured object (Workers Logs indexes its fields) with the event, where it happened
 * (method and path, never the query string or a body) and the error, its cause and its
 * stack. Error messages are not ours to trust: the driver quotes SQL and drizzle appends the
 * values bound to it, a mail service names the recipient. So the bound values are dropped,
 * and whatever looks like an API key, an IP address, an e-mail address or a long token is
 * replaced by a placeholder, everywhere in the entry.
 */

type Loggable = string | number | boolean | null | undefined;

export type LogContext = Record<string, Loggable>;

export type LoggedError = {
  name: string;
  message: string;
  stack?: string;
  cause?: LoggedError;
};

const REDACTIONS: [RegExp, string | ((match: string) => string)][] = [
  // API keys (`sl_` + 43 base64url characters), also cut short; not cookie names like `sl_session`.
  [/\bsl_[A-Za-z0-9_-]{12,}/g, 'sl_[key]'],
  [/[A-Za-z0-9.!#$%&'*+=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g, '[email]'],
  // IPv6 before IPv4, so an IPv4-mapped address goes as a whole. A candidate counts when it
  // has `::` or at least six colons, so `file.ts:12:34` and times like 10:20:30 stay.
  [
    /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{0,4})(?![\w:])/g,
    (m) => (m.includes('::') || (m.match(/:/g)?.length ?? 0) >= 6 ? '[ip]' : m),
  ],
  [/(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])/g, '[ip]'],
  // Hashes, HMACs, session tokens: long runs of hex or base64url that are not plain words.
  [/(?<![A-Za-z0-9_-])[0-9A-Fa-f]{32,}(?![A-Za-z0-9_-])/g, '[token]'],
  [
    /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g,
    (m) => (/\d/.test(m) || (/[a-z]/.test(m) && /[A-Z]/.test(m)) ? '[token]' : m),
  ],
];

/** The text with API keys, IP addresses, e-mail addresses and long tokens replaced. */
export function redact(text: string): string {
  let out = text;
  for (const [pattern, replacement] of REDACTIONS) {
    out = out.replace(pattern, replacement as (match: string) => string);
  }
  return out;
}

/** drizzle's DrizzleQueryError: "Failed query: <sql>\nparams: <bound values>". */
function isQueryError(err: Error): err is Error & { query: string; params: unknown[] } {
  const e = err as Error & { query?: unknown; params?: unknown };
  return typeof e.query === 'string' && Array.isArray(e.params);
}

/** An error as logged: its message without bound values, redacted; its cause, to a depth. */
export function describeError(err: unknown, depth = 0): LoggedError {
  if (!(err instanceof Error)) return { name: typeof err, message: redact(String(err)) };
  // Never the bound values: they are what a user typed or sent (e-mails, IPs, domains).
  const message = isQueryError(err) ? `Failed query: ${err.query}` : err.message;
  let stack = err.stack;
  if (stack !== undefined && message !== err.message) {
    const at = stack.indexOf(err.message);
    stack =
      at === -1
        ? stack.replace(/^[\s\S]*?(?=\n\s+at )/, `${err.name}: ${message}`)
        : stack.slice(0, at) + message + stack.slice(at + err.message.length);
  }
  const logged: LoggedError = { name: err.name, message: redact(message) };
  if (stack !== undefined) logged.stack = redact(stack);
  if (err.cause !== undefined && depth < 3) logged.cause = describeError(err.cause, depth + 1);
  return logged;
}

/** Where a request went: its method and path (no query string, redacted). */
export function requestContext(request: Request): { method: string; path: string } {
  return { method: request.method, path: redact(new URL(request.url).pathname) };
}

/**
 * Logs a failure as `{event, …context, error}`. Context values are redacted too; pass ids,
 * methods and paths, never request bodies, headers or credentials.
 */
export function logError(event: string, context: LogContext, err: unknown): void {
  const safe: Record<string, Loggable> = {};
  for (const [key, value] of Object.entries(context)) {
    safe[key] = typeof value === 'string' ? redact(value) : value;
  }
  console.error({ event, ...safe, error: describeError(err) });
}

/**
 * What a scheduled step did, as one line: its counts that are not zero (`reports: sent=2
 * queries=31`), or that it had nothing to do. One line in `wrangler dev`'s output and in
 * Workers Logs alike.
 */
export function logSummary(event: string, counts: Record<string, number | string>): void {
  const done = Object.entries(counts).filter(([key, n]) => n !== 0 && key !== 'queries');
  const queries = counts.queries === undefined ? '' : ` (${counts.queries} queries)`;
  console.log(
    done.length === 0
      ? `${event}: nothing to do${queries}`
      : `${event}: ${done.map(([key, n]) => `${key}=${n}`).join(' ')}${queries}`,
  );
}
