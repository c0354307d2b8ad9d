/**
 * A website's shared links on its settings page (`/websites/{id}`): the links, each with a
 * revoke button, and a form to make one — a name and an optional password — through the same
 * domain functions and messages as the API (src/sharing/links.ts). A new link's address is
 * shown once, with the code that embeds it (src/sharing/embed-code.ts) in the theme chosen.
 */

import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { createDb } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { SegmentRow } from '../../db/sharing-schema.ts';
import type { AppEnv } from '../../env.ts';
import { formText } from '../../http/form.ts';
import { linkOrigin } from '../../http/origin.ts';
import { signedInOwner } from '../../http/session.ts';
import { ApiError, type FieldErrors } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import { listSegments } from '../../segments/segments.ts';
import { type EmbedTheme, embedCode } from '../../sharing/embed-code.ts';
import {
  createSharedLink,
  deleteSharedLink,
  listSharedLinks,
  type SharedLinkRecord,
} from '../../sharing/links.ts';
import { FieldError, SettingsSection } from './section.tsx';
import { settingsPath } from './settings-pages.tsx';

/** What the section shows after a form: the new link's address, or the form's messages. */
export type SharingState = {
  /** A new link's address and its embed's (each shown once: the token is not kept). */
  created?: { url: string; embed: string };
  values?: { name: string };
  errors?: FieldErrors;
};

/** The embed's themes, as the choice names them: the reader's own first (the default). */
const EMBED_THEMES: [EmbedTheme | undefined, string][] = [
  [undefined, "the reader's (light or dark, as their system is)"],
  ['light', 'light'],
  ['dark', 'dark'],
];

/** What a link shows, in words. */
const shows = (l: SharedLinkRecord, segments: SegmentRow[]) =>
  l.segment_id === null
    ? 'everything'
    : `segment ${segments.find((g) => g.id === l.segment_id)?.name ?? l.segment_id}`;

/** A link just made, at the top of the settings page, where the person is: shown only this once. */
export const SharedLinkMade: FC<{ created: { url: string; embed: string } }> = ({ created }) => (
  <div class="notice" role="status">
    <p>Link made. Copy it now: it is shown only once (it is listed under Shared links).</p>
    <pre id="shared-link-url">{created.url}</pre>
    <button type="button" class="secondary" data-copy="shared-link-url">
      Copy link
    </button>
    <p>
      To embed the statistics in a page (a link without a password), paste the frame and the lines
      of script that make it as tall as its content. Its colours follow the reader's light or dark
      mode; for fixed ones, add <code>?theme=light</code> or <code>?theme=dark</code> before the{' '}
      <code>#</code> of its address.
    </p>
    {/* Shown by the page's script, which puts the chosen theme's code in the box below. */}
    <label hidden data-embed-theme="shared-link-embed">
      Theme{' '}
      <select>
        {EMBED_THEMES.map(([theme, label]) => (
          <option value={embedCode(created.embed, theme)}>{label}</option>
        ))}
      </select>
    </label>
    <pre id="shared-link-embed">{embedCode(created.embed)}</pre>
    <button type="button" class="secondary" data-copy="shared-link-embed">
      Copy embed code
    </button>
  </div>
);

export const SharingSection: FC<{
  site: WebsiteRow;
  links: SharedLinkRecord[];
  /** The website's site segments, one of which a link may be limited to. */
  segments: SegmentRow[];
  csrf: string;
  state?: SharingState | undefined;
}> = ({ site, links, segments, csrf, state = {} }) => (
  <SettingsSection
    id="sharing"
    title="Shared links"
    hint="A secret link shows this website's statistics to anyone who has it, read-only: every range, filter, full view and CSV, nothing else. It works until you revoke it, or until the person who made it stops being an admin (unless their links are handed over). A dash under Made by: who made it is not known, and it counts as the owner's."
    csrf={csrf}
    table={{
      head: ['Link', 'Shows', 'Password', 'Made', 'Made by'],
      rows: links.map((l) => ({
        cells: [
          l.name,
          shows(l, segments),
          l.has_password ? 'yes' : 'no',
          l.created_at.slice(0, 10),
          l.created_by ?? '—',
        ],
        remove: {
          action: `/websites/${site.id}/shared-links/${l.id}/delete`,
          what: l.name,
          label: 'Revoke',
        },
      })),
    }}
    empty="No shared links yet."
    add={{
      action: `/websites/${site.id}/shared-links`,
      button: 'Make a link',
      class: 'stack',
      fields: (
        <>
          <label>
            Name (who it is for) <input name="name" value={state.values?.name ?? ''} required />
          </label>
          <FieldError errors={state.errors} field="name" />
          <label>
            Password (optional, 8 to 128 characters){' '}
            <input name="password" type="password" autocomplete="new-password" />
          </label>
          <FieldError errors={state.errors} field="password" />
          {segments.length > 0 ? (
            <label>
              Shows{' '}
              <select name="segment_id">
                <option value="">every number</option>
                {segments.map((g) => (
                  <option value={String(g.id)}>only the segment {g.name}</option>
                ))}
              </select>
            </label>
          ) : null}
          <FieldError errors={state.errors} field="segment_id" />
        </>
      ),
    }}
  />
);

/** The settings page again, with the section's state (a new link, or the form's messages). */
type Reshow = (state: SharingState, status: 200 | 422) => Promise<Response>;

/**
 * `POST /websites/:id/shared-links` (make) and `POST /websites/:id/shared-links/:link/delete`
 * (revoke), for the website of the path, its owner's and admins' (`siteOf`), each after the form's CSRF check.
 */
export function registerSharingPages(
  pages: Hono<AppEnv>,
  siteOf: (c: Context<AppEnv>) => Promise<WebsiteRow>,
  formBody: (c: Context<AppEnv>) => Promise<Record<string, unknown>>,
  reshow: (c: Context<AppEnv>, site: WebsiteRow) => Reshow,
) {
  pages.post('/:id/shared-links', async (c) => {
    const site = await siteOf(c);
    const body = await formBody(c);
    const fields = {
      name: formText(body.name),
      password: formText(body.password),
      segment_id: formText(body.segment_id),
    };
    try {
      const origin = linkOrigin(c.env.PUBLIC_URL, c.req.url);
      const db = createDb(c.env.DB);
      const link = await createSharedLink(db, site.id, fields, origin, signedInOwner(c));
      return reshow(c, site)({ created: { url: link.url, embed: link.embed_url } }, 200);
    } catch (err) {
      if (!(err instanceof ApiError && err.errors)) throw err;
      return reshow(c, site)({ values: { name: fields.name }, errors: err.errors }, 422);
    }
  });
  pages.post('/:id/shared-links/:link/delete', async (c) => {
    const site = await siteOf(c);
    await formBody(c);
    const id = parseId(c.req.param('link'));
    if (id === null || !(await deleteSharedLink(createDb(c.env.DB), site.id, id)))
      throw new ApiError(404, 'There is no such link.');
    return c.redirect(settingsPath(site.id, 'sharing', 'link=deleted'), 303);
  });
}

/** The links the settings page lists. */
export const sharedLinksOf = (c: Context<AppEnv>, site: WebsiteRow) =>
  listSharedLinks(createDb(c.env.DB), site.id);

/** The site segments a new link may be limited to. */
export const siteSegmentsOf = async (c: Context<AppEnv>, site: WebsiteRow) =>
  (await listSegments(createDb(c.env.DB), site.id, 0)).filter((g) => g.type === 'site');
