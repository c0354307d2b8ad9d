/**
 * The browser tracker as the Worker serves it: the committed minified build is current, within
 * its size budget, and behaves as the server expects when run in a fake browser page (node:vm).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import vm from 'node:vm';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  TRACKER_FULL,
  TRACKER_SCRIPT,
  TRACKER_VERSION,
} from '../../src/tracker/script.generated.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

const rawBytes = Buffer.byteLength(TRACKER_SCRIPT);
const gzipBytes = gzipSync(TRACKER_SCRIPT, { level: 9 }).length;
const fullGzipBytes = gzipSync(TRACKER_FULL, { level: 9 }).length;

describe('the built tracker', () => {
  it('is up to date with src/tracker/script.ts (build:tracker --check)', async () => {
    const result = await run(
      join(root, 'node_modules/.bin/tsx'),
      [join(root, 'scripts/build-tracker.ts'), '--check'],
      { cwd: root },
    ).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect('code' in result ? result.stderr : '').toBe('');
    expect(result.stdout).toContain('is up to date');
  });

  it(`is at most 1200 bytes gzipped (raw ${rawBytes} B, gzip -9 ${gzipBytes} B)`, () => {
    console.log(`tracker: ${rawBytes} bytes raw, ${gzipBytes} bytes gzipped`);
    expect(gzipBytes).toBeLessThanOrEqual(1200);
  });

  it(`with tracking without code is at most 1744 bytes gzipped (${fullGzipBytes} B)`, () => {
    expect(fullGzipBytes).toBeLessThanOrEqual(1744);
  });

  it('is versioned by the hash of its code', () => {
    const hash = createHash('sha256').update(TRACKER_SCRIPT).digest('hex');
    expect(TRACKER_VERSION).toBe(hash.slice(0, 12));
  });
});

// ---------------------------------------------------------------------------------------------
// A fake browser page

type Body = Record<string, unknown>;
interface Hit {
  url: string;
  via: 'beacon' | 'fetch';
  body: Body;
  init?: Record<string, unknown>;
  type?: string;
}

class FakeBlob {
  constructor(
    readonly parts: string[],
    readonly options: { type: string },
  ) {}
}

interface PageOptions {
  href?: string;
  referrer?: string;
  /** data-* attributes of the script tag, without the `data-` prefix. */
  data?: Record<string, string>;
  src?: string;
  currentScript?: boolean;
  visibilityState?: string;
  /** `document.prerendering` (Speculation Rules): the page is not shown yet. */
  prerendering?: boolean;
  /** `document.readyState` ('complete' unless given). */
  readyState?: string;
  /** The page's height (`documentElement.scrollHeight`) in px; the window is 1000 px tall. */
  height?: number;
  navigator?: Record<string, unknown>;
  windowProps?: Record<string, unknown>;
  /** 'ok' (default), 'full' (returns false), 'throws' or 'missing'. */
  beacon?: 'ok' | 'full' | 'throws' | 'missing';
  /** 'ok' (default), 'rejects', 'throws' or 'missing'. */
  fetch?: 'ok' | 'rejects' | 'throws' | 'missing';
}

function forbidden(what: string) {
  return () => {
    throw new Error(`the tracker touched ${what}`);
  };
}

