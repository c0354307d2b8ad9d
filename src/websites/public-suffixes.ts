/**
 * Public suffixes: names under which unrelated parties register their own sites (`co.uk`,
 * `github.io`, `pages.dev`; the Public Suffix List, private section included). A website there
 * would be a parent of everyone's (docs/SECURITY.md, row 28), so none may be added.
 *
 * The list (11,000-odd rules, 160 KB) is a static asset, static/public-suffixes.txt (written by
 * `npm run build:suffixes`), not part of the Worker's bundle: an isolate reads it once, the
 * first time a website is added, and keeps the rules.
 */

/** Whether a normalised host name is a public suffix. */
export type PublicSuffixes = (domain: string) => Promise<boolean>;

/** The list's rules: plain and wildcard (`*.ck`) ones, and the exceptions (`!www.ck`). */
export type SuffixRules = { rules: Set<string>; exceptions: Set<string> };

/** The rules of the list's text (one a line, `//` comments). */
export function parseSuffixRules(text: string): SuffixRules {
  const rules = new Set<string>();
  const exceptions = new Set<string>();
  for (const line of text.split('\n')) {
    const rule = line.trim();
    if (rule === '' || rule.startsWith('//')) continue;
    if (rule.startsWith('!')) exceptions.add(rule.slice(1));
    else rules.add(rule);
  }
  return { rules, exceptions };
}

/**
 * The list's algorithm (https://github.com/publicsuffix/list/wiki/Format), asked only whether
 * `domain` is itself the suffix: an exception on it or a parent makes the suffix shorter; else
 * a rule naming it, or a wildcard over its parent, makes it one. (A name of one label would be
 * one by the implicit `*` rule, but a website's domain has a dot.)
 */
export function isSuffixIn({ rules, exceptions }: SuffixRules, domain: string): boolean {
  const labels = domain.split('.');
  for (let i = 0; i < labels.length; i += 1)
    if (exceptions.has(labels.slice(i).join('.'))) return false;
  return rules.has(domain) || (labels.length > 1 && rules.has(`*.${labels.slice(1).join('.')}`));
}

/** The asset's path. */
const SUFFIXES_ASSET = '/public-suffixes.txt';

let loaded: SuffixRules | undefined;

/** Public suffixes read from the Worker's static assets (the `ASSETS` binding). */
export function assetSuffixes(assets: Fetcher): PublicSuffixes {
  return async (domain) => {
    if (!loaded) {
      const res = await assets.fetch(new Request(`https://assets.invalid${SUFFIXES_ASSET}`));
      if (!res.ok) throw new Error(`The public suffix list is missing (${res.status}).`);
      loaded = parseSuffixRules(await res.text());
    }
    return isSuffixIn(loaded, domain);
  };
}
