/**
 * The browser tracker served as `/js/script.js`. Built and minified into
 * `script.generated.ts` by `npm run build:tracker`; the ≤ 1200-byte gzip budget is enforced by
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
 * request, so no preflight). Nothing at all is sent from a browser driven by automation
 * (`navigator.webdriver`, or the global PhantomJS, Nightmare or Cypress leaves), as with
 * Plausible's tracker. Nothing here reads or writes cookies or storage, and the only
 * global it creates is `window.pa`.
 *
 * Engagement: for each page view the tracker keeps the time the page was visible and focused
 * (`ms`) and the deepest scroll reached (`scroll`: the window's bottom as a percent of the
 * page's height, 100 for a page shorter than the window). When the visitor leaves the page
 * view (an SPA navigation to another page, before that page's view; the tab hidden; the page
 * unloaded) it sends `{page, engagement: {ms, scroll}, domain?, dnt?, hash?}`, `page` as the
 * view sent it: cumulative values (the server keeps the largest). A view seen less than 15 s
 * sends none (a glance, about half of all page views: a request and a row written saved on
 * each); from then on, Plausible's rule: only when the deepest scroll grew or the time grew
 * by 3 s since the view's last such hit (docs/ARCHITECTURE.md, "Time on page and scroll
 * depth").
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
  // Left by automation that does not set navigator.webdriver: PhantomJS (also `callPhantom`,
  // always with it), Nightmare (Electron), and Cypress in the page it tests.
  readonly _phantom?: unknown;
  readonly __nightmare?: unknown;
  readonly Cypress?: unknown;
  addEventListener(
    type:
      | 'popstate'
      | 'hashchange'
      | 'scroll'
      | 'load'
      | 'pagehide'
      | 'pageshow'
      | 'focus'
      | 'blur',
    listener: (event: object) => void,
  ): void;
};
declare const document: {
  readonly currentScript: ScriptElement | null;
  readonly referrer: string;
  readonly visibilityState: string;
  readonly readyState: string;
  readonly documentElement: { readonly scrollHeight: number };
  readonly prerendering?: boolean;
  querySelectorAll(selectors: string): ArrayLike<ScriptElement>;
  addEventListener(type: 'visibilitychange' | 'prerenderingchange', listener: () => void): void;
  hasFocus(): boolean;
};
declare const innerHeight: number;
declare const scrollY: number;
declare const performance: { now(): number };
declare function setTimeout(handler: () => void, timeout: number): number;
declare const navigator: {
  readonly language: string;
  readonly doNotTrack?: string | null;
  readonly globalPrivacyControl?: boolean;
  readonly webdriver?: boolean;
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
    // Nothing at all is sent (queued and later events are dropped too) when DNT or GPC is on
    // and the site opted in with data-dnt="true", or from a browser driven by automation: the
    // WebDriver standard's flag (Selenium, Playwright, Puppeteer, ChromeDriver, geckodriver)
    // or a global of the tools that do not set it. Such visits are no person's; the server's
    // bot filter cannot tell the ones with a browser's usual User-Agent. No attribute or
    // stored flag lets them through (the tracker reads no storage): an owner tries a site in
    // a person's browser (docs/GUIDE.md, "The hit endpoint").
    const optedOut =
      (dnt &&
        (navigator.doNotTrack === '1' ||
          window.doNotTrack === '1' ||
          navigator.globalPrivacyControl === true)) ||
      navigator.webdriver ||
      window._phantom ||
      window.__nightmare ||
      window.Cypress;

    // The current page view's referrer: the document's for the landing page, the previous
    // page (same site, so the server treats it as internal) after an SPA navigation.
    let referrer: string | null = document.referrer || null;
    // The URL of the current page view, as its hit sent it; '' until the first one.
    let current = '';
    // Fragments make no new page (browsers strip them from referrers too), but with data-hash.
    const hash = attr('hash') !== null;
    const withoutHash = (url: string) => (hash ? url : (url.split('#')[0] as string));

    // The current page view's engagement: `ms` engaged (visible and focused) until `since`
    // (performance.now()), whether it is `engaged` from then on, the deepest `scroll` (percent),
    // and what its last engagement hit sent (`sentMs`, `sentScroll`).
    let ms = 0;
    let since = 0;
    let engaged = false;
    let scroll = 0;
    let sentMs = 0;
    let sentScroll = 0;

    const send = (fields: Record<string, unknown>) => {
      try {
        // JSON.stringify leaves out the undefined fields (domain, dnt, event, value, unit, props).
        const body = JSON.stringify({
          ...fields,
          domain,
          dnt: dnt || undefined,
          hash: hash || undefined,
        });
        // sendBeacon survives the page unloading; it returns false when its queue is full and
        // may be missing or throw, and then fetch with keepalive is the fallback. A string
        // body is sent as text/plain (charset=UTF-8) by both, so no header is set.
        try {
          if (navigator.sendBeacon(endpoint, new Blob([body], { type: 'text/plain' }))) return;
        } catch {}
        fetch(endpoint, {
          method: 'POST',
          body,
          keepalive: true,
          credentials: 'omit',
        }).catch(() => {});
      } catch {}
    };
    // A page view or a custom event: the page as it is now, where the visitor came from.
    const hit = (fields: Record<string, unknown>) =>
      send({
        page: location.href,
        referrer,
        screen_resolution: `${screen.width}x${screen.height}`,
        language: navigator.language,
        ...fields,
      });

    // Copies only the known fields, so a page cannot smuggle anything else into a hit.
    const track = (event: TrackedEvent) => {
      if (!optedOut && event && event.name) {
        hit({
          event: { name: event.name, value: event.value, unit: event.unit },
          props: event.props,
          revenue: event.revenue,
        });
      }
    };
    pa.track = track;
    const queued = pa.q || [];
    pa.q = [];

    // Adds the time since the last tick if the page was engaged, and notes whether it is now:
    // on every change of visibility or focus, back from the back/forward cache, and when the
    // visitor leaves a page view.
    const tick = () => {
      const now = performance.now();
      if (engaged) ms += now - since;
      since = now;
      engaged = document.visibilityState === 'visible' && document.hasFocus();
    };
    // The bottom of the window as a percent of the page's height, kept if the deepest so far.
    const depth = () => {
      const percent = Math.round(
        (100 * (scrollY + innerHeight)) / document.documentElement.scrollHeight,
      );
      if (percent > scroll) scroll = Math.min(percent, 100);
    };
    // The visitor leaves the current page view: for another view (no argument), or `away`: the
    // tab hidden or the page unloaded, when what is on screen is still the view's own (so it is
    // measured) and the time stops until it is shown again. Sends the view's engagement if it
    // grew since its last send, and once the view has been seen 15 s (a glance sends nothing).
    const leave = (away?: unknown) => {
      tick();
      if (away) {
        depth();
        engaged = false;
      }
      if (current && ms >= 15000 && (scroll > sentScroll || ms - sentMs >= 3000)) {
        sentScroll = scroll;
        sentMs = ms;
        send({ page: current, engagement: { ms: Math.round(ms), scroll } });
      }
    };

    const pageview = () => {
      const href = location.href;
      // A prerendered page may never be seen: count it once it is shown.
      if (document.prerendering || withoutHash(href) === withoutHash(current)) return;
      // The engagement of the view being left goes first, with its own URL.
      leave();
      if (current) referrer = withoutHash(current);
      current = href;
      ms = scroll = sentMs = sentScroll = 0;
      hit({ props: pa.props || tagProps });
      // The view's first depth, once the page has settled: an SPA's router has drawn the new
      // page and scrolled it by then (at once, the old page would be measured), and a landing
      // page still loading (the tracker may run while it is parsed) is measured on `load`.
      setTimeout(() => document.readyState === 'complete' && depth(), 1000);
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
      // The view of a page prerendered at load is sent once it is shown.
      document.addEventListener('prerenderingchange', pageview);
      // Hidden, the visitor leaves the page view; shown, the time runs again.
      document.addEventListener('visibilitychange', () =>
        document.visibilityState === 'hidden' ? leave(1) : tick(),
      );
      window.addEventListener('pagehide', leave);
      // Back from the back/forward cache, the time runs again.
      window.addEventListener('pageshow', tick);
      window.addEventListener('focus', tick);
      window.addEventListener('blur', tick);
      // A scroll event comes once the window has scrolled and cannot be cancelled: its
      // listener never holds scrolling up, so `{passive: true}` would only cost bytes.
      window.addEventListener('scroll', depth);
      // The first depth of a landing page that was still loading (see pageview).
      window.addEventListener('load', depth);
      pageview();

      // Events the page tracked before the tracker loaded, after their page view.
      queued.forEach(track);

      // The tag, for tracking without code (./extra.ts, in /js/script.full.js).
      pa.s = script;
    }
  }
} catch {}
