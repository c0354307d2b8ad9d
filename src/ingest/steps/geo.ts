/**
 * Country, continent and city from Cloudflare's `request.cf`, in the value formats of
 * docs/ARCHITECTURE.md, The counting model: `US:United States`, `NA:North America`, `US:Austin, TX`,
 * `US-TX:Texas`. Nothing here
 * looks at the IP address; Cloudflare has already resolved it at the edge.
 */
export type CfGeo = {
  country?: unknown;
  continent?: unknown;
  city?: unknown;
  regionCode?: unknown;
  region?: unknown;
};
export type Geo = {
  country: string | null;
  continent: string | null;
  city: string | null;
  /** ISO 3166-2 code and name: `US-TX:Texas` (Plausible's `visit:region`, `visit:region_name`). */
  region: string | null;
};

const CONTINENTS: Record<string, string> = {
  AF: 'Africa',
  AN: 'Antarctica',
  AS: 'Asia',
  EU: 'Europe',
  NA: 'North America',
  OC: 'Oceania',
  SA: 'South America',
};

let regionNames: Intl.DisplayNames | undefined;
/** The names found, by code (at most the 36 × 26 two-character codes): Intl asked once each. */
const countryNames = new Map<string, string>();

export function countryName(code: string): string {
  let name = countryNames.get(code);
  if (name === undefined) {
    name = namedCountry(code);
    countryNames.set(code, name);
  }
  return name;
}

function namedCountry(code: string): string {
  // Cloudflare uses XX for unknown and T1 for Tor; neither is a region Intl knows.
  if (code === 'T1') return 'Tor';
  try {
    regionNames ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
}

const text = (value: unknown, max = 100): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, max) : null;

export function geoFromCf(cf: CfGeo | undefined): Geo {
  const code = text(cf?.country)?.toUpperCase() ?? null;
  const country = code && /^[A-Z][A-Z0-9]$/.test(code) && code !== 'XX' ? code : null;
  const continentCode = text(cf?.continent, 2)?.toUpperCase() ?? null;
  const continent =
    continentCode && CONTINENTS[continentCode]
      ? `${continentCode}:${CONTINENTS[continentCode]}`
      : null;
  const cityName = text(cf?.city);
  const region = text(cf?.regionCode, 10);
  const regionName = text(cf?.region);
  return {
    country: country ? `${country}:${countryName(country)}` : null,
    continent,
    city: country && cityName ? `${country}:${cityName}${region ? `, ${region}` : ''}` : null,
    region:
      country && region && /^[A-Z0-9]{1,3}$/i.test(region)
        ? `${country}-${region.toUpperCase()}:${regionName ?? region.toUpperCase()}`
        : null,
  };
}
