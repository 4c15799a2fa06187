import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { HostContext } from '../../functions/streaming-entry.ts';
import { type FunctionId, functionIds } from '../../shared/http/route-table.ts';
import { installLambdaStreamShim, type RuntimeResponseStream } from './lambda-stream-shim.ts';

/** A streaming Lambda handler as the local server calls it: the event, the response stream, the context. */
export type LocalFunction = (
  event: APIGatewayProxyEventV2,
  responseStream: RuntimeResponseStream,
  context: HostContext,
) => Promise<void>;

/**
 * Loads the same function entries Lambda runs: `functions/<functionId>.ts`, the file the CDK stack bundles for
 * each id of the route table. The `awslambda` shim must exist before an entry module is evaluated (a streaming
 * entry calls `awslambda.streamifyResponse` then), hence the dynamic imports after installing it.
 */
export async function loadLocalFunctions(): Promise<Record<FunctionId, LocalFunction>> {
  installLambdaStreamShim();
  const entries = await Promise.all(
    functionIds.map(async (functionId) => {
      const module = (await import(`../../functions/${functionId}.ts`)) as { handler?: unknown };
      if (typeof module.handler !== 'function') throw new Error(`functions/${functionId}.ts exports no handler`);
      return [functionId, module.handler as LocalFunction] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<FunctionId, LocalFunction>;
}
