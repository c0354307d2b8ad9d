import { describe, expect, it } from 'vitest';
import {
  browserFromBrands,
  capUserAgent,
  parseDevice,
  USER_AGENT_LIMIT,
} from '../../src/ingest/steps/device.ts';

/** Real, current User-Agent strings, by what sends them. */
const UA = {
  chromeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  edgeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  firefoxWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  operaWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0',
  chromeMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  safariMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  firefoxMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.7; rv:133.0) Gecko/20100101 Firefox/133.0',
  edgeMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  operaMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0',
  chromeLinux:
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  firefoxUbuntu: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  edgeLinux:
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  chromeOs:
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  chromeOsArm:
    'Mozilla/5.0 (X11; CrOS aarch64 15917.71.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  chromeAndroidReduced:
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  chromeAndroidPixel:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36',
  chromeAndroidTabletReduced:
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  chromeGalaxyTab:
    'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  samsungPhone:
    'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S928B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  samsungPhoneReduced:
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  samsungTablet:
    'Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Safari/537.36',
  firefoxAndroid: 'Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0',
  firefoxAndroidTablet: 'Mozilla/5.0 (Android 14; Tablet; rv:133.0) Gecko/133.0 Firefox/133.0',
  edgeAndroid:
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 EdgA/131.0.0.0',
  operaAndroid:
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36 OPR/86.0.0.0',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  chromeIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
  firefoxIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15',
  edgeIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 EdgiOS/131.2903.68 Mobile/15E148 Safari/605.1.15',
  operaIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1 OPT/5.1.0',
  safariIpad:
    'Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  chromeIpad:
    'Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
  /** iPadOS Safari by default requests desktop sites and sends a Mac UA. */
  ipadDesktopMode:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
  samsungTizenTv:
    'Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.5) AppleWebKit/537.36 (KHTML, like Gecko) 85.0.4183.93/6.5 TV Safari/537.36',
  lgWebOsTv:
    'Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/87.0.4280.88 Safari/537.36 WebAppManager',
  sonyBraviaAndroidTv:
    'Mozilla/5.0 (Linux; Android 9; BRAVIA 4K UR2 Build/PTT1.190515.001.S104) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  vivaldiWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Vivaldi/7.0.3495.18',
};

/** Brave, and other Chromium browsers that hide in the UA, send a plain Chrome UA. */
const BRAVE_UA = UA.chromeWindows;

