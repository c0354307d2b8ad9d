/** The frame of every dashboard page: header, navigation, and the Worker's own assets. */
import type { Context } from 'hono';
import type { Child, FC } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from '../../env.ts';
import { csrfToken } from '../../http/session.ts';
import { type EmbedTheme, embedThemeOf } from '../../sharing/embed-code.ts';
import { assetUrls } from '../assets/serve.ts';

/** How a statistics page's links and GET forms load in place: the new page's main, morphed in. */
const IN_PLACE = 'target:"#main", select:"#main", swap:"outerMorph"';

type LayoutProps = {
  title: string;
  owner: { email: string } | null;
  csrf?: string;
  /** Without the site's header: a shared link's embed. */
  bare?: boolean;
  /** Colours fixed whatever the reader's system prefers (an embed's `?theme=`). */
  theme?: EmbedTheme | undefined;
  /** A page that changes in place (the statistics pages): htmx is loaded. */
  inPlace?: boolean;
  children?: Child;
};

const Layout: FC<LayoutProps & { assets: Awaited<ReturnType<typeof assetUrls>> }> = ({
  title,
  owner,
  csrf,
  assets,
  bare = false,
  theme,
  inPlace = false,
  children,
}) => (
  <html lang="en" data-theme={theme}>
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="same-origin" />
      <title>{`${title} · Sightline`}</title>
      <link rel="icon" href="/assets/icon.svg" type="image/svg+xml" />
      <link rel="stylesheet" href={assets.css} />
      {inPlace ? <script src={assets.htmx} defer /> : null}
      <script src={assets.js} defer />
    </head>
    <body>
      <a class="skip" href="#main">
        Skip to content
      </a>
      {bare ? null : (
        <header class="top">
          <a class="brand" href="/">
            Sightline
          </a>
          {owner ? (
            <nav aria-label="Main">
              <a href="/websites">Websites</a>
              <a href="/account">Account</a>
              <form method="post" action="/logout" class="inline">
                <input type="hidden" name="_csrf" value={csrf ?? ''} />
                <button type="submit" class="secondary">
                  Log out
                </button>
              </form>
            </nav>
          ) : (
            <nav aria-label="Main">
              <a href="/login">Log in</a>
            </nav>
          )}
        </header>
      )}
      {inPlace ? (
        // The statistics pages change in place: a link or a GET form within fetches its page
        // and morphs the new main into this one (htmx: docs/ARCHITECTURE.md, "The statistics
        // page in the browser"), the address pushed; without JavaScript they are plain links.
        <main id="main" hx-boost:inherited={IN_PLACE}>
          {children}
        </main>
      ) : (
        <main id="main">{children}</main>
      )}
    </body>
  </html>
);

/**
 * The theme a shared link's embed is asked for (`?theme=light` or `dark`; any other value, or
 * none, is the reader's own: docs/GUIDE.md, "Sharing"). Other pages follow the reader's.
 */
export const embedThemeIn = (c: Context<AppEnv>): EmbedTheme | undefined =>
  c.get('embedded') === true ? embedThemeOf(c.req.query('theme')) : undefined;

/** Renders a page inside the layout for the current request (its owner and CSRF token). */
export async function render(
  c: Context<AppEnv>,
  props: { title: string; inPlace?: boolean; children?: Child },
  status: ContentfulStatusCode = 200,
) {
  const owner = c.get('owner');
  const html = (
    <Layout
      title={props.title}
      owner={owner}
      csrf={await csrfToken(c)}
      assets={await assetUrls()}
      bare={c.get('embedded') === true}
      theme={embedThemeIn(c)}
      inPlace={props.inPlace === true}
    >
      {props.children}
    </Layout>
  );
  // Without a doctype browsers render in quirks mode.
  return c.html(`<!DOCTYPE html>${await html}`, status);
}

/**
 * A row's delete (or revoke) button, which asks first: a disclosure (`Delete…`, its label
 * naming the row for screen readers) that opens on the button that does it, a form posting
 * the page's CSRF token to `action` — no script needed.
 */
export const DeleteButton: FC<{
  action: string;
  csrf: string;
  label?: string;
  what: string;
  /** Fields of the form besides the button (a choice about what goes with it). */
  children?: Child;
}> = ({ action, csrf, label = 'Delete', what, children }) => (
  <details class="confirm">
    <summary>
      {label}…<span class="sr-only"> {what}</span>
    </summary>
    <form method="post" action={action}>
      <input type="hidden" name="_csrf" value={csrf} />
      {children}
      <button type="submit" class="danger">
        {label} {what}
      </button>
    </form>
  </details>
);

/** A labelled field with its error message, as every form shows them. */
export const Field: FC<{
  label: string;
  name: string;
  error?: string[] | undefined;
  hint?: string;
  /**
   * `name=value`: the field is shown only while the form's control `name` has that value
   * (the dashboard's script hides it otherwise; without one it is always shown).
   */
  shownIf?: string;
  children: Child;
}> = ({ label, name, error, hint, shownIf, children }) => (
  <label for={name} data-shown-if={shownIf}>
    {label}
    {hint ? <span class="hint">{hint}</span> : null}
    {children}
    {error?.length ? (
      <span class="error" id={`${name}-error`} role="alert">
        {error[0]}
      </span>
    ) : null}
  </label>
);
