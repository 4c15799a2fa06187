import { useCallback, useEffect, useState } from 'preact/hooks';
import { adminPath, callJson, GatewayError } from './admin-client.ts';
import type { ViewContext } from './view-context.ts';

/**
 * One paged admin list (`{ <name>: Item[], nextCursor }`): the first page on mount and whenever the filters
 * change, further pages on "Load more". A list endpoint without paging (no `nextCursor`) is one page.
 */
export function usePagedList<Item>(
  context: ViewContext,
  path: string,
  name: string,
  filters: Record<string, string | null | undefined>,
) {
  const [items, setItems] = useState<Item[]>([]);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const filterKey = JSON.stringify(filters);

  const fetchPage = useCallback(
    async (cursor: string | null) => {
      setLoading(true);
      try {
        const answer = await callJson<Record<string, unknown>>(
          context.signed.credential,
          adminPath(path, { ...filters, limit: 50, cursor }),
        );
        const page = (answer[name] as Item[] | undefined) ?? [];
        setItems((previous) => (cursor ? [...previous, ...page] : page));
        setNextCursor(typeof answer['nextCursor'] === 'string' ? answer['nextCursor'] : null);
        setError(null);
      } catch (failure) {
        if (failure instanceof GatewayError && failure.status === 401) context.onUnauthorized();
        else setError(failure);
      } finally {
        setLoading(false);
      }
    },
    // The filters are compared by value, as filterKey.
    [context.signed, path, name, filterKey],
  );

  useEffect(() => {
    void fetchPage(null);
  }, [fetchPage]);

  return {
    items,
    nextCursor,
    error,
    loading,
    reload: () => fetchPage(null),
    loadMore: () => (nextCursor ? fetchPage(nextCursor) : Promise.resolve()),
  };
}