describe('parseDevice: from the User-Agent alone', () => {
  it.each([
    // Windows
    ['Chrome on Windows', UA.chromeWindows, 'Chrome', 'Windows', 'desktop'],
    ['Edge on Windows', UA.edgeWindows, 'Edge', 'Windows', 'desktop'],
    ['Firefox on Windows', UA.firefoxWindows, 'Firefox', 'Windows', 'desktop'],
    ['Opera on Windows', UA.operaWindows, 'Opera', 'Windows', 'desktop'],
    ['Brave on Windows (Chrome UA)', BRAVE_UA, 'Chrome', 'Windows', 'desktop'],
    ['Vivaldi on Windows', UA.vivaldiWindows, 'Vivaldi', 'Windows', 'desktop'],
    // macOS
    ['Chrome on macOS', UA.chromeMac, 'Chrome', 'macOS', 'desktop'],
    ['Safari on macOS', UA.safariMac, 'Safari', 'macOS', 'desktop'],
    ['Firefox on macOS', UA.firefoxMac, 'Firefox', 'macOS', 'desktop'],
    ['Edge on macOS', UA.edgeMac, 'Edge', 'macOS', 'desktop'],
    ['Opera on macOS', UA.operaMac, 'Opera', 'macOS', 'desktop'],
    // Linux, Chrome OS
    ['Chrome on Linux', UA.chromeLinux, 'Chrome', 'Linux', 'desktop'],
    ['Firefox on Linux', UA.firefoxLinux, 'Firefox', 'Linux', 'desktop'],
    ['Firefox on Ubuntu', UA.firefoxUbuntu, 'Firefox', 'Linux', 'desktop'],
    ['Edge on Linux', UA.edgeLinux, 'Edge', 'Linux', 'desktop'],
    ['Chrome on Chrome OS (x86_64)', UA.chromeOs, 'Chrome', 'Chrome OS', 'desktop'],
    ['Chrome on Chrome OS (aarch64)', UA.chromeOsArm, 'Chrome', 'Chrome OS', 'desktop'],
    // Android phones
    ['Chrome on Android (reduced UA)', UA.chromeAndroidReduced, 'Chrome', 'Android', 'mobile'],
    ['Chrome on Pixel 8', UA.chromeAndroidPixel, 'Chrome', 'Android', 'mobile'],
    ['Samsung Internet on Galaxy S24', UA.samsungPhone, 'Samsung Internet', 'Android', 'mobile'],
    [
      'Samsung Internet (reduced UA)',
      UA.samsungPhoneReduced,
      'Samsung Internet',
      'Android',
      'mobile',
    ],
    ['Firefox on Android', UA.firefoxAndroid, 'Firefox', 'Android', 'mobile'],
    ['Edge on Android', UA.edgeAndroid, 'Edge', 'Android', 'mobile'],
    ['Opera on Android', UA.operaAndroid, 'Opera', 'Android', 'mobile'],
    // Android tablets
    [
      'Chrome on Android tablet (reduced UA)',
      UA.chromeAndroidTabletReduced,
      'Chrome',
      'Android',
      'tablet',
    ],
    ['Chrome on Galaxy Tab S9', UA.chromeGalaxyTab, 'Chrome', 'Android', 'tablet'],
    ['Samsung Internet on Galaxy Tab', UA.samsungTablet, 'Samsung Internet', 'Android', 'tablet'],
    ['Firefox on Android tablet', UA.firefoxAndroidTablet, 'Firefox', 'Android', 'tablet'],
    // iPhone
    ['Safari on iPhone', UA.safariIphone, 'Safari', 'iOS', 'mobile'],
    ['Chrome on iPhone (CriOS)', UA.chromeIphone, 'Chrome', 'iOS', 'mobile'],
    ['Firefox on iPhone (FxiOS)', UA.firefoxIphone, 'Firefox', 'iOS', 'mobile'],
    ['Edge on iPhone (EdgiOS)', UA.edgeIphone, 'Edge', 'iOS', 'mobile'],
    ['Opera on iPhone (OPT)', UA.operaIphone, 'Opera', 'iOS', 'mobile'],
    // iPad
    ['Safari on iPad', UA.safariIpad, 'Safari', 'iOS', 'tablet'],
    ['Chrome on iPad (CriOS)', UA.chromeIpad, 'Chrome', 'iOS', 'tablet'],
    // iPadOS requests desktop sites with a UA identical to Safari on a Mac: nothing in it
    // tells the two apart, so it is counted as a Mac. This is the expected, documented outcome.
    ['Safari on iPad, desktop mode (Mac UA)', UA.ipadDesktopMode, 'Safari', 'macOS', 'desktop'],
  ])('%s', (_label, userAgent, browser, os, device) => {
    expect(parseDevice(userAgent)).toMatchObject({ browser, os, device });
  });

  it.each([
    ['Samsung Tizen', UA.samsungTizenTv],
    ['LG webOS', UA.lgWebOsTv],
  ])('a %s smart TV is a tv', (_label, userAgent) => {
    expect(parseDevice(userAgent).device).toBe('tv');
  });

  it.each([
    ['Samsung Tizen', UA.samsungTizenTv, 'Tizen', 'Tizen'],
    ['LG webOS', UA.lgWebOsTv, 'WebOS Browser', 'WebOS'],
  ])('a %s smart TV names its own browser and OS', (_label, userAgent, browser, os) => {
    expect(parseDevice(userAgent)).toMatchObject({ browser, os, device: 'tv' });
  });

  // Android TV UAs carry no "Mobile" token and no "SmartTV" marker; they must still not be
  // counted as tablets.
  it('an Android TV (Sony BRAVIA) is a tv', () => {
    expect(parseDevice(UA.sonyBraviaAndroidTv)).toMatchObject({
      browser: 'Chrome',
      os: 'Android',
      device: 'tv',
    });
  });

  it.each([
    ['', 'Unknown'],
    ['   ', 'Unknown'],
    ['foo', 'Unknown'],
  ])('UA %j → browser %s', (userAgent, browser) => {
    expect(parseDevice(userAgent).browser).toBe(browser);
  });

  it('an empty UA is unknown in every part', () => {
    expect(parseDevice('')).toMatchObject({ browser: 'Unknown', os: 'Unknown', device: 'Unknown' });
  });

  it('no hints argument and empty hints give the same result', () => {
    expect(parseDevice(UA.chromeWindows, {})).toEqual(parseDevice(UA.chromeWindows));
    expect(
      parseDevice(UA.chromeWindows, { platform: null, mobile: null, brands: null }),
    ).toMatchObject({
      browser: 'Chrome',
      os: 'Windows',
      device: 'desktop',
    });
  });
});

