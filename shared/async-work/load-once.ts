/**
 * `load` run on the first call, its promise kept for every later one; a load that failed is tried again by the next
 * call. For the parts of a function imported with `await import()` on the first request that needs them: in a Lambda
 * bundle, which is built split, each is a file beside the entry that a cold start does not load (docs/bundles.md).
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
