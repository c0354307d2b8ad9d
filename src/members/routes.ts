/**
 * A website's members through the API (./members.ts): `…/websites/{id}/members` to invite
 * (an admin or the owner; the e-mail carries the link) and to list (a viewer sees only their
 * own row), `…/members/{member_id}` to change a role (an admin or the owner) and to remove a
 * member or cancel an invitation (an admin, the owner, or the member leaving). Another
 * website's member, and an id that names nothing, are the same 404.
 */

import type { Context } from 'hono';
import { personOf } from '../accounts/owners.ts';
import type { AppEnv } from '../env.ts';
import { type ApiApp, defineRoute } from '../http/openapi.ts';
import { linkOrigin } from '../http/origin.ts';
import { linksSchema, listPage, metaSchema, pageField, perPageField } from '../http/pagination.ts';
import { deletedResponse, errorResponses, jsonContent } from '../http/responses.ts';
import { idParam, pathId, serveRoute } from '../http/route.ts';
import { notFound } from '../lib/errors.ts';
import { parseId } from '../lib/ids.ts';
import { type AnySchema, s } from '../lib/json-schema.ts';
import { websiteOf } from '../websites/http.ts';
import { MEMBER_ROLES, mayActAs, roleTooLow } from '../websites/queries.ts';
import { inviteByMail } from './invitation-mail.ts';
import { handOverField } from './made.ts';
import {
  changeMemberRole,
  checkInvitation,
  checkRole,
  findMember,
  listMembers,
  removeMember,
} from './members.ts';

const memberParams = idParam.extend({
  member_id: pathId('4'),
});
const security = [{ bearerAuth: [] }];
const TAGS = ['Members'];

const memberSchema = s
  .object({
    id: s.number().int().openapi({ example: 4 }),
    email: s.string().openapi({ example: 'colleague@example.com' }),
    role: s.enum(MEMBER_ROLES),
    status: s.enum(['active', 'pending', 'expired']).openapi({
      description:
        '`active`: a member; `pending`: invited, the link works; `expired`: invited, the link no longer works.',
    }),
    created_by: s.string().nullable().openapi({
      example: 'owner@example.com',
      description:
        'The e-mail of who sent the invitation (or was handed it); null for one sent before Sightline recorded inviters, which counts as the owner’s.',
    }),
    created_at: s.string().openapi({ example: '2026-11-26T09:30:00.000000Z' }),
    expires_at: s.string().nullable().openapi({ description: "An invitation's end." }),
    accepted_at: s.string().nullable(),
  })
  .openapi('Member');

const inviteInput = s
  .object({
    email: s.string().openapi({ example: 'colleague@example.com' }),
    role: s.enum(MEMBER_ROLES).openapi({
      description: '`viewer` reads everything of the website; `admin` also changes it.',
    }),
  })
  .openapi('MemberInvitation');
const roleInput = s
  .object({ role: s.enum(MEMBER_ROLES), hand_over: handOverField.optional() })
  .openapi('MemberRole');
const body = (schema: AnySchema) => ({
  required: true,
  content: {
    'application/json': { schema },
    'application/x-www-form-urlencoded': { schema },
  },
});
const one = (description: string, status: number) =>
  jsonContent(
    s.object({ data: memberSchema, status: s.number().int().openapi({ example: status }) }),
    description,
  );

