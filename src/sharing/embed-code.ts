/**
 * What a page pastes to embed a shared link's statistics (docs/GUIDE.md, "Sharing"): the
 * `<iframe>` of the link's `embed_url`, optionally in a fixed theme (`?theme=light|dark`;
 * without it, the reader's light or dark mode), and a few lines of script that set the frame's
 * height to what the embed says its content needs (it posts `{ sightline: 'height', height }`
 * to the page that frames it: src/pages/assets/embed-script.ts), once they checked the message
 * comes from this Sightline.
 */

/** The themes an embed may be asked for; any other `theme`, `auto` among them, is the reader's. */
export type EmbedTheme = 'light' | 'dark';

/** The theme a `theme` parameter asks for, or undefined for the reader's own. */
export const embedThemeOf = (asked: string | undefined): EmbedTheme | undefined =>
  asked === 'light' || asked === 'dark' ? asked : undefined;

/** The `id` of the frame the code makes, which its script looks for. */
const EMBED_FRAME_ID = 'sightline-statistics';

/**
 * The frame's address: the link's `embed_url` (`…/embed#<token>`), with `?theme=` before the
 * `#` when a theme is asked for (so that the first page, the one that opens the link, has it).
 */
export function embedSrc(embedUrl: string, theme?: EmbedTheme): string {
  if (!theme) return embedUrl;
  const at = embedUrl.indexOf('#');
  return at < 0
    ? `${embedUrl}?theme=${theme}`
    : `${embedUrl.slice(0, at)}?theme=${theme}${embedUrl.slice(at)}`;
}

/**
 * The code to paste: the frame (1,600 px tall until the embed says how tall it is, or for
 * good on a page without the script) and its script.
 */
export function embedCode(embedUrl: string, theme?: EmbedTheme): string {
  const origin = new URL(embedUrl).origin;
  return [
    `<iframe src="${embedSrc(embedUrl, theme)}" id="${EMBED_FRAME_ID}" style="width: 100%; height: 1600px; border: 0" loading="lazy" title="Statistics"></iframe>`,
    '<script>',
    '  addEventListener("message", (event) => {',
    `    const frame = document.getElementById("${EMBED_FRAME_ID}");`,
    `    if (event.origin !== "${origin}" || event.source !== frame.contentWindow) return;`,
    '    if (event.data && event.data.sightline === "height")',
    '      frame.style.height = Number(event.data.height) + "px";',
    '  });',
    '</script>',
  ].join('\n');
}