describe('parseDevice: User-Agent Client Hints', () => {
  const EDGE_BRANDS = '"Chromium";v="131", "Not_A Brand";v="24", "Microsoft Edge";v="131"';
  const CHROME_BRANDS = '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"';
  const BRAVE_BRANDS = '"Brave";v="131", "Chromium";v="131", "Not_A Brand";v="24"';

  it('Edge brands on a frozen Windows UA → Edge on Windows', () => {
    expect(
      parseDevice(UA.chromeWindows, { platform: '"Windows"', mobile: '?0', brands: EDGE_BRANDS }),
    ).toMatchObject({ browser: 'Edge', os: 'Windows', device: 'desktop' });
  });

  it('Brave brands on a Chrome UA → Brave', () => {
    expect(
      parseDevice(BRAVE_UA, { platform: '"Windows"', mobile: '?0', brands: BRAVE_BRANDS }),
    ).toMatchObject({ browser: 'Brave', os: 'Windows', device: 'desktop' });
  });

  it.each([
    ['"macOS"', UA.chromeWindows, 'macOS'],
    ['"macOS"', UA.chromeMac, 'macOS'],
    ['"Windows"', UA.chromeLinux, 'Windows'],
    ['"Linux"', UA.chromeWindows, 'Linux'],
    ['"Chrome OS"', UA.chromeLinux, 'Chrome OS'],
    ['"Android"', UA.chromeLinux, 'Android'],
    ['"iOS"', UA.chromeMac, 'iOS'],
    ['"windows"', UA.chromeMac, 'Windows'],
    ['Windows', UA.chromeMac, 'Windows'],
    ['  "macOS"  ', UA.chromeWindows, 'macOS'],
  ])('platform %j on a frozen UA → os %s', (platform, userAgent, os) => {
    expect(parseDevice(userAgent, { platform }).os).toBe(os);
  });

  it.each([
    ['"Unknown"', UA.chromeWindows, 'Windows'],
    ['""', UA.chromeMac, 'macOS'],
    ['"Chromium OS"', UA.chromeOs, 'Chrome OS'],
    ['"Fuchsia"', UA.chromeLinux, 'Linux'],
    ['"__proto__"', UA.chromeWindows, 'Windows'],
    ['"constructor"', UA.chromeMac, 'macOS'],
    ['"hasOwnProperty"', UA.chromeLinux, 'Linux'],
  ])('unmapped platform %j keeps the UA OS (%s)', (platform, userAgent, os) => {
    expect(parseDevice(userAgent, { platform }).os).toBe(os);
  });

  it('mobile ?1 → device mobile, even on a tablet-shaped UA', () => {
    expect(
      parseDevice(UA.chromeAndroidTabletReduced, {
        platform: '"Android"',
        mobile: '?1',
        brands: CHROME_BRANDS,
      }),
    ).toMatchObject({ browser: 'Chrome', os: 'Android', device: 'mobile' });
  });

  it('mobile ?0 keeps the device from the UA (tablets send ?0)', () => {
    expect(parseDevice(UA.chromeGalaxyTab, { platform: '"Android"', mobile: '?0' })).toMatchObject({
      browser: 'Chrome',
      os: 'Android',
      device: 'tablet',
    });
    expect(parseDevice(UA.chromeWindows, { mobile: '?0' }).device).toBe('desktop');
  });

  it('brands naming only Chromium keep the browser from the UA', () => {
    expect(
      parseDevice(UA.edgeWindows, { brands: '"Chromium";v="131", "Not_A Brand";v="24"' }).browser,
    ).toBe('Edge');
    expect(
      parseDevice(UA.operaWindows, { brands: '"Not A(Brand";v="8", "Chromium";v="132"' }).browser,
    ).toBe('Opera');
  });

  it('an empty brands header is ignored', () => {
    expect(parseDevice(UA.firefoxWindows, { brands: '' }).browser).toBe('Firefox');
  });
});

