/**
 * Shared links through the API (./links.ts): `…/websites/{id}/shared-links` to list (paged as
 * the website list is, no tokens) and add (its `url`, shown once), `…/shared-links/{link_id}`
 * to revoke. Another owner's website, a link of another website and an id that names nothing
 * are the same 404.
 */

import { personOf } from '../accounts/owners.ts';
import type { ApiApp } from '../http/openapi.ts';
import { linkOrigin } from '../http/origin.ts';
import { linksSchema, listPage, metaSchema, pageField, perPageField } from '../http/pagination.ts';
import { websiteResource } from '../http/resource.ts';
import { jsonContent } from '../http/responses.ts';
import { idParam, serveRoute } from '../http/route.ts';
import { notFound } from '../lib/errors.ts';
import { s } from '../lib/json-schema.ts';
import { websiteOf } from '../websites/http.ts';
import { createSharedLink, deleteSharedLink, listSharedLinks } from './links.ts';

const linkSchema = s
  .object({
    id: s.number().int().openapi({ example: 3 }),
    name: s.string().openapi({ example: 'Client' }),
    url: s.string().optional().openapi({
      description:
        'Only when the link is made: the token is not kept. It follows `#`, which browsers never send, so no request log holds it; the page there trades it for a cookie and the link’s own address (`/share/{id}`). Parameters may follow the token after `?` (`…#{token}?range=30d`).',
      example: 'https://stats.example.com/share#3q2-7wEAAAA…',
    }),
    embed_url: s.string().optional().openapi({
      description:
        'Only when the link is made: the address to frame (`<iframe src="…">`), the token after `#` as in `url`.',
      example: 'https://stats.example.com/embed#3q2-7wEAAAA…',
    }),
    has_password: s.boolean(),
    segment_id: s.number().int().nullable().openapi({ example: null }),
    created_by: s.string().nullable().openapi({
      example: 'admin@example.com',
      description:
        'The e-mail of who made the link (or was handed it); null for a link made before Sightline recorded makers, which counts as the owner’s. An admin’s links are revoked when they stop being an admin, unless handed over.',
    }),
    created_at: s.string().openapi({ example: '2026-11-25T09:30:00.000000Z' }),
  })
  .openapi('SharedLink');

const linkInput = s
  .object({
    name: s.string().openapi({ description: '1–120 characters.', example: 'Client' }),
    password: s.string().optional().openapi({ description: 'Optional, 8–128 characters.' }),
    segment_id: s.number().int().optional().openapi({
      description:
        "Optional: one of the website's site segments. The link then shows that segment's numbers alone, which its readers cannot remove; deleting the segment revokes the link.",
    }),
  })
  .openapi('SharedLinkInput');

const links = websiteResource({
  tag: 'Sharing',
  plural: 'shared-links',
  item: { name: 'link_id', example: '3' },
  record: linkSchema,
});

const routes = {
  list: links.route({
    method: 'get',
    path: links.collection,
    summary: "List a website's shared links",
    description: 'The links, oldest first, a page at a time (without their tokens).',
    request: { params: idParam, query: s.object({ per_page: perPageField(25), page: pageField }) },
    responses: {
      200: jsonContent(
        s.object({
          data: s.array(linkSchema),
          links: linksSchema,
          meta: metaSchema,
          status: s.number().int(),
        }),
        'A page of shared links.',
      ),
      ...links.reads,
      ...links.invalid,
    },
  }),
  create: links.route({
    method: 'post',
    path: links.collection,
    summary: 'Share the statistics through a secret link',
    description:
      "The link opens the website's statistics pages read-only to whoever has it; its `embed_url` shows them without the site's chrome, frameable by any page. Both are shown only now. At most 100 links a website; the key's person is its maker (`created_by`): when they stop being an admin, it is revoked unless handed over.",
    request: {
      params: idParam,
      body: {
        required: true,
        content: {
          'application/json': { schema: linkInput },
          'application/x-www-form-urlencoded': { schema: linkInput },
        },
      },
    },
    responses: {
      201: links.one('The new link, with its url.', 201),
      ...links.reads,
      ...links.invalid,
    },
  }),
  delete: links.route({
    method: 'delete',
    path: links.item,
    summary: 'Revoke a shared link',
    description: 'It stops working at once.',
    request: { params: links.itemParams },
    responses: { 200: links.deleted('shared_link', 'The link was revoked.'), ...links.reads },
  }),
};

export function registerSharingRoutes(api: ApiApp) {
  serveRoute(api, routes.list, async (c, { id, query }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const { per_page = 25, page = 1 } = query();
    const all = await listSharedLinks(db, website.id);
    const rows = all.slice((page - 1) * per_page, page * per_page);
    return c.json(listPage(c.req.url, { page, perPage: per_page }, rows, all.length));
  });

  serveRoute(api, routes.create, async (c, { id, body }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const origin = linkOrigin(c.env.PUBLIC_URL, c.req.url);
    const link = await createSharedLink(
      db,
      website.id,
      body,
      origin,
      await personOf(db, c.get('ownerId')),
    );
    return c.json({ data: link, status: 201 }, 201);
  });

  serveRoute(api, routes.delete, async (c, { id }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const linkId = links.itemId(c);
    if (linkId === null || !(await deleteSharedLink(db, website.id, linkId))) throw notFound();
    return links.gone(c, linkId, 'shared_link');
  });
}
