/**
 * A repository whose module loads on its first call. The Slack function answers `/cloud help`
 * with a delivery claim and two reads; loading every repository (and zod, which their item
 * schemas are written with) before that answer cost its cold start more than the answer itself.
 * Only methods that return promises can wait for a module, so only they are offered: what a
 * caller would read synchronously belongs to the store itself (e.g. `Store.now`).
 */
export type OnFirstUse<R> = {
  readonly [K in keyof R as R[K] extends (...args: never[]) => Promise<unknown> ? K : never]: R[K];
};

/** How to start loading each repository made by `onFirstUse`, for `loadAhead`. */
const loaders = new WeakMap<object, () => Promise<unknown>>();

/**
 * Starts loading a repository's module now, without calling it, so that its first call waits
 * less: for a request that knows what it will need while it waits on something else. A failed
 * load is not remembered: the first call tries again and reports it. Anything else is left alone.
 */
export function loadAhead(repository: object): void {
  loaders
    .get(repository)?.()
    .catch(() => undefined);
}

export function onFirstUse<R extends object>(load: () => Promise<R>): OnFirstUse<R> {
  let loaded: Promise<R> | undefined;
  // A failed load is not remembered: the next call tries again.
  const ensureLoaded = () =>
    (loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    }));
  const methods = new Map<PropertyKey, unknown>();
  const repository = new Proxy(Object.create(null) as OnFirstUse<R>, {
    get(_, name) {
      // Not a thenable: `await store.approvals` must not call a method named `then`.
      if (name === 'then' || typeof name === 'symbol') return undefined;
      let method = methods.get(name);
      if (method === undefined) {
        method = async (...args: unknown[]) => {
          const target = await ensureLoaded();
          const member = (target as Record<PropertyKey, unknown>)[name];
          if (typeof member !== 'function') throw new TypeError(`No method ${String(name)}`);
          return member.apply(target, args);
        };
        methods.set(name, method);
      }
      return method;
    },
  });
  loaders.set(repository, ensureLoaded);
  return repository;
}
