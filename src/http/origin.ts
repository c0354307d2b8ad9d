/**
 * Where the links Sightline hands out start (shared links, invitations, e-mails): `PUBLIC_URL`
 * when set, else the origin the request came to.
 */
export const linkOrigin = (publicUrl: string | undefined, requestUrl: string) =>
  publicUrl?.replace(/\/+$/, '') || new URL(requestUrl).origin;
