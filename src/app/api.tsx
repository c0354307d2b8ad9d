/**
 * API v1 (docs/ARCHITECTURE.md, The HTTP contract): wire-compatible with phpAnalytics' API v1. The OpenAPI document
 * and the reference page are public; every other route needs a Bearer key.
 */
import { bearerAuth } from '../accounts/http.ts';
import { registerAlertRoutes } from '../alerts/routes.ts';
import { registerAnnotationRoutes } from '../annotations/routes.ts';
import { registerArchiveRoutes } from '../archive/routes.ts';
import { registerExportRoutes } from '../exports/routes.ts';
import { registerFilteredTrafficRoutes } from '../filtered-traffic/routes.ts';
import { registerFlowRoutes } from '../flows/routes.ts';
import { registerGoalRoutes } from '../goals/routes.ts';
import { defaultBodyLimit } from '../http/body-limits.ts';
import { ApiApp, openApiDocument } from '../http/openapi.ts';
import { registerImportRoutes } from '../imports/routes.ts';
import { addressRateLimit } from '../lib/rate-limit.ts';
import { registerMemberRoutes } from '../members/routes.ts';
import { ReferencePage, referencePageHeaders } from '../pages/reference/api-reference.tsx';
import { registerStatsRoutes } from '../query/api/v1/routes.ts';
import { registerReportRoutes } from '../reports/routes.ts';
import { registerSegmentRoutes } from '../segments/routes.ts';
import { registerSharingRoutes } from '../sharing/routes.ts';
import { registerWebsiteRoutes } from '../websites/routes.ts';

/** Largest API request body; website fields are far smaller (docs/ARCHITECTURE.md, The HTTP contract: 64 KB). */
const API_BODY_LIMIT = 64 * 1024;

const OPENAPI_INFO = {
  openapi: '3.1.0',
  info: {
    title: 'Sightline API',
    version: '1.0.0',
    description:
      "Privacy-first web analytics. Wire-compatible with phpAnalytics' API v1: website management and per-statistic reports.",
    license: { name: 'MIT', identifier: 'MIT' },
  },
};

export function createApi() {
  const api = new ApiApp();
  api.securitySchemes.bearerAuth = {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key from `npm run user:create` or `npm run user:rotate-key`.',
  };

  const document = (origin: string) =>
    openApiDocument(api, { ...OPENAPI_INFO, servers: [{ url: `${origin}/api/v1` }] });
  api.get('/openapi.json', (c) => c.json(document(new URL(c.req.url).origin)));
  api.get('/docs', referencePageHeaders(), (c) =>
    c.html(<ReferencePage doc={document(new URL(c.req.url).origin)} />),
  );

  // Counted per client address before any key is looked up (random keys cost a D1 read).
  api.use('*', addressRateLimit('api'));
  api.use('*', bearerAuth());
  // Every body is fields, but where a route sets its own limit (an import's file).
  api.use('*', defaultBodyLimit(API_BODY_LIMIT, 'The request body is too large.'));
  registerWebsiteRoutes(api);
  registerGoalRoutes(api);
  registerFlowRoutes(api);
  registerImportRoutes(api);
  registerExportRoutes(api);
  registerFilteredTrafficRoutes(api);
  registerArchiveRoutes(api);
  registerSegmentRoutes(api);
  registerAnnotationRoutes(api);
  registerAlertRoutes(api);
  registerReportRoutes(api);
  registerSharingRoutes(api);
  registerMemberRoutes(api);
  registerStatsRoutes(api);
  return api;
}
