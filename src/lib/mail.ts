/**
 * Sending e-mail through the `EMAIL` binding from `MAIL_FROM` (docs/GUIDE.md, "E-mail
 * reports"; `wrangler dev` writes each message to a file instead): by the cron (reports and
 * traffic alerts, through src/reports/once.ts) and from a request (invitations, an alert's
 * confirmation), which fails with a 503 that says what to set up.
 */
import { EmailMessage } from 'cloudflare:email';
import type { Env } from '../env.ts';
import { ApiError, tryAgainSoon } from './errors.ts';
import { logError } from './log.ts';

/** What sending needs: the binding (or a stand-in in tests) and the addresses. */
export type Mailer = {
  send(message: { from: string; to: string; raw: string }): Promise<void>;
};

/** The binding as a `Mailer` with its sender; null when the binding or `MAIL_FROM` is missing. */
export function mailerOf(env: Env): { mailer: Mailer; from: string } | null {
  const email = env.EMAIL;
  if (!email || !env.MAIL_FROM) return null;
  return {
    from: env.MAIL_FROM,
    mailer: {
      send: async ({ from, to, raw }) => {
        await email.send(new EmailMessage(from, to, raw));
      },
    },
  };
}

/**
 * Sends one message now, for a request: `what` names it in the errors (`sent`: "Invitations
 * are sent by e-mail…", `one`: "The invitation e-mail could not be sent…"). Without
 * the binding or `MAIL_FROM` nothing can be sent: a 503 that says what to set up; a send that
 * fails is a 503 to try again.
 */
export async function sendNow(
  env: Env,
  to: string,
  message: (from: string) => string,
  what: { sent: string; one: string },
): Promise<void> {
  const sending = mailerOf(env);
  if (!sending)
    throw new ApiError(
      503,
      `${what.sent} are sent by e-mail, which is not set up here: set the EMAIL binding and MAIL_FROM.`,
    );
  try {
    await sending.mailer.send({ from: sending.from, to, raw: message(sending.from) });
  } catch (err) {
    logError('e-mail not sent', { what: what.one }, err);
    throw tryAgainSoon(`${what.one} could not be sent. Try again in a moment.`);
  }
}