function page(options: PageOptions = {}) {
  const hits: Hit[] = [];
  const touched: string[] = [];
  const listeners = new Map<string, Array<(event: { type: string }) => void>>();
  const on = (target: string) => (type: string, listener: (event: { type: string }) => void) => {
    const key = `${target}:${type}`;
    listeners.set(key, [...(listeners.get(key) ?? []), listener]);
  };
  // Listeners get an event, as in a browser (the tracker's `pagehide` one tells them apart).
  const dispatch = (key: string) => {
    for (const listener of listeners.get(key) ?? [])
      listener({ type: key.split(':')[1] as string });
  };
  // performance.now(), moved by `elapse`; the timers set, run by `runTimers`.
  let now = 500;
  const timers: Array<() => void> = [];
  let focused = true;

  const location = { href: options.href ?? 'https://site.test/' };
  const attributes = options.data ?? {};
  const script = {
    src: options.src ?? 'https://stats.test/js/script.js',
    getAttribute: (name: string) =>
      name.startsWith('data-') ? (attributes[name.slice(5)] ?? null) : null,
  };
  const other = { src: 'https://cdn.test/app.js', getAttribute: () => null };

  const document = {
    currentScript: options.currentScript === false ? null : script,
    referrer: options.referrer ?? '',
    visibilityState: options.visibilityState ?? 'visible',
    prerendering: options.prerendering ?? false,
    readyState: options.readyState ?? 'complete',
    documentElement: { scrollHeight: options.height ?? 4000 },
    hasFocus: () => focused,
    querySelectorAll: (selector: string) => {
      expect(selector).toBe('script[src*="/js/script."]');
      return [other, script].filter((s) => s.src.includes('/js/script.'));
    },
    addEventListener: on('document'),
  };
  const trap = (object: object, name: string, what: string) => {
    Object.defineProperty(object, name, {
      get: () => {
        touched.push(what);
        return forbidden(what)();
      },
      set: () => {
        touched.push(what);
        forbidden(what)();
      },
    });
  };
  trap(document, 'cookie', 'document.cookie');

  const navigator: Record<string, unknown> = {
    language: 'en-GB',
    doNotTrack: null,
    ...options.navigator,
  };
  const beacon = options.beacon ?? 'ok';
  if (beacon !== 'missing') {
    navigator.sendBeacon = function (this: unknown, url: string, blob: FakeBlob) {
      expect(this).toBe(navigator);
      if (beacon === 'throws') throw new TypeError('sendBeacon is broken');
      if (beacon === 'full') return false;
      expect(blob).toBeInstanceOf(FakeBlob);
      hits.push({
        url,
        via: 'beacon',
        body: JSON.parse(blob.parts.join('')),
        type: blob.options.type,
      });
      return true;
    };
  }

  const navigate = (url: string | URL | null | undefined) => {
    if (url != null) location.href = new URL(String(url), location.href).href;
  };
  const history = {
    pushState(_data: unknown, _unused: string, url?: string | null) {
      navigate(url);
    },
    replaceState(_data: unknown, _unused: string, url?: string | null) {
      navigate(url);
    },
  };

  const globals: Record<string, unknown> = {
    document,
    navigator,
    history,
    location,
    screen: { width: 1920, height: 1080 },
    Blob: FakeBlob,
    URL,
    addEventListener: on('window'),
    innerHeight: 1000,
    scrollY: 0,
    performance: { now: () => now },
    setTimeout: (handler: () => void) => timers.push(handler),
    ...options.windowProps,
  };
  const fetchMode = options.fetch ?? 'ok';
  if (fetchMode !== 'missing') {
    globals.fetch = (url: string, init: Record<string, unknown>) => {
      if (fetchMode === 'throws') throw new TypeError('fetch is broken');
      if (fetchMode === 'rejects') return Promise.reject(new TypeError('Failed to fetch'));
      hits.push({ url, via: 'fetch', body: JSON.parse(String(init.body)), init: { ...init } });
      return Promise.resolve({ ok: true, status: 202 });
    };
  }
  trap(globals, 'localStorage', 'localStorage');
  trap(globals, 'sessionStorage', 'sessionStorage');

  const context = vm.createContext(globals);
  const window = vm.runInContext('window = globalThis', context) as Record<string, unknown>;
  const before = new Set(Object.getOwnPropertyNames(window));

  return {
    hits,
    touched,
    window,
    location,
    document,
    history,
    /** Runs the tracker as a page's <script> would. */
    load() {
      vm.runInContext(TRACKER_SCRIPT, context, { filename: 'script.js' });
    },
    /** Globals the tracker added to the page. */
    newGlobals() {
      return Object.getOwnPropertyNames(window).filter((name) => !before.has(name));
    },
    /** The browser's back/forward button. */
    popTo(url: string) {
      navigate(url);
      dispatch('window:popstate');
    },
    /** A link to a `#fragment` of the page. */
    hashTo(url: string) {
      navigate(url);
      dispatch('window:hashchange');
    },
    show() {
      document.visibilityState = 'visible';
      dispatch('document:visibilitychange');
    },
    hide() {
      document.visibilityState = 'hidden';
      dispatch('document:visibilitychange');
    },
    /** A prerendered page shown (activated). */
    activate() {
      document.prerendering = false;
      dispatch('document:prerenderingchange');
    },
    /** Another window takes the focus (`false`), or this one gets it back. */
    focus(on: boolean) {
      focused = on;
      dispatch(on ? 'window:focus' : 'window:blur');
    },
    /** The page is unloaded (closed, or left for another). */
    unload() {
      dispatch('window:pagehide');
    },
    /** The page is shown again from the back/forward cache. */
    restore() {
      dispatch('window:pageshow');
    },
    loaded() {
      document.readyState = 'complete';
      dispatch('window:load');
    },
    scrollTo(y: number) {
      window.scrollY = y;
      dispatch('window:scroll');
    },
    elapse(ms: number) {
      now += ms;
    },
    runTimers() {
      for (const timer of timers.splice(0)) timer();
    },
    /** The engagement hits: page, ms, scroll. */
    engagements() {
      return hits
        .filter((h) => h.body.engagement)
        .map((h) => {
          const { ms, scroll } = h.body.engagement as { ms: number; scroll: number };
          return [h.body.page, ms, scroll];
        });
    },
    track(event: unknown) {
      vm.runInContext('window.pa.track(event)', vm.createContext({ window, event }));
    },
    pages() {
      return hits.filter((h) => !h.body.event).map((h) => h.body.page);
    },
  };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('tracker behaviour', () => {
  it('sends the first page view once, as a text/plain beacon to the script origin', () => {
    const p = page({ href: 'https://site.test/pricing?x=1', referrer: 'https://search.test/q' });
    p.load();
    expect(p.hits).toEqual([
      {
        url: 'https://stats.test/api/event',
        via: 'beacon',
        type: 'text/plain',
        body: {
          page: 'https://site.test/pricing?x=1',
          referrer: 'https://search.test/q',
          screen_resolution: '1920x1080',
          language: 'en-GB',
        },
      },
    ]);
    expect(Object.keys(p.hits[0]?.body ?? {})).toEqual([
      'page',
      'referrer',
      'screen_resolution',
      'language',
    ]);
    expect(p.touched).toEqual([]);
  });

  it('sends a null referrer when there is none, and data-domain as domain', () => {
    const p = page({ data: { domain: 'example.com' } });
    p.load();
    expect(p.hits.map((h) => h.body)).toEqual([
      {
        page: 'https://site.test/',
        referrer: null,
        screen_resolution: '1920x1080',
        language: 'en-GB',
        domain: 'example.com',
      },
    ]);
  });

  it('sends to data-host (a trailing slash is dropped)', () => {
    const p = page({ data: { host: 'https://collect.example.org/' } });
    p.load();
    expect(p.hits.map((h) => h.url)).toEqual(['https://collect.example.org/api/event']);
  });

  it('finds its script tag by src when document.currentScript is not set', () => {
    const p = page({ currentScript: false, src: 'https://other-stats.test/js/script.js' });
    p.load();
    expect(p.hits.map((h) => h.url)).toEqual(['https://other-stats.test/api/event']);
  });

  it('sends a page view on pushState to a new URL, with the previous page as referrer', () => {
    const p = page({ href: 'https://site.test/', referrer: 'https://search.test/' });
    p.load();
    p.history.pushState({}, '', '/docs#intro');
    p.history.pushState({}, '', '/blog');
    expect(p.hits.map((h) => [h.body.page, h.body.referrer])).toEqual([
      ['https://site.test/', 'https://search.test/'],
      ['https://site.test/docs#intro', 'https://site.test/'],
      // The previous page's fragment is not part of a referrer.
      ['https://site.test/blog', 'https://site.test/docs'],
    ]);
  });

  it('sends a page view on replaceState to a new URL', () => {
    const p = page();
    p.load();
    p.history.replaceState({}, '', '/?utm_source=x');
    expect(p.pages()).toEqual(['https://site.test/', 'https://site.test/?utm_source=x']);
  });

  it('sends nothing for pushState/replaceState to the same URL or a different #hash only', () => {
    const p = page({ href: 'https://site.test/a' });
    p.load();
    p.history.replaceState({ scroll: 1 }, '');
    p.history.replaceState({}, '', '/a');
    p.history.pushState({}, '', '/a');
    p.history.pushState({}, '', '#section');
    p.history.replaceState({}, '', '/a#other');
    expect(p.pages()).toEqual(['https://site.test/a']);
  });

  it('sends a page view on popstate to a new URL, and never twice for the same URL', () => {
    const p = page({ href: 'https://site.test/a' });
    p.load();
    p.history.pushState({}, '', '/b');
    p.popTo('https://site.test/a');
    p.popTo('https://site.test/a');
    p.popTo('https://site.test/a#top');
    p.popTo('https://site.test/b');
    expect(p.hits.map((h) => [h.body.page, h.body.referrer])).toEqual([
      ['https://site.test/a', null],
      ['https://site.test/b', 'https://site.test/a'],
      ['https://site.test/a', 'https://site.test/b'],
      ['https://site.test/b', 'https://site.test/a'],
    ]);
  });

  it('with data-hash, sends a page view per #fragment, saying so', () => {
    const p = page({ href: 'https://site.test/#/', data: { hash: '' } });
    p.load();
    p.hashTo('https://site.test/#/about');
    p.hashTo('https://site.test/#/about');
    expect(p.hits.map((h) => [h.body.page, h.body.hash])).toEqual([
      ['https://site.test/#/', true],
      ['https://site.test/#/about', true],
    ]);
    // Without it, a fragment is no page (and no listener waits for one).
    const plain = page({ href: 'https://site.test/#/' });
    plain.load();
    plain.hashTo('https://site.test/#/about');
    expect(plain.hits.map((h) => h.body.hash)).toEqual([undefined]);
  });

  it('calls the original history methods with their this', () => {
    const p = page();
    const seen: unknown[] = [];
    p.history.pushState = function (this: unknown, _d: unknown, _u: string, url?: string | null) {
      seen.push(this);
      if (url) p.location.href = new URL(url, p.location.href).href;
    };
    p.load();
    p.history.pushState(null, '', '/x');
    expect(seen).toEqual([p.history]);
    expect(p.pages()).toEqual(['https://site.test/', 'https://site.test/x']);
  });

  it('sends events from window.pa.track with the page fields', () => {
    const p = page({ data: { domain: 'example.com' }, referrer: 'https://search.test/' });
    p.load();
    p.history.pushState({}, '', '/checkout');
    p.track({ name: 'signup', value: 10, unit: 'usd', extra: 'dropped' });
    p.track({ name: 'download', value: 'pdf' });
    p.track({ name: 'ping' });
    const events = p.hits.filter((h) => h.body.event);
    expect(events.map((h) => h.body)).toEqual([
      {
        page: 'https://site.test/checkout',
        referrer: 'https://site.test/',
        screen_resolution: '1920x1080',
        language: 'en-GB',
        domain: 'example.com',
        event: { name: 'signup', value: 10, unit: 'usd' },
      },
      expect.objectContaining({ event: { name: 'download', value: 'pdf' } }),
      expect.objectContaining({ event: { name: 'ping' } }),
    ]);
  });

  it('ignores track calls without an event name, without throwing', () => {
    const p = page();
    p.load();
    for (const bad of [undefined, null, {}, { name: '' }, 'signup']) p.track(bad);
    expect(p.hits.filter((h) => h.body.event)).toEqual([]);
  });

  it('replays events queued by the snippet stub after the first page view', () => {
    const p = page();
    vm.runInContext(
      'window.pa=window.pa||{q:[]};window.pa.track=window.pa.track||function(e){window.pa.q.push(e)};' +
        "window.pa.track({name:'early'});window.pa.track({name:'cta',value:2})",
      vm.createContext({ window: p.window }),
    );
    p.load();
    expect(p.hits.map((h) => h.body.event ?? h.body.page)).toEqual([
      'https://site.test/',
      { name: 'early' },
      { name: 'cta', value: 2 },
    ]);
    // The stub is replaced: later calls send at once.
    p.track({ name: 'late' });
    expect(p.hits).toHaveLength(4);
  });

  it('counts a page once even if the script is included twice', () => {
    const p = page();
    p.load();
    p.load();
    p.history.pushState({}, '', '/next');
    expect(p.pages()).toEqual(['https://site.test/', 'https://site.test/next']);
  });

  it('waits for a prerendered page to be shown, and sends nothing if it never is', () => {
    const p = page({ prerendering: true, visibilityState: 'hidden' });
    p.load();
    p.loaded();
    p.elapse(5000);
    expect(p.hits).toEqual([]);
    p.show();
    p.activate();
    p.show();
    expect(p.pages()).toEqual(['https://site.test/']);

    const never = page({ prerendering: true, visibilityState: 'hidden' });
    never.load();
    never.loaded();
    never.runTimers();
    never.scrollTo(3000);
    never.elapse(20_000);
    never.hide();
    never.unload();
    expect(never.hits).toEqual([]);
  });

  /**
   * A visit with everything that sends a hit — a queued event, SPA navigations, an event,
   * scrolling, time, the tab hidden, the page left — of which nothing may be sent.
   */
  const sendsNothing = (options: PageOptions) => {
    const p = page(options);
    vm.runInContext(
      "window.pa={q:[{name:'queued'}],track:function(e){window.pa.q.push(e)}}",
      vm.createContext({ window: p.window }),
    );
    p.load();
    p.history.pushState({}, '', '/next');
    p.popTo('https://site.test/back');
    p.track({ name: 'signup' });
    p.runTimers();
    p.scrollTo(3000);
    p.elapse(20_000);
    p.hide();
    p.unload();
    expect(p.hits).toEqual([]);
    expect(p.touched).toEqual([]);
  };

  describe('with data-dnt="true"', () => {
    const cases: Array<[string, PageOptions]> = [
      ['navigator.doNotTrack is "1"', { navigator: { doNotTrack: '1' } }],
      ['window.doNotTrack is "1"', { windowProps: { doNotTrack: '1' } }],
      ['navigator.globalPrivacyControl is true', { navigator: { globalPrivacyControl: true } }],
    ];
    for (const [name, options] of cases) {
      it(`sends nothing at all when ${name}`, () => {
        sendsNothing({ ...options, data: { dnt: 'true' } });
      });
    }

    it('tracks (flagging dnt for the server) when the browser sends no such signal', () => {
      const p = page({ data: { dnt: 'true' }, navigator: { doNotTrack: '0' } });
      p.load();
      expect(p.hits.map((h) => h.body)).toEqual([expect.objectContaining({ dnt: true })]);
    });
  });

  describe('in a browser driven by automation', () => {
    const cases: Array<[string, PageOptions]> = [
      [
        'navigator.webdriver is true (WebDriver, Playwright, Puppeteer)',
        { navigator: { webdriver: true } },
      ],
      ['window._phantom is set (PhantomJS)', { windowProps: { _phantom: {}, callPhantom() {} } }],
      ['window.__nightmare is set (Nightmare)', { windowProps: { __nightmare: {} } }],
      ['window.Cypress is set (Cypress)', { windowProps: { Cypress: {} } }],
    ];
    for (const [name, options] of cases) {
      it(`sends nothing at all when ${name}, whatever the tag says`, () => {
        sendsNothing(options);
        sendsNothing({ ...options, data: { dnt: 'true', domain: 'site.test' } });
      });
    }

    it('still gives the page a pa.track that throws nothing', () => {
      const p = page({ navigator: { webdriver: true } });
      p.load();
      expect(() => p.track({ name: 'signup' })).not.toThrow();
      expect(p.hits).toEqual([]);
    });

    it("tracks a browser whose navigator.webdriver is false, as a person's is", () => {
      const p = page({ navigator: { webdriver: false } });
      p.load();
      expect(p.pages()).toEqual(['https://site.test/']);
    });
  });

  it('ignores Do Not Track and GPC without data-dnt', () => {
    const p = page({ navigator: { doNotTrack: '1', globalPrivacyControl: true } });
    p.load();
    expect(p.pages()).toEqual(['https://site.test/']);
    expect(p.hits[0]?.body).not.toHaveProperty('dnt');
  });

  describe('transport', () => {
    // A string body is text/plain (charset=UTF-8) in fetch as in sendBeacon: no header set.
    it('falls back to a keepalive, credential-less fetch of a string without sendBeacon', () => {
      const p = page({ beacon: 'missing' });
      p.load();
      expect(p.hits).toEqual([
        {
          url: 'https://stats.test/api/event',
          via: 'fetch',
          body: expect.objectContaining({ page: 'https://site.test/' }),
          init: {
            method: 'POST',
            body: expect.any(String),
            keepalive: true,
            credentials: 'omit',
          },
        },
      ]);
    });

    it('falls back to fetch when sendBeacon throws or its queue is full', () => {
      for (const beacon of ['throws', 'full'] as const) {
        const p = page({ beacon });
        p.load();
        p.track({ name: 'signup' });
        expect(p.hits.map((h) => h.via)).toEqual(['fetch', 'fetch']);
      }
    });

    const broken: Array<[PageOptions['beacon'], PageOptions['fetch']]> = [
      ['missing', 'missing'],
      ['throws', 'missing'],
      ['throws', 'throws'],
      ['full', 'rejects'],
      ['missing', 'throws'],
    ];
    for (const [beacon, fetch] of broken) {
      it(`never throws into the page (sendBeacon ${beacon}, fetch ${fetch})`, async () => {
        const unhandled: unknown[] = [];
        const onUnhandled = (reason: unknown) => unhandled.push(reason);
        process.on('unhandledRejection', onUnhandled);
        try {
          const p = page({ beacon, fetch });
          expect(() => p.load()).not.toThrow();
          expect(() => p.history.pushState({}, '', '/next')).not.toThrow();
          expect(() => p.popTo('https://site.test/back')).not.toThrow();
          expect(() => p.track({ name: 'signup', value: 1 })).not.toThrow();
          await flush(); // a rejected fetch must have been caught by the tracker
          expect(unhandled).toEqual([]);
          expect(p.hits).toEqual([]);
          expect(p.location.href).toBe('https://site.test/back');
        } finally {
          process.off('unhandledRejection', onUnhandled);
        }
      });
    }

    it('never throws into the page when the environment is broken', () => {
      const p = page({ currentScript: false, src: 'https://cdn.test/other.js' });
      expect(() => p.load()).not.toThrow();
      expect(p.hits).toEqual([]);
    });
  });

  describe('engagement (a page 4000 px high in a window 1000 px high)', () => {
    it('is sent when the tab is hidden: the time seen and the deepest scroll, no more', () => {
      const p = page({ data: { domain: 'example.com' } });
      p.load();
      p.runTimers();
      p.elapse(12_000);
      p.scrollTo(3000);
      p.scrollTo(0);
      p.elapse(3500);
      p.hide();
      expect(p.hits.map((h) => h.body)).toEqual([
        expect.objectContaining({ page: 'https://site.test/', language: 'en-GB' }),
        {
          page: 'https://site.test/',
          engagement: { ms: 15_500, scroll: 100 },
          domain: 'example.com',
        },
      ]);
      expect(Object.keys(p.hits[1]?.body ?? {})).toEqual(['page', 'engagement', 'domain']);
      expect(p.hits[1]?.via).toBe('beacon');
    });

    it('measures the depth as the page view starts: a page shorter than the window is 100', () => {
      for (const [height, scroll] of [
        [3000, 33],
        [1000, 100],
        [600, 100],
      ]) {
        const p = page({ height });
        p.load();
        p.runTimers();
        p.elapse(15_000);
        p.hide();
        expect(p.engagements()).toEqual([['https://site.test/', 15_000, scroll]]);
      }
    });

    it('measures a landing page once it has loaded, not while it is being parsed', () => {
      const p = page({ readyState: 'loading', height: 800 });
      p.load();
      p.runTimers();
      p.document.documentElement.scrollHeight = 4000;
      p.loaded();
      p.elapse(15_000);
      // Left for another view (which measures nothing itself).
      p.history.pushState({}, '', '/next');
      expect(p.engagements()).toEqual([['https://site.test/', 15_000, 25]]);
    });

    it('counts no time while the tab is hidden or the window has lost the focus', () => {
      const p = page();
      p.load();
      p.runTimers();
      p.elapse(15_000);
      p.hide();
      p.elapse(60_000);
      p.show();
      p.elapse(1000);
      p.focus(false);
      p.elapse(60_000);
      p.focus(true);
      p.elapse(2000);
      p.hide();
      expect(p.engagements()).toEqual([
        ['https://site.test/', 15_000, 25],
        ['https://site.test/', 18_000, 25],
      ]);

      // A tab opened in the background.
      const background = page({ visibilityState: 'hidden' });
      background.load();
      background.elapse(60_000);
      background.show();
      background.elapse(15_000);
      background.hide();
      expect(background.engagements()).toEqual([['https://site.test/', 15_000, 25]]);
    });

    it('is sent only when the deepest scroll grew or the time by 3 seconds', () => {
      const p = page();
      p.load();
      p.runTimers();
      p.elapse(15_000);
      p.hide();
      p.hide();
      p.show();
      p.elapse(2999);
      p.hide();
      p.show();
      p.elapse(1);
      p.hide();
      p.show();
      p.scrollTo(1000);
      p.hide();
      p.show();
      p.scrollTo(500);
      p.hide();
      expect(p.engagements()).toEqual([
        ['https://site.test/', 15_000, 25],
        ['https://site.test/', 18_000, 25],
        ['https://site.test/', 18_000, 50],
      ]);
    });

    it('is not sent for a view seen less than 15 seconds, however far it was scrolled', () => {
      const p = page({ href: 'https://site.test/a' });
      p.load();
      p.runTimers();
      p.scrollTo(3000);
      p.elapse(14_999);
      p.hide();
      p.unload();
      // The time hidden does not count; shown again, the view reaches 15 s and sends it all.
      p.elapse(60_000);
      p.show();
      p.elapse(1);
      p.hide();
      // An SPA navigation leaves a glance unsent too, and its next view starts from nothing.
      p.show();
      p.history.pushState({}, '', '/b');
      p.runTimers();
      p.elapse(10_000);
      p.history.pushState({}, '', '/c');
      p.runTimers();
      p.elapse(5000);
      p.hide();
      expect(p.engagements()).toEqual([['https://site.test/a', 15_000, 100]]);
      // Three page views, one engagement.
      expect(p.hits).toHaveLength(4);
    });

    it("of the page an SPA navigation leaves goes first, with that page's URL", () => {
      const p = page({ href: 'https://site.test/a' });
      p.load();
      p.runTimers();
      p.elapse(15_200);
      p.scrollTo(3000);
      p.history.pushState({}, '', '/b');
      // The router draws the new page and scrolls to its top; the view's first depth waits
      // for that (a timer), else it would be the old page's.
      p.window.scrollY = 0;
      p.runTimers();
      p.elapse(15_500);
      p.hide();
      expect(p.hits.map((h) => [h.body.page, h.body.engagement ?? h.body.referrer])).toEqual([
        ['https://site.test/a', null],
        ['https://site.test/a', { ms: 15_200, scroll: 100 }],
        ['https://site.test/b', 'https://site.test/a'],
        ['https://site.test/b', { ms: 15_500, scroll: 25 }],
      ]);
    });

    it('is sent on pagehide, once even if the tab is then hidden (as Chromium does)', () => {
      const p = page();
      p.load();
      p.runTimers();
      p.elapse(15_000);
      p.unload();
      p.hide();
      expect(p.engagements()).toEqual([['https://site.test/', 15_000, 25]]);
    });

    it('counts no time while the page is in the back/forward cache', () => {
      const p = page();
      p.load();
      p.runTimers();
      p.elapse(15_000);
      p.unload();
      p.elapse(60_000);
      p.restore();
      p.elapse(3000);
      p.hide();
      expect(p.engagements()).toEqual([
        ['https://site.test/', 15_000, 25],
        ['https://site.test/', 18_000, 25],
      ]);
    });

    it('carries dnt and hash as page views do', () => {
      const p = page({
        href: 'https://site.test/#/a',
        data: { hash: '', dnt: 'true' },
        navigator: { doNotTrack: '0' },
      });
      p.load();
      p.runTimers();
      p.elapse(15_000);
      p.hide();
      expect(p.hits[1]?.body).toEqual({
        page: 'https://site.test/#/a',
        engagement: { ms: 15_000, scroll: 25 },
        dnt: true,
        hash: true,
      });
    });
  });

  it('touches no cookie or storage and adds no global but window.pa', () => {
    const p = page({ data: { domain: 'example.com' } });
    p.load();
    p.history.pushState({}, '', '/b');
    p.popTo('https://site.test/a');
    p.track({ name: 'signup', value: 10, unit: 'usd' });
    p.runTimers();
    p.scrollTo(2000);
    p.elapse(15_000);
    p.hide();
    p.unload();
    expect(p.hits).toHaveLength(5);
    expect(p.touched).toEqual([]);
    expect(p.newGlobals()).toEqual(['pa']);
    expect(Object.keys(p.window.pa as object).sort()).toEqual(['loaded', 'q', 's', 'track']);
  });
});
