/**
 * Security headers for every HTML page: a Content-Security-Policy without inline scripts or
 * styles (only the Worker's own assets), no framing, no sniffing, no referrer to other sites.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const pageSecurityHeaders = () =>
  createMiddleware<AppEnv>(async function pageSecurityHeaders(c, next) {
    await next();
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'same-origin');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cache-Control', 'no-store');
  });
