/**
 * IANA time zone validation. Offsets such as `+05:00` are accepted by newer Intl
 * implementations but are not zone names: they would ignore daylight saving, so they are
 * refused here.
 */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** Returns the canonical spelling of an IANA time zone name, or null when it is not one. */
export function canonicalTimeZone(name: string): string | null {
  if (name.length > 64 || !ZONE_NAME.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
