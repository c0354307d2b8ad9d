/**
 * Waiting for an event, never for a length of time: a test that needs something to have
 * happened (a hit answered, an e-mail written, a row stored) waits for that very thing, as
 * long as it takes on a busy machine. The guard only ends a hang, naming what never came.
 * Pure: for the Worker's tests in workerd and the Node ones alike.
 */

/** How long `until` waits before it gives up: a guard against a hang, not a measure. */
export const GUARD_MS = 5 * 60_000;

/**
 * Calls `probe` every `every` ms until it answers something other than undefined, null or
 * false, and returns that; after `GUARD_MS`, throws an error naming `what`.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  every = 100,
): Promise<T> {
  const guard = Date.now() + GUARD_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > guard) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
