import type { ListedModel } from '../../catalog/callable-models.ts';

/**
 * A model as the OpenAI models API shows it, plus the gateway's `wires`: the request formats that reach the
 * model through the connections serving it (spec §2.1), and `input_modalities` where the catalog or its connection
 * states what it takes (`["text", "image", "video"]`; left out for a model no one states it for, which takes what
 * the client sends). The list is not paginated, as the vendor's is not.
 * https://platform.openai.com/docs/api-reference/models/object
 */
export function openaiModelEntry(model: ListedModel) {
  return {
    id: model.id,
    object: 'model' as const,
    created: 0,
    owned_by: model.provider,
    wires: model.wires,
    ...(model.inputModalities ? { input_modalities: model.inputModalities } : {}),
  };
}

export function openaiModelList(models: readonly ListedModel[]) {
  return { object: 'list' as const, data: models.map(openaiModelEntry) };
}
