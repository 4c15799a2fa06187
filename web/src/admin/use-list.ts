import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { adminPath, callJson, GatewayError } from './admin-client.ts';
import type { ViewContext } from './view-context.ts';

/**
 * One paged admin list (`{ <name>: Item[], nextCursor }`): the first page on mount and whenever the filters
 * change, further pages on "Load more". A list endpoint without paging (no `nextCursor`) is one page.
 */
const pageSize = 50;
/** At most this many requests per "page" the console shows (each a bounded read on the gateway). */
const maxRounds = 5;

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
  // The latest fetch: an answer to an earlier one (filters changed while it was under way) is dropped, so a slow
  // answer never replaces the list the current filters asked for.
  const latest = useRef(0);

  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const fetchNumber = ++latest.current;
      setLoading(true);
      // A new list (other filters): no "Load more" until it is here, so a page of the old list is never appended.
      if (cursor === null) setNextCursor(null);
      try {
        // On DynamoDB a filtered page reads a bounded stretch of the list and may come back short, even empty,
        // with a cursor: the console reads on (a few stretches at most) so a page shows what it can.
        const page: Item[] = [];
        let next: string | null = cursor;
        for (let round = 0; round < maxRounds; round++) {
          const answer: Record<string, unknown> = await callJson<Record<string, unknown>>(
            context.signed.credential,
            adminPath(path, { ...filters, limit: pageSize - page.length, cursor: next }),
          );
          if (fetchNumber !== latest.current) return;
          page.push(...((answer[name] as Item[] | undefined) ?? []));
          next = typeof answer['nextCursor'] === 'string' ? answer['nextCursor'] : null;
          if (next === null || page.length >= pageSize) break;
        }
        if (fetchNumber !== latest.current) return;
        setItems((previous) => (cursor ? [...previous, ...page] : page));
        setNextCursor(next);
        setError(null);
      } catch (failure) {
        if (fetchNumber !== latest.current) return;
        if (failure instanceof GatewayError && failure.status === 401) context.onUnauthorized();
        else setError(failure);
      } finally {
        if (fetchNumber === latest.current) setLoading(false);
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

/**
 * Every record of a list, for a choice among them (the "Member" of a key): pages of 200 read one after another
 * until the list ends, at most `maxPages` (a team of 5,000 members). `complete` is false when it stopped short.
 */
export function useWholeList<Item>(context: ViewContext, path: string, name: string, maxPages = 25) {
  const [items, setItems] = useState<Item[]>([]);
  const [complete, setComplete] = useState(false);
  useEffect(() => {
    let current = true;
    void (async () => {
      const all: Item[] = [];
      let cursor: string | null = null;
      try {
        for (let pageNumber = 0; pageNumber < maxPages; pageNumber++) {
          const answer: Record<string, unknown> = await callJson<Record<string, unknown>>(
            context.signed.credential,
            adminPath(path, { limit: 200, cursor }),
          );
          all.push(...((answer[name] as Item[] | undefined) ?? []));
          cursor = typeof answer['nextCursor'] === 'string' ? answer['nextCursor'] : null;
          // Shown as it arrives, so the first names are there to choose at once.
          if (current) setItems([...all]);
          if (cursor === null) break;
        }
        if (current) setComplete(cursor === null);
      } catch (failure) {
        if (current && failure instanceof GatewayError && failure.status === 401) context.onUnauthorized();
      }
    })();
    return () => {
      current = false;
    };
  }, [context.signed, path, name, maxPages]);
  return { items, complete };
}
