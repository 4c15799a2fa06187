import type { ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { HostContext } from '../../functions/streaming-entry.ts';
import type { FunctionId } from '../../shared/http/route-table.ts';
import { installLambdaStreamShim } from './lambda-stream-shim.ts';

/** A streaming Lambda handler as the local server calls it: the event, the response stream, the context. */
export type LocalFunction = (
  event: APIGatewayProxyEventV2,
  responseStream: ServerResponse,
  context: HostContext,
) => Promise<void>;

/**
 * Loads the same function entries Lambda runs. The `awslambda` shim must exist before an entry module is
 * evaluated (middy reads it then), hence the dynamic imports after installing it.
 */
export async function loadLocalFunctions(): Promise<Record<FunctionId, LocalFunction>> {
  installLambdaStreamShim();
  const load = async (functionId: FunctionId): Promise<LocalFunction> => {
    switch (functionId) {
      case 'chat-completions':
        return (await import('../../functions/chat-completions.ts')).handler as unknown as LocalFunction;
      case 'responses':
        return (await import('../../functions/responses.ts')).handler as unknown as LocalFunction;
      case 'messages':
        return (await import('../../functions/messages.ts')).handler as unknown as LocalFunction;
      case 'count-tokens':
        return (await import('../../functions/count-tokens.ts')).handler as unknown as LocalFunction;
      case 'generate-content':
        return (await import('../../functions/generate-content.ts')).handler as unknown as LocalFunction;
      case 'models':
        return (await import('../../functions/models.ts')).handler as unknown as LocalFunction;
      case 'admin':
        return (await import('../../functions/admin.ts')).handler as unknown as LocalFunction;
      case 'usage':
        return (await import('../../functions/usage.ts')).handler as unknown as LocalFunction;
      default: {
        const unknownFunction: never = functionId;
        throw new Error(`no entry for ${String(unknownFunction)}`);
      }
    }
  };
  return {
    'chat-completions': await load('chat-completions'),
    responses: await load('responses'),
    messages: await load('messages'),
    'count-tokens': await load('count-tokens'),
    'generate-content': await load('generate-content'),
    models: await load('models'),
    admin: await load('admin'),
    usage: await load('usage'),
  };
}
