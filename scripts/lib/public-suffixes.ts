/**
 * The Public Suffix List as the tools read it: the same file the Worker reads as a static
 * asset (src/websites/public-suffixes.ts), from the disk.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  isSuffixIn,
  type PublicSuffixes,
  parseSuffixRules,
  type SuffixRules,
} from '../../src/websites/public-suffixes.ts';

export const SUFFIXES_FILE = fileURLToPath(
  new URL('../../static/public-suffixes.txt', import.meta.url),
);

let rules: SuffixRules | undefined;

/** Public suffixes read from static/public-suffixes.txt. */
export const suffixesOnDisk: PublicSuffixes = async (domain) => {
  rules ??= parseSuffixRules(readFileSync(SUFFIXES_FILE, 'utf8'));
  return isSuffixIn(rules, domain);
};
