/** The visitor's language as a primary subtag (`en`), from the hit or `Accept-Language`. */
const PRIMARY = /^([a-z]{2,3})(?:[-_][a-z0-9]{1,8})*$/i;

export function languageOf(
  fromHit: string | null | undefined,
  acceptLanguage: string | null,
): string | null {
  for (const candidate of [fromHit, acceptLanguage?.split(',')[0]?.split(';')[0]]) {
    const match = PRIMARY.exec(candidate?.trim() ?? '');
    if (match?.[1]) return match[1].toLowerCase();
  }
  return null;
}
