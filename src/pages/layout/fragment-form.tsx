/**
 * A form that takes a secret from the address's fragment (docs/ARCHITECTURE.md, "Secrets out
 * of addresses"): the links Sightline hands out carry their token after `#`, which browsers
 * never send, so no request log holds it. The page's script (../assets/page-script.ts) copies the
 * fragment into the form's `data-fragment` field, takes it out of the address bar, and — for
 * `auto` — sends the form at once; the token then travels in the form's body. Without
 * scripts, the field is shown for the part after `#` of the link.
 */
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Child, FC } from 'hono/jsx';
import type { AppEnv } from '../../env.ts';
import { formText } from '../../http/form.ts';
import { ApiError } from '../../lib/errors.ts';

/** The name of the field that carries the fragment. */
export const CODE_FIELD = 'code';

export const FragmentForm: FC<{
  action: string;
  /** What the field asks for when scripts do not fill it. */
  label: string;
  button: string;
  /** Sent at once when the fragment is there (else a person confirms). */
  auto?: boolean;
  children?: Child;
}> = ({ action, label, button, auto = false, children }) => (
  <form method="post" action={action} class="stack card" data-auto={auto ? '1' : undefined}>
    <label>
      {label}
      <input name={CODE_FIELD} autocomplete="off" spellcheck={false} data-fragment="1" required />
    </label>
    {children}
    <div class="actions">
      <button type="submit">{button}</button>
    </div>
  </form>
);

/**
 * An e-mail link's confirmation: the code is the address's fragment (`FragmentForm`), or, when
 * the page was opened with it in its path (`code`, an older link's form), a button that posts it.
 */
export const CodeForm: FC<{ action: string; button: string; code?: string | undefined }> = ({
  action,
  button,
  code,
}) =>
  code === undefined ? (
    <FragmentForm
      action={action}
      label="The code of the link (after # in its address)"
      button={button}
    />
  ) : (
    <form method="post" action={action} class="actions">
      <input type="hidden" name={CODE_FIELD} value={code} />
      <button type="submit">{button}</button>
    </form>
  );

/** The code a form posted; '' for a body that is no form. */
export async function postedCode(c: Context<AppEnv>): Promise<string> {
  try {
    return formText((await c.req.parseBody())[CODE_FIELD]).trim();
  } catch {
    return '';
  }
}

/**
 * The body limit of pages reached from e-mails, mounted before the pages' own form checks
 * (mail clients send no Origin; the link's secret is the credential).
 */
export const smallForms = () =>
  bodyLimit({
    maxSize: 4 * 1024,
    onError: () => {
      throw new ApiError(413, 'The form is too large.');
    },
  });
