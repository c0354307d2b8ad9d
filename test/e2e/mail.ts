/**
 * The e-mails a Sightline served by wrangler sends: the local `send_email` binding writes each
 * one to a file of its own (`.eml`) under `.wrangler/tmp/email` of the checkout.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const mailDir = fileURLToPath(new URL('../../.wrangler/tmp/email', import.meta.url));

/** The e-mail files written so far. */
export async function mailFiles(): Promise<Set<string>> {
  const entries = await readdir(mailDir, { withFileTypes: true, recursive: true }).catch(() => []);
  return new Set(
    entries
      .filter((e) => e.isFile() && e.name.endsWith('.eml'))
      .map((e) => join(e.parentPath, e.name)),
  );
}

/**
 * The raw texts of the e-mails to `address` written since `before` (a `mailFiles()`): other
 * tests' e-mails, written meanwhile to the same place, are left out.
 */
export async function mailsTo(address: string, before: Set<string>): Promise<string[]> {
  const to = new RegExp(`^To: <${address.replace(/[.+]/g, '\\$&')}>$`, 'm');
  const texts: string[] = [];
  for (const file of await mailFiles()) {
    if (before.has(file)) continue;
    const text = await readFile(file, 'utf8');
    if (to.test(text)) texts.push(text);
  }
  return texts;
}
