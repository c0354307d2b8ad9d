/**
 * The referrer statistic records the host of external referrers only: a referrer on the
 * website's own domain or any of its subdomains is navigation inside the site.
 */
export function isSameSite(host: string, domain: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === domain || h.endsWith(`.${domain}`);
}

/** The external referrer host of a hit, or null when there is none or it is internal. */
export function externalReferrer(referrer: URL | null, domain: string): string | null {
  if (!referrer || (referrer.protocol !== 'http:' && referrer.protocol !== 'https:')) return null;
  const host = referrer.hostname.toLowerCase();
  if (host === '' || isSameSite(host, domain)) return null;
  return host;
}
