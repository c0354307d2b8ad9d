/**
 * The e-mails the Worker sends, caught: `mailbox()` puts a recorder in the place of the
 * `EMAIL` binding (the runtime's env is the Worker's) until `close()` gives the binding back.
 */
import { env } from 'cloudflare:workers';
import { call, oneOf } from './api.ts';
import { newBrowser } from './browser-session.ts';
import { decodeQuotedPrintable } from './mime.ts';
import { OWNER_PASSWORD } from './owner-password.ts';
import { openInvitation } from './tokens.ts';

type Mail = { from: string; to: string; text: string };

/** An `EmailMessage` as the runtime builds it: its raw MIME under `EmailMessage::raw`. */
type Raw = { from: string; to: string; 'EmailMessage::raw'?: string | ReadableStream };

export function mailbox() {
  const bindings = env as { EMAIL?: unknown };
  const original = bindings.EMAIL;
  const mails: Mail[] = [];
  let failing = false;
  bindings.EMAIL = {
    async send(message: Raw) {
      if (failing) throw new Error('delivery failed');
      const body = message['EmailMessage::raw'] ?? '';
      const raw = typeof body === 'string' ? body : await new Response(body).text();
      mails.push({ from: message.from, to: message.to, text: decodeQuotedPrintable(raw) });
    },
  };
  return {
    mails,
    /** Sends fail until set back. */
    fail(on: boolean) {
      failing = on;
    },
    /** The invitation link of the newest e-mail to `to`. */
    linkTo(to: string): string {
      const mail = mails.filter((m) => m.to === to).at(-1);
      const url = mail?.text.match(/https?:\/\/\S+\/invitations#[A-Za-z0-9_-]+/)?.[0];
      if (!url) throw new Error(`no invitation to ${to}`);
      return url;
    },
    close() {
      bindings.EMAIL = original;
    },
  };
}

/**
 * Makes `person` (an owner made by `makeOwner()`, with the fixtures' password) a member of
 * website `siteId` with `role`: invited through the API with `inviterKey`, accepted through
 * the invitation page. Returns the member's id.
 */
export async function addMember(
  box: ReturnType<typeof mailbox>,
  inviterKey: string,
  siteId: number,
  person: { email: string },
  role: 'viewer' | 'admin',
): Promise<number> {
  const invited = await call(`/api/v1/websites/${siteId}/members`, {
    method: 'POST',
    key: inviterKey,
    body: { json: { email: person.email, role } },
  });
  if (invited.status !== 201) throw new Error(`invite failed: ${invited.status} ${invited.text}`);
  const link = box.linkTo(person.email.toLowerCase());
  const accepted = await openInvitation(newBrowser(), link, OWNER_PASSWORD);
  if (accepted.status !== 303) throw new Error(`accept failed: ${accepted.status}`);
  return Number(oneOf(invited).data.id);
}