const routes = {
  list: defineRoute({
    method: 'get',
    path: '/websites/{id}/members',
    tags: TAGS,
    summary: "List a website's members and invitations",
    description:
      "Oldest first, a page at a time. The owner and admins see everyone; a viewer sees only their own membership (to leave it). The owner is not a member: `GET /websites/{id}` names the key's person's `role`.",
    security,
    request: { params: idParam, query: s.object({ per_page: perPageField(25), page: pageField }) },
    responses: {
      200: jsonContent(
        s.object({
          data: s.array(memberSchema),
          links: linksSchema,
          meta: metaSchema,
          status: s.number().int(),
        }),
        'A page of members and invitations.',
      ),
      401: errorResponses[401],
      404: errorResponses[404],
      422: errorResponses[422],
    },
  }),
  invite: defineRoute({
    method: 'post',
    path: '/websites/{id}/members',
    tags: TAGS,
    summary: 'Invite someone to a website',
    description:
      "Sends an e-mail with a link that works once, for 72 hours: it adds the website to the address's login, or makes a login for it (whatever `REGISTRATION` says). Inviting an address with a pending invitation renews it (the old link stops working). The answer is the same whether or not the address has a login here. Needs the EMAIL binding and MAIL_FROM (else a 503). The owner or an admin.",
    security,
    request: { params: idParam, body: body(inviteInput) },
    responses: {
      201: one('The invitation.', 201),
      401: errorResponses[401],
      403: errorResponses[403],
      404: errorResponses[404],
      409: jsonContent(
        s.object({ message: s.string(), status: s.number().int() }),
        'The address is a member already.',
      ),
      422: errorResponses[422],
      503: jsonContent(
        s.object({ message: s.string(), status: s.number().int() }),
        'The e-mail could not be sent (nothing is kept).',
      ),
    },
  }),
  update: defineRoute({
    method: 'patch',
    path: '/websites/{id}/members/{member_id}',
    tags: TAGS,
    summary: "Change a member's role",
    description:
      'Also the role an invitation gives. A member made a viewer loses what only an admin makes: the shared links and pending invitations they made are revoked with the change, or handed over (`hand_over=1`). The owner or an admin.',
    security,
    request: { params: memberParams, body: body(roleInput) },
    responses: {
      200: one('The member with the new role.', 200),
      401: errorResponses[401],
      403: errorResponses[403],
      404: errorResponses[404],
      422: errorResponses[422],
    },
  }),
  delete: defineRoute({
    method: 'delete',
    path: '/websites/{id}/members/{member_id}',
    tags: TAGS,
    summary: 'Remove a member, cancel an invitation, or leave',
    description:
      "The person's sessions and key no longer reach the website from their next request, and the shared links and pending invitations they made are revoked with the removal (all or nothing) — or, with `hand_over=1`, handed over to the person removing them (to the owner when a member leaves). The owner or an admin; any member may remove themselves.",
    security,
    request: { params: memberParams, query: s.object({ hand_over: handOverField.optional() }) },
    responses: {
      200: deletedResponse('member', 'The member was removed.'),
      401: errorResponses[401],
      403: errorResponses[403],
      404: errorResponses[404],
      422: errorResponses[422],
    },
  }),
};

/** The `{member_id}` of the path, when it names a row of the website; else a 404. */
function memberIdOf(c: Context<AppEnv>): number {
  const id = parseId(c.req.param('member_id'));
  if (id === null) throw notFound();
  return id;
}

export function registerMemberRoutes(api: ApiApp) {
  serveRoute(api, routes.list, async (c, { id, query }) => {
    const { db, website, role } = await websiteOf(c, id, 'viewer');
    const { per_page = 25, page = 1 } = query();
    const only = mayActAs(role, 'admin') ? undefined : c.get('ownerId');
    const all = await listMembers(db, website.id, Date.now(), only);
    const rows = all.slice((page - 1) * per_page, page * per_page);
    return c.json(listPage(c.req.url, { page, perPage: per_page }, rows, all.length));
  });

  serveRoute(api, routes.invite, async (c, { id, body }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const input = checkInvitation(body);
    const record = await inviteByMail(c.env, db, website, input, {
      inviter: await personOf(db, c.get('ownerId')),
      origin: linkOrigin(c.env.PUBLIC_URL, c.req.url),
    });
    return c.json({ data: record, status: 201 }, 201);
  });

  serveRoute(api, routes.update, async (c, { id, body }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const memberId = memberIdOf(c);
    const { role, handOver } = checkRole(body);
    const handTo = handOver ? c.get('ownerId') : null;
    const updated = await changeMemberRole(db, website.id, memberId, role, handTo);
    if (!updated) throw notFound();
    return c.json({ data: updated, status: 200 });
  });

  serveRoute(api, routes.delete, async (c, { id, query }) => {
    const { db, website, role } = await websiteOf(c, id, 'viewer');
    const memberId = memberIdOf(c);
    const member = await findMember(db, website.id, memberId);
    // A member may leave; removing anyone else is an admin's.
    const leaving = member !== undefined && member.ownerId === c.get('ownerId');
    if (!leaving && !mayActAs(role, 'admin')) throw roleTooLow('admin');
    const handTo = query().hand_over === 1 ? c.get('ownerId') : null;
    if (!member || !(await removeMember(db, website.id, memberId, handTo))) throw notFound();
    return c.json({ id: memberId, object: 'member', deleted: true, status: 200 });
  });
}
