import type { ServerResponse } from 'node:http';
import type { StaticRouteDefinition } from '../../shared/http/route-table.ts';
import { logger } from '../../shared/observability/logger.ts';
import { buildUsagePage, type PageFile, usagePageHeaders } from '../usage-page-build.ts';

let usagePage: Promise<Map<string, PageFile>> | undefined;

/** Built on the first request and kept for the life of the host; a failed build is retried on the next. */
function loadUsagePage(): Promise<Map<string, PageFile>> {
  usagePage ??= buildUsagePage().then(
    (files) => new Map(files.map((file) => [file.path, file])),
    (error: unknown) => {
      usagePage = undefined;
      throw error;
    },
  );
  return usagePage;
}

/**
 * Serves a static route on the local host, as S3 behind CloudFront does on AWS: the route's path answers with
 * the page, `<path>/<asset>` with that asset, anything else below it is a 404.
 */
export async function serveStaticPage(
  route: StaticRouteDefinition,
  pathname: string,
  method: string,
  response: ServerResponse,
): Promise<void> {
  let files: Map<string, PageFile>;
  try {
    files = await loadUsagePage();
  } catch (error) {
    logger.error('usage page build failed', { error });
    response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The usage page failed to build.');
    return;
  }
  const relative = pathname === route.path ? '' : pathname.slice(route.path.length + 1);
  const file = files.get(relative === '' ? route.indexFile : relative);
  if (!file) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found.');
    return;
  }
  response.writeHead(200, {
    ...usagePageHeaders,
    'content-type': file.contentType,
    'content-length': String(file.body.byteLength),
  });
  response.end(method === 'HEAD' ? undefined : file.body);
}
