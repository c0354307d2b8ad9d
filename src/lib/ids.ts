/** An id from a path (a website's, a goal's, a member's…): a positive decimal integer, or null. */
export function parseId(raw: string | undefined): number | null {
  return raw && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null;
}
