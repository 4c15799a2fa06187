import { badRequest } from '../../http/gateway-error.ts';
import type { ChatResponseFormatOut } from '../../wires/openai-chat/openai-chat-request.ts';
import type { ResponsesTextFormat } from '../../wires/openai-responses/openai-responses-request.ts';

/**
 * `text.format` → chat `response_format`. The Responses form is flat (`{type: "json_schema", name, schema}`);
 * chat nests it under `json_schema`. Plain text is the default and is not sent. Whether the route can honour a
 * JSON format is the route's to decide (the messages route refuses it), so nothing is dropped here.
 * https://platform.openai.com/docs/guides/structured-outputs
 */
export function convertTextFormat(format: ResponsesTextFormat | null | undefined): ChatResponseFormatOut | undefined {
  if (!format) return undefined;
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      if (!format.name || !format.schema) {
        throw badRequest('invalid_request', 'text.format of type "json_schema" needs a name and a schema.');
      }
      return {
        type: 'json_schema',
        json_schema: {
          name: format.name,
          schema: format.schema,
          ...(format.description ? { description: format.description } : {}),
          ...(format.strict != null ? { strict: format.strict } : {}),
        },
      };
    }
    default:
      throw badRequest(
        'unsupported_parameter',
        `text.format of type "${format.type}" is not supported for this model; send "text", "json_object" or "json_schema".`,
      );
  }
}
