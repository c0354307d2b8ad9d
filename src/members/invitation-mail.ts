/**
 * The invitation e-mail: who invites whom to which website with which role, and the link,
 * valid for 72 hours and usable once. Sent through the `EMAIL` binding from `MAIL_FROM`, as
 * the reports are (src/lib/mail.ts).
 */
import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { owners, type WebsiteRow } from '../db/schema.ts';
import type { Env } from '../env.ts';
import { validationFailed } from '../lib/errors.ts';
import { sendNow } from '../lib/mail.ts';
import { tooManyRequests, withinLimit } from '../lib/rate-limit.ts';
import { mimeMessage } from '../lib/text/mime.ts';
import type { MemberRole } from '../websites/queries.ts';
import { INVITATION_TTL_MS, inviteMember, type MemberRecord, removeMember } from './members.ts';

type InvitationMail = {
  to: string;
  inviter: string;
  domain: string;
  role: MemberRole;
  url: string;
  expiresAt: number;
};

/** What a role lets the invited person do, as the e-mail and the pages say it. */
export const ROLE_MEANING: Record<MemberRole, string> = {
  viewer: 'see its statistics',
  admin: 'see its statistics and change its settings, goals, funnels, shared links and members',
};

/** The message as raw MIME (plain text: every value in it was validated as an address or a domain). */
function invitationMessage(mail: InvitationMail, from: string): string {
  const text = [
    `${mail.inviter} invites you to the statistics of ${mail.domain} as ${mail.role === 'admin' ? 'an admin' : 'a viewer'}: you may ${ROLE_MEANING[mail.role]}.`,
    '',
    'Accept the invitation here (the link works once, until',
    `${new Date(mail.expiresAt).toISOString().replace('T', ' ').slice(0, 16)} UTC):`,
    '',
    mail.url,
    '',
    'If you have no login on this Sightline yet, the link lets you choose a password for one.',
    'If you did not expect this e-mail, ignore it: nothing happens unless the link is used.',
  ].join('\n');
  return mimeMessage({
    from: { name: 'Sightline', address: from },
    to: mail.to,
    subject: `${mail.inviter} invites you to ${mail.domain} on Sightline`,
    headers: { 'Auto-Submitted': 'auto-generated' },
    parts: [{ type: 'text/plain', text }],
  });
}

/**
 * Invites `input.email` to `site` and sends the e-mail with the link (under `origin`): the
 * invitation is kept only when the e-mail went out. The owner's own address is refused (a
 * 422: they have every right already); a website sends at most `RATE_LIMIT_FORMS` (10) a
 * minute, so invitations cannot be turned into a mailer.
 */
export async function inviteByMail(
  env: Env,
  db: Database,
  site: WebsiteRow,
  input: { email: string; role: MemberRole },
  from: { inviter: { id: number; email: string }; origin: string },
): Promise<MemberRecord> {
  if (!(await withinLimit(env, 'RATE_LIMIT_FORMS', ['invitation', String(site.id)])))
    throw tooManyRequests();
  const owner = await db
    .select({ email: owners.email })
    .from(owners)
    .where(eq(owners.id, site.ownerId))
    .get();
  if (owner?.email === input.email)
    throw validationFailed({ email: ['This address is the owner of the website.'] });
  const now = Date.now();
  const { record, token } = await inviteMember(db, site.id, input, from.inviter, now);
  try {
    const mail = {
      to: record.email,
      inviter: from.inviter.email,
      domain: site.domain,
      role: record.role,
      url: `${from.origin}/invitations#${token}`,
      expiresAt: now + INVITATION_TTL_MS,
    };
    await sendNow(env, mail.to, (sender) => invitationMessage(mail, sender), {
      sent: 'Invitations',
      one: 'The invitation e-mail',
    });
  } catch (err) {
    await removeMember(db, site.id, record.id);
    throw err;
  }
  return record;
}
