/**
 * The dashboard's script's parts for a shared link's embed (bundled into app.js with
 * ./page-script.ts, which runs them): the embed tells the page that frames it how tall it is,
 * and the settings page's embed code takes the theme chosen.
 */

/**
 * A page in a frame — only a shared link's embed may be framed (src/http/security-headers.ts)
 * — posts its height to the page that frames it whenever it changes (on load, as its content
 * changes in place, as the frame's width reflows it): `{ sightline: 'height', height }`, in
 * CSS pixels. Any page may frame an embed, so the message says nothing but that; the embed
 * code's script (src/sharing/embed-code.ts) checks where it comes from and sets the frame's
 * height.
 */
function postHeightToFrame(): void {
  if (window.parent === window || !window.ResizeObserver) return;
  let told = 0;
  const tell = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === told) return;
    told = height;
    window.parent.postMessage({ sightline: 'height', height }, '*');
  };
  // Called once when observing starts, then at each change of the page's size.
  new ResizeObserver(tell).observe(document.documentElement);
}

/**
 * The theme of a new link's embed code (`[data-embed-theme="{id}"]`, hidden until shown here,
 * ../settings/sharing-section.tsx): each choice's value is its code, put in the element of
 * that id (which its copy button copies). Without a script the code is the default theme's,
 * the text beside saying how to fix one.
 */
function embedThemeChoice(): void {
  const choice = document.querySelector<HTMLElement>('[data-embed-theme]');
  const select = choice?.querySelector('select');
  const code = document.getElementById(choice?.dataset.embedTheme ?? '');
  if (!choice || !select || !code) return;
  choice.hidden = false;
  select.addEventListener('change', () => {
    code.textContent = select.value;
  });
}

/** Both parts, each of which does nothing where its page is not. */
export function embedParts(): void {
  postHeightToFrame();
  embedThemeChoice();
}
