/**
 * Security headers for every HTML page: a Content-Security-Policy without inline scripts or
 * styles (only the Worker's own assets), no framing, no sniffing, no referrer to other sites.
 * A self-contained page (the API reference) may name its own inline styles: each is allowed
 * by its SHA-256 hash, never by `'unsafe-inline'`.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

const directives = (styleSources: string[], framedBy = "'none'") =>
  [
    "default-src 'none'",
    "script-src 'self'",
    ["style-src 'self'", ...styleSources].join(' '),
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    `frame-ancestors ${framedBy}`,
    "base-uri 'none'",
  ].join('; ');

/** `'sha256-…'`, the CSP source that allows an inline `<style>` with exactly this text. */
async function hashSource(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
}

export const pageSecurityHeaders = ({ inlineStyles = [] }: { inlineStyles?: string[] } = {}) => {
  let policy: Promise<string> | undefined;
  return createMiddleware<AppEnv>(async function pageSecurityHeaders(c, next) {
    await next();
    policy ??= Promise.all(inlineStyles.map(hashSource)).then((sources) => directives(sources));
    // A shared link's embed (`/embed`, `/embed/{id}`: src/pages/sharing/link-access.tsx) may be
    // framed by any page; every other response refuses frames.
    const embedded = c.get('embedded') === true;
    c.header('Content-Security-Policy', embedded ? directives([], '*') : await policy);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'same-origin');
    if (!embedded) c.header('X-Frame-Options', 'DENY');
    c.header('Cache-Control', PRIVATE);
  });
};

/** Neither a shared cache nor the browser's keeps it: an answer with someone's figures. */
const PRIVATE = 'private, no-store';

/**
 * `Cache-Control: private, no-store` on every answer of a route that answers someone's figures
 * or settings (API v1, the Stats API v2, MCP): never kept by a cache on the way, nor by the
 * browser.
 */
export const privateAnswers = createMiddleware<AppEnv>(async function privateAnswers(c, next) {
  await next();
  c.header('Cache-Control', PRIVATE);
});