describe('browserFromBrands', () => {
  it.each([
    ['"Chromium";v="131", "Not_A Brand";v="24"', null],
    ['"Not A(Brand";v="8", "Chromium";v="132"', null],
    ['"Not)A;Brand";v="99", "Chromium";v="127"', null],
    ['"Chromium";v="131"', null],
    ['', null],
    ['"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"', 'Chrome'],
    ['"Chromium";v="131", "Not_A Brand";v="24", "Google Chrome";v="131"', 'Chrome'],
    ['"Chromium";v="131", "Not)A;Brand";v="99", "Google Chrome";v="131"', 'Chrome'],
    ['"Chromium";v="131", "Not_A Brand";v="24", "Microsoft Edge";v="131"', 'Edge'],
    ['"Microsoft Edge";v="131", "Google Chrome";v="131"', 'Edge'],
    ['"Brave";v="131", "Chromium";v="131", "Not_A Brand";v="24"', 'Brave'],
    ['"Opera";v="115", "Chromium";v="130", "Not?A_Brand";v="99"', 'Opera'],
    ['"Vivaldi";v="7.0", "Chromium";v="131", "Not_A Brand";v="24"', 'Vivaldi'],
    ['"Samsung Internet";v="26", "Chromium";v="122"', 'Samsung Internet'],
    ['"YaBrowser";v="24.12", "Chromium";v="130", "Not?A_Brand";v="24"', 'Yandex Browser'],
    ['"google chrome";v="131"', 'Chrome'],
  ])('%s → %j', (header, browser) => {
    expect(browserFromBrands(header)).toBe(browser);
  });
});

describe('long User-Agents', () => {
  /** Filler that no pattern knows, as long as asked. */
  const filler = (length: number) => ' x'.repeat(Math.ceil(length / 2)).slice(0, length);

  it(`cuts a User-Agent to its first ${USER_AGENT_LIMIT} characters`, () => {
    expect(USER_AGENT_LIMIT).toBe(512);
    expect(capUserAgent(UA.chromeWindows)).toBe(UA.chromeWindows);
    const long = `${UA.chromeWindows}${filler(40_000)}`;
    expect(capUserAgent(long)).toBe(long.slice(0, USER_AGENT_LIMIT));
  });

  it('does not see a marker that lies beyond the cap', () => {
    const tizen = 'Mozilla/5.0 (Linux; Tizen 6.5) AppleWebKit/537.36 (KHTML, like Gecko)';
    // Within the cap the TV marker counts …
    expect(parseDevice(`${tizen} 85.0/6.5 TV Safari/537.36`).device).toBe('tv');
    // … beyond it, it is never read.
    const beyond = `${tizen}${filler(USER_AGENT_LIMIT)} TV Safari/537.36`;
    expect(beyond.indexOf(' TV ')).toBeGreaterThan(USER_AGENT_LIMIT);
    expect(parseDevice(beyond).device).not.toBe('tv');
    const roku = `${UA.chromeWindows}${filler(USER_AGENT_LIMIT)} Roku/DVP-9.10`;
    expect(parseDevice(roku)).toEqual(parseDevice(UA.chromeWindows));
  });

  it('reads the start of a huge User-Agent as usual', () => {
    expect(parseDevice(`${UA.samsungTizenTv}${'tizen '.repeat(6_000)}`)).toEqual(
      parseDevice(UA.samsungTizenTv),
    );
    expect(parseDevice(`${UA.safariIphone}${filler(36_000)}`)).toEqual(
      parseDevice(UA.safariIphone),
    );
  });

  it('looks for the TV marker of Tizen within a bounded distance', () => {
    expect(parseDevice(`Mozilla/5.0 (Linux; Tizen 2.3)${filler(80)} TV`).device).toBe('tv');
    expect(parseDevice(`Mozilla/5.0 (Linux; Tizen 2.3)${filler(300)} TV`).device).not.toBe('tv');
  });
});

describe('parseDevice: names of JavaScript built-ins', () => {
  it.each(['hasOwnProperty', 'constructor', 'toString', '__proto__'])(
    'a browser called %s gives a device of strings only (versions: strings or null)',
    (name) => {
      const { browserVersion, osVersion, ...names } = parseDevice(`${name}/2 (x)`);
      for (const value of Object.values(names)) expect(typeof value).toBe('string');
      for (const version of [browserVersion, osVersion])
        expect(version === null || typeof version === 'string').toBe(true);
    },
  );
});

describe('parseDevice: browser and OS versions (major.minor)', () => {
  it('reads them from the User-Agent', () => {
    expect(parseDevice(UA.chromeWindows)).toMatchObject({
      browserVersion: expect.stringMatching(/^\d+\.\d+$/),
    });
    expect(
      parseDevice(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15',
      ),
    ).toMatchObject({ browser: 'Safari', browserVersion: '17.4', osVersion: '10.15' });
    expect(parseDevice('')).toMatchObject({ browserVersion: null, osVersion: null });
  });
});
