/** The password of every fixture owner (test/support/api.ts `makeOwner`), in Node and workerd alike. */
export const OWNER_PASSWORD = 'a long enough password';
