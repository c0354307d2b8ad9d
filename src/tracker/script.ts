/**
 * The browser tracker served as `/js/script.js`. Built and minified into
 * `script.generated.ts` by `npm run build:tracker`; the ≤ 1024-byte gzip budget is enforced by
 * the build and by test/cli/tracker.test.ts, so every byte here is deliberate.
 *
 *   <script async src="https://HOST/js/script.js"
 *           data-domain="example.com"              (optional: sent as `domain`)
 *           data-host="https://stats.example.org"  (optional: where hits go; default: HOST)
 *           data-props='{"author":"ana"}'         (optional: the page views' properties)
 *           data-hash                              (optional: a #fragment makes a new page)
 *   /js/script.full.js adds tracking without code (./extra.ts): data-outbound-links,
 *   data-file-downloads, data-tagged-events, data-form-submissions, data-404.
 *           data-dnt="true"></script>              (optional: honour Do Not Track / GPC)
 *
 * Every hit is `POST {host}/api/event` with a JSON body sent as text/plain (a CORS "simple"
 * request, so no preflight). Nothing here reads or writes cookies or storage, and the only
 * global it creates is `window.pa`.
 */

// This file is a module so that the browser declarations below stay local to it: the root
// tsconfig type-checks it next to the Worker, whose globals come from @cloudflare/workers-types,
// and `/// <reference lib="dom" />` would merge the DOM's `Headers`, `Response`, … into them for
// the whole program. esbuild wraps the output in an IIFE and drops the empty export.
export {};

/** Custom properties: names and values (strings, numbers, booleans). */
type Props = Record<string, unknown>;

/** What a page passes to `window.pa.track`. */
interface TrackedEvent {
  name: string;
  value?: number | string;
  unit?: string;
  props?: Props;
  /** A purchase's worth: `{amount: 29.9, currency: 'EUR'}` (counted by a revenue goal). */
  revenue?: { amount: number | string; currency: string };
}

/**
 * `window.pa`: before the tracker loads, the snippet's stub queues events in `q`; `props` are
 * the properties of the page views from then on (else the tag's `data-props`).
 */
interface Pa {
  track?: (event: TrackedEvent) => void;
  q?: TrackedEvent[];
  loaded?: boolean;
  props?: Props;
  /** The tag, for the extra parts (./extra.ts) to read its attributes. */
  s?: ScriptElement;
}

interface ScriptElement {
  readonly src: string;
  getAttribute(name: string): string | null;
}

// The subset of the DOM the tracker touches (names and types as in lib.dom.d.ts).
declare const window: {
  pa?: Pa;
  readonly doNotTrack?: string | null;
  addEventListener(type: 'popstate' | 'hashchange', listener: () => void): void;
};
declare const document: {
  readonly currentScript: ScriptElement | null;
  readonly referrer: string;
  readonly visibilityState: string;
  querySelectorAll(selectors: string): ArrayLike<ScriptElement>;
  addEventListener(type: 'visibilitychange', listener: () => void): void;
};
declare const navigator: {
  readonly language: string;
  readonly doNotTrack?: string | null;
  readonly globalPrivacyControl?: boolean;
  sendBeacon(url: string, data: Blob): boolean;
};
declare const history: {
  pushState(data: unknown, unused: string, url?: string | URL | null): void;
  replaceState(data: unknown, unused: string, url?: string | URL | null): void;
};
declare const location: { readonly href: string };
declare const screen: { readonly width: number; readonly height: number };
declare class Blob {
  constructor(parts: string[], options: { type: string });
}
declare class URL {
  constructor(url: string);
  readonly origin: string;
}
declare function fetch(
  url: string,
  init: {
    method: 'POST';
    body: string;
    headers: Record<string, string>;
    keepalive: boolean;
    credentials: 'omit';
  },
): Promise<unknown>;

