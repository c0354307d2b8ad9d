/**
 * Tracking without code (docs/ARCHITECTURE.md, "Tracking without code"): bundled after the
 * tracker (./script.ts) in `/js/script.full.js` (./full.ts), each part switched on by an
 * attribute of the tag:
 *
 *   data-outbound-links        a click on a link to another site: `Outbound Link: Click`, `url`
 *   data-file-downloads        a click on a link to a file: `File Download`, `url` (the value,
 *                              when given, lists the extensions instead of `DOWNLOADS`)
 *   data-tagged-events         a click on an element with data-sightline-event="Name" (its
 *                              data-sightline-prop-<key>="value" its properties), or the
 *                              submission of such a form: that event
 *   data-form-submissions      any form submitted: `Form: Submission`, `path`
 *   data-404                   a page with <meta name="sightline" content="404">: `404`, `path`
 *
 * Events go through `pa.track`, so through the tracker's `sendBeacon`: a click never waits,
 * and the hit survives the page the link leaves.
 */
export {};

interface Tagged {
  readonly tagName: string;
  readonly attributes: ArrayLike<{ name: string; value: string }>;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  closest(selectors: string): Tagged | null;
  readonly href?: string;
}

declare const window: {
  pa: {
    track: (event: { name: string; props?: Record<string, string> }) => void;
    s: { getAttribute(name: string): string | null };
  };
};
declare const document: {
  addEventListener(
    type: string,
    listener: (event: { target: unknown }) => void,
    capture: boolean,
  ): void;
  querySelector(selectors: string): unknown;
};
declare const location: { readonly host: string; readonly pathname: string; readonly href: string };
declare class URL {
  constructor(url: string, base: string);
  readonly protocol: string;
  readonly host: string;
  readonly pathname: string;
}

/** The extensions of a file download, unless the tag lists its own. */
const DOWNLOADS =
  'pdf,zip,csv,docx,xlsx,pptx,txt,rtf,odt,ods,mp3,wav,mp4,mov,avi,dmg,exe,msi,pkg,apk,7z,gz,rar,epub,iso';

// Runs after the tracker, which has set `pa.track` and `pa.s` (its tag).
try {
  const pa = window.pa;
  const attr = (name: string) => pa.s.getAttribute(`data-${name}`);
  const on = (name: string) => attr(name) !== null;
  const track = (name: string | null, props: Record<string, string>) =>
    name && pa.track({ name, props });
  const extensions = (attr('file-downloads') || DOWNLOADS).split(',');
  const path = () => ({ path: location.pathname });

  const tagged = (element: Tagged) => {
    const props: Record<string, string> = {};
    for (const { name, value } of element.attributes as unknown as Iterable<{
      name: string;
      value: string;
    }>)
      if (name.startsWith('data-sightline-prop-')) props[name.slice(20)] = value;
    track(element.getAttribute('data-sightline-event'), props);
  };

  const clicked = (event: { target: unknown }) => {
    const target = event.target as Tagged;
    const link = target.closest?.('a[href]');
    if (link?.href) {
      const url = new URL(link.href, location.href);
      if (on('outbound-links') && /^http/.test(url.protocol) && url.host !== location.host)
        track('Outbound Link: Click', { url: link.href });
      else if (
        on('file-downloads') &&
        extensions.includes(/\.(\w+)$/.exec(url.pathname)?.[1] as string)
      )
        track('File Download', { url: link.href });
    }
    const element = on('tagged-events') && target.closest?.('[data-sightline-event]');
    if (element && element.tagName !== 'FORM') tagged(element);
  };
  // A middle click opens the link too.
  document.addEventListener('click', clicked, true);
  document.addEventListener('auxclick', clicked, true);
  document.addEventListener(
    'submit',
    (event) => {
      const form = event.target as Tagged;
      if (on('tagged-events') && form.hasAttribute('data-sightline-event')) tagged(form);
      else if (on('form-submissions')) track('Form: Submission', path());
    },
    true,
  );
  if (on('404') && document.querySelector('meta[name="sightline"][content="404"]'))
    track('404', path());
} catch {}
