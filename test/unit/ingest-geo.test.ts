import { describe, expect, it } from 'vitest';
import { type CfGeo, geoFromCf } from '../../src/ingest/steps/geo.ts';

describe('geoFromCf: known locations', () => {
  it.each<[CfGeo, string | null, string | null, string | null]>([
    [
      { country: 'US', continent: 'NA', city: 'Austin', regionCode: 'TX' },
      'US:United States',
      'NA:North America',
      'US:Austin, TX',
    ],
    [
      { country: 'DE', continent: 'EU', city: 'Berlin', regionCode: 'BE' },
      'DE:Germany',
      'EU:Europe',
      'DE:Berlin, BE',
    ],
    [
      { country: 'JP', continent: 'AS', city: 'Tokyo', regionCode: '13' },
      'JP:Japan',
      'AS:Asia',
      'JP:Tokyo, 13',
    ],
    [
      { country: 'GB', continent: 'EU', city: 'London', regionCode: 'ENG' },
      'GB:United Kingdom',
      'EU:Europe',
      'GB:London, ENG',
    ],
    [{ country: 'FR', continent: 'EU', city: 'Paris' }, 'FR:France', 'EU:Europe', 'FR:Paris'],
    [
      { country: 'FR', continent: 'EU', city: 'Paris', regionCode: '' },
      'FR:France',
      'EU:Europe',
      'FR:Paris',
    ],
    [
      { country: 'CH', continent: 'EU', city: 'Zürich', regionCode: 'ZH' },
      'CH:Switzerland',
      'EU:Europe',
      'CH:Zürich, ZH',
    ],
    [
      { country: 'BR', continent: 'SA', city: 'São Paulo', regionCode: 'SP' },
      'BR:Brazil',
      'SA:South America',
      'BR:São Paulo, SP',
    ],
    [
      { country: 'AU', continent: 'OC', city: 'Sydney', regionCode: 'NSW' },
      'AU:Australia',
      'OC:Oceania',
      'AU:Sydney, NSW',
    ],
    [{ country: 'NG', continent: 'AF', city: 'Lagos' }, 'NG:Nigeria', 'AF:Africa', 'NG:Lagos'],
    [{ country: 'AQ', continent: 'AN' }, 'AQ:Antarctica', 'AN:Antarctica', null],
    [{ country: 'IN', continent: 'AS' }, 'IN:India', 'AS:Asia', null],
  ])('%j', (cf, country, continent, city) => {
    expect(geoFromCf(cf)).toMatchObject({ country, continent, city });
  });
});

describe('geoFromCf: unknown, odd and hostile values', () => {
  it.each<[string, CfGeo | undefined, string | null, string | null, string | null]>([
    [
      'Cloudflare XX (unknown)',
      { country: 'XX', continent: 'NA', city: 'Austin' },
      null,
      'NA:North America',
      null,
    ],
    ['missing country', { continent: 'EU' }, null, 'EU:Europe', null],
    ['empty object', {}, null, null, null],
    ['undefined cf', undefined, null, null, null],
    ['Tor exit (T1)', { country: 'T1' }, 'T1:Tor', null, null],
    ['Tor exit with a city', { country: 'T1', city: 'Nowhere' }, 'T1:Tor', null, 'T1:Nowhere'],
    [
      'lower-case codes',
      { country: 'us', continent: 'na', city: 'Austin', regionCode: 'TX' },
      'US:United States',
      'NA:North America',
      'US:Austin, TX',
    ],
    ['mixed-case codes', { country: 'dE', continent: 'Eu' }, 'DE:Germany', 'EU:Europe', null],
    [
      'padded values are trimmed',
      { country: ' CH ', continent: ' EU ', city: '  Zürich ', regionCode: ' ZH ' },
      'CH:Switzerland',
      'EU:Europe',
      'CH:Zürich, ZH',
    ],
    ['numbers', { country: 1, continent: 2, city: 3, regionCode: 4 }, null, null, null],
    ['objects', { country: {}, continent: { code: 'EU' }, city: [] }, null, null, null],
    [
      'null values',
      { country: null, continent: null, city: null, regionCode: null },
      null,
      null,
      null,
    ],
    ['booleans', { country: true, continent: false }, null, null, null],
    ['empty strings', { country: '', continent: '', city: '' }, null, null, null],
    ['blank strings', { country: '  ', continent: '  ', city: '  ' }, null, null, null],
    ['unknown continent code', { country: 'US', continent: 'ZZ' }, 'US:United States', null, null],
    ['continent code "XX"', { continent: 'XX' }, null, null, null],
    ['single-letter country', { country: 'U' }, null, null, null],
    ['country starting with a digit', { country: '1A' }, null, null, null],
    ['punctuation country', { country: '<>' }, null, null, null],
    ['city without a country', { city: 'Austin', regionCode: 'TX' }, null, null, null],
    ['city with an unknown country', { country: 'XX', city: 'Austin' }, null, null, null],
    [
      'non-string region is left out',
      { country: 'CN', city: 'Wuhan', regionCode: 42 },
      'CN:China',
      null,
      'CN:Wuhan',
    ],
    [
      'non-string city with a region',
      { country: 'US', city: 7, regionCode: 'TX' },
      'US:United States',
      null,
      null,
    ],
  ])('%s', (_label, cf, country, continent, city) => {
    expect(geoFromCf(cf)).toMatchObject({ country, continent, city });
  });

  it('bounds the city name to 100 characters and the region to 10', () => {
    const geo = geoFromCf({ country: 'US', city: 'x'.repeat(150), regionCode: 'R'.repeat(20) });
    expect(geo.city).toBe(`US:${'x'.repeat(100)}, ${'R'.repeat(10)}`);
  });
});

describe('geoFromCf: the region (ISO 3166-2 code and name)', () => {
  it.each<[CfGeo, string | null]>([
    [{ country: 'US', regionCode: 'TX', region: 'Texas' }, 'US-TX:Texas'],
    [{ country: 'de', regionCode: 'be', region: 'Land Berlin' }, 'DE-BE:Land Berlin'],
    [{ country: 'JP', regionCode: '13', region: 'Tokyo' }, 'JP-13:Tokyo'],
    [{ country: 'GB', regionCode: 'ENG' }, 'GB-ENG:ENG'],
    [{ country: 'US', region: 'Texas' }, null],
    [{ regionCode: 'TX', region: 'Texas' }, null],
    [{ country: 'XX', regionCode: 'TX', region: 'Texas' }, null],
    [{ country: 'US', regionCode: 'T-X', region: 'Texas' }, null],
    [{ country: 'US', regionCode: 42, region: 'Texas' }, null],
  ])('%j → %s', (cf, region) => {
    expect(geoFromCf(cf).region).toBe(region);
  });
});