// The tracker runs once, as the module's own code (esbuild wraps it in a function). Its parts
// are the small functions below, which share the state they close over: a helper moved to the
// top level would cost its declaration and arguments in the minified output, on every page.
// Whatever goes wrong, the page never sees an exception from the tracker.
try {
  const pa: Pa = window.pa || {};
  window.pa = pa;
  // A second copy of the snippet on the same page must not count every view twice.
  if (!pa.loaded) {
    pa.loaded = true;

    // `currentScript` is set while a classic script (async included) first runs.
    const scripts = document.querySelectorAll('script[src*="/js/script."]');
    const script = document.currentScript || (scripts[scripts.length - 1] as ScriptElement);
    const attr = (name: string) => script.getAttribute(`data-${name}`);

    const endpoint = `${(attr('host') || new URL(script.src).origin).replace(/\/+$/, '')}/api/event`;
    const domain = attr('domain') || undefined;
    const dnt = attr('dnt') === 'true';
    // The page views' properties: `pa.props` when the page sets it, else the tag's JSON.
    let tagProps: Props | undefined;
    try {
      tagProps = JSON.parse(attr('props') as string) || undefined;
    } catch {}
    // DNT and GPC are only honoured when the site opted in with data-dnt="true"; then nothing
    // at all is sent (queued and later events are dropped too).
    const optedOut =
      dnt &&
      (navigator.doNotTrack === '1' ||
        window.doNotTrack === '1' ||
        navigator.globalPrivacyControl === true);

    // The current page view's referrer: the document's for the landing page, the previous
    // page (same site, so the server treats it as internal) after an SPA navigation.
    let referrer: string | null = document.referrer || null;
    // The URL of the last page view; '' until the first one.
    let current = '';
    // Fragments make no new page (browsers strip them from referrers too), but with data-hash.
    const hash = attr('hash') !== null;
    const withoutHash = (url: string) => (hash ? url : (url.split('#')[0] as string));

    const send = (event?: TrackedEvent, props?: Props, revenue?: TrackedEvent['revenue']) => {
      try {
        // JSON.stringify leaves out the undefined fields (domain, dnt, event, value, unit, props).
        const body = JSON.stringify({
          page: location.href,
          referrer,
          screen_resolution: `${screen.width}x${screen.height}`,
          language: navigator.language,
          domain,
          dnt: dnt || undefined,
          event,
          props,
          revenue,
          hash: hash || undefined,
        });
        // sendBeacon survives the page unloading; it returns false when its queue is full and
        // may be missing or throw, and then fetch with keepalive is the fallback.
        try {
          if (navigator.sendBeacon(endpoint, new Blob([body], { type: 'text/plain' }))) return;
        } catch {}
        fetch(endpoint, {
          method: 'POST',
          body,
          headers: { 'Content-Type': 'text/plain' },
          keepalive: true,
          credentials: 'omit',
        }).catch(() => {});
      } catch {}
    };

    // Copies only the known fields, so a page cannot smuggle anything else into a hit.
    const track = (event: TrackedEvent) => {
      if (!optedOut && event && event.name) {
        send(
          { name: event.name, value: event.value, unit: event.unit },
          event.props,
          event.revenue,
        );
      }
    };
    pa.track = track;
    const queued = pa.q || [];
    pa.q = [];

    const pageview = () => {
      const href = location.href;
      // A prerendered page may never be seen: count it once it becomes visible.
      if (document.visibilityState === 'prerender' || withoutHash(href) === withoutHash(current)) {
        return;
      }
      if (current) referrer = withoutHash(current);
      current = href;
      send(undefined, pa.props || tagProps);
    };

    if (!optedOut) {
      // SPA navigations: the original call first (so location.href is the new URL), then a
      // view if the page changed. An exception from the original (a cross-origin URL) is the
      // page's own.
      for (const method of ['pushState', 'replaceState'] as const) {
        const original = history[method];
        history[method] = function (this: unknown, ...args) {
          original.apply(this, args);
          pageview();
        };
      }
      window.addEventListener('popstate', pageview);
      if (hash) window.addEventListener('hashchange', pageview);
      // Sends the view of a page prerendered at load once it is shown; on any other visibility
      // change the URL is the one already counted, so nothing is sent.
      document.addEventListener('visibilitychange', pageview);
      pageview();

      // Events the page tracked before the tracker loaded, after their page view.
      queued.forEach(track);

      // The tag, for tracking without code (./extra.ts, in /js/script.full.js).
      pa.s = script;
    }
  }
} catch {}
