/**
 * IANA time zone validation. Offsets such as `+05:00` are accepted by newer Intl
 * implementations but are not zone names: they would ignore daylight saving, so they are
 * refused here.
 */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

let known: Map<string, string> | undefined;

/**
 * Returns the IANA time zone name with its canonical capitalisation, or null when it is not
 * one. The name itself is kept: ICU resolves current names to legacy aliases
 * (`Asia/Kolkata` → `Asia/Calcutta`), which owners would not recognise.
 */
export function canonicalTimeZone(name: string): string | null {
  if (name.length > 64 || !ZONE_NAME.test(name)) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  if (resolved.toLowerCase() === name.toLowerCase()) return resolved;
  known ??= new Map(Intl.supportedValuesOf('timeZone').map((zone) => [zone.toLowerCase(), zone]));
  const listed = known.get(name.toLowerCase());
  if (listed) return listed;
  // A current name that ICU knows only as an alias: keep the owner's spelling when it is
  // cased like a zone name; otherwise take ICU's spelling of the same zone.
  return name === name.toLowerCase() || name === name.toUpperCase() ? resolved : name;
}

/** The zone names the runtime knows, for a list to choose from ("UTC" first, then by name). */
export function timeZoneNames(): string[] {
  const zones = Intl.supportedValuesOf('timeZone');
  return ['UTC', ...zones.filter((zone) => zone !== 'UTC')];
}
