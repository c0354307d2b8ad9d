/**
 * Injected failures of websites' event logs (their Durable Objects): the Worker under test
 * runs in the test's isolate with the same `env`, so a spy on `WEBSITE_LOG.get` hands it a
 * stub whose chosen method rejects, for the chosen websites — as an unreachable object or a
 * storage error would.
 */
import { env } from 'cloudflare:workers';
import { vi } from 'vitest';

type Method = 'record' | 'stage' | 'commit' | 'abort' | 'flush' | 'realtime' | 'query' | 'destroy';

export function injectLogFailure(options: {
  methods: Method[];
  /** Only these websites' logs fail (default: every website's). */
  websites?: number[];
  message?: string;
}) {
  const namespace = env.WEBSITE_LOG;
  const realGet = namespace.get.bind(namespace);
  const failing = new Set(
    (options.websites ?? []).map((id) => namespace.idFromName(`website:${id}`).toString()),
  );
  const calls: string[] = [];
  const get = vi.spyOn(namespace, 'get').mockImplementation(((id: DurableObjectId) => {
    const stub = realGet(id);
    if (options.websites && !failing.has(id.toString())) return stub;
    return new Proxy(stub, {
      get(target, prop) {
        if (typeof prop === 'string' && (options.methods as string[]).includes(prop))
          return async () => {
            calls.push(prop);
            throw new Error(
              options.message ?? 'Durable Object reset because its code was updated.',
            );
          };
        // A stub's methods are RPC calls already tied to it (binding one would call `bind`).
        return Reflect.get(target, prop, target);
      },
    });
  }) as typeof namespace.get);
  return {
    /** The failed calls, by method. */
    calls,
    restore: () => get.mockRestore(),
  };
}
