/**
 * The Sightline Worker's HTTP app. Each area of the product is its own router, mounted here;
 * errors from all of them go through the one `onError`.
 */
import { Hono } from 'hono';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from '../env.ts';
import { defaultBodyLimit } from '../http/body-limits.ts';
import { readableForm } from '../http/form.ts';
import { formRateLimit } from '../http/form-limit.ts';
import { pageSecurityHeaders, privateAnswers } from '../http/security-headers.ts';
import { loadSession } from '../http/session.ts';
import { replayHits } from '../ingest/replay.ts';
import { createIngestRoutes } from '../ingest/routes.ts';
import { ApiError, errorAnswer, formNotVerified } from '../lib/errors.ts';
import { createMcpRoutes } from '../mcp/routes.ts';
import { createAccountPages } from '../pages/account/account.tsx';
import { createAuthPages } from '../pages/account/auth.tsx';
import { createAssetRoutes } from '../pages/assets/serve.ts';
import { renderErrorPage } from '../pages/layout/error-page.tsx';
import { createAlertPages } from '../pages/mail-links/alert-links.tsx';
import { createInvitationPages } from '../pages/mail-links/invitations.tsx';
import { createReportLinkPages } from '../pages/mail-links/unsubscribe.tsx';
import { registerLinkOpeners } from '../pages/sharing/link-access.tsx';
import { createStatsPages } from '../pages/statistics/overview-page.tsx';
import { createWebsitePages } from '../pages/websites/websites.tsx';
import { createApiV2 } from '../query/api/v2/routes.ts';
import { createTrackerRoutes } from '../tracker/routes.ts';
import { createApi } from './api.tsx';

/** The dashboard pages: security headers, CSRF (Origin) check and the session on every one. */
function createPages() {
  const pages = new Hono<AppEnv>();
  pages.use('*', pageSecurityHeaders());
  pages.use('*', loadSession());
  // Reached from e-mails: authenticated by a signed link, not by a session or Origin.
  pages.route('/reports', createReportLinkPages());
  pages.route('/alerts', createAlertPages());
  const originCheck = csrf();
  pages.use('*', async function formOrigin(c, next) {
    try {
      await originCheck(c, next);
    } catch (err) {
      // Only the check's own refusal arrives here: errors after it are answered where thrown.
      throw err instanceof HTTPException && err.status === 403 ? formNotVerified() : err;
    }
  });
  // Every form is fields, but where a route sets its own limit (an import's upload).
  pages.use('*', defaultBodyLimit(64 * 1024, 'The form is too large.'));
  pages.use('*', readableForm());
  pages.post('/login', formRateLimit('login'));
  pages.post('/register', formRateLimit('register'));
  pages.post('/account/password', formRateLimit('password-change'));
  pages.post('/stats/:domain/password', formRateLimit('stats-password'));
  pages.post('/share/:domain/password', formRateLimit('stats-password'));
  pages.post('/embed/:domain/password', formRateLimit('stats-password'));
  pages.post('/invitations', formRateLimit('invitation'));
  pages.get('/', (c) => c.redirect(c.get('owner') ? '/websites' : '/login', 303));
  pages.route('/', createAuthPages());
  pages.route('/websites', createWebsitePages());
  pages.route('/account', createAccountPages());
  pages.route('/invitations', createInvitationPages());
  pages.route('/stats', createStatsPages());
  // A shared link's statistics: the same pages, under its address (src/pages/sharing/link-access.tsx).
  registerLinkOpeners(pages);
  pages.route('/share', createStatsPages());
  pages.route('/embed', createStatsPages());
  return pages;
}

export function createApp() {
  const app = new Hono<AppEnv>();
  // For uptime checks (and the benchmark's floor): no database, no session.
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.route('/js', createTrackerRoutes());
  app.route('/assets', createAssetRoutes());
  app.get('/favicon.ico', (c) => c.redirect('/assets/icon.svg', 301));
  app.route('/api', createIngestRoutes());
  // Local development only (REPLAY=on, localhost): demo traffic through the real pipeline.
  app.post('/__replay', replayHits);
  for (const path of ['/api/v1/*', '/api/v2/*', '/mcp', '/mcp/*']) app.use(path, privateAnswers);
  app.route('/api/v1', createApi());
  app.route('/api/v2', createApiV2());
  app.route('/mcp', createMcpRoutes());
  app.route('/', createPages());
  app.notFound(() => {
    throw new ApiError(404, 'Not found.');
  });
  // The one error path: JSON for the API and the hit endpoints, a page for everything else.
  app.onError((err, c) => {
    const answer = errorAnswer(err, c);
    // Plausible's Stats API v2 and Sites API say what went wrong as `{"error": …}`.
    if (c.req.path.startsWith('/api/v2/') || c.req.path.startsWith('/api/v1/sites/'))
      return c.json({ error: answer.body.message }, answer.status, answer.headers);
    return isJsonPath(c.req.path)
      ? c.json(answer.body, answer.status, answer.headers)
      : renderErrorPage(c, answer);
  });
  return app;
}

/** The API (`/api/v1`) and the hit endpoints (`/api/event`, `/api/send`) answer JSON. */
const isJsonPath = (path: string) => path === '/api' || path.startsWith('/api/');
