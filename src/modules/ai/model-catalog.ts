import { ModelCatalogEntry } from '../../entities/model-catalog-entry';
import type { RequestContext } from '../../engine/context';
import type { ResourceRules } from '../../engine/resource-rules';

/** docs/ai-gateway.md: a model's `upstreamModel` (the provider's own id) defaults to its `name`. */
export const modelCatalogRules: ResourceRules<ModelCatalogEntry> = {
  async beforeCreate(_ctx, values) {
    if (isBlank(values.upstreamModel)) values.upstreamModel = values.name;
  },
  async beforeUpdate(_ctx, entity, changes, sent) {
    if ('upstreamModel' in sent && isBlank(sent.upstreamModel)) changes.upstreamModel = changes.name ?? entity.name;
  },
};

function isBlank(value: string | undefined): boolean {
  return value === undefined || value.trim() === '';
}

/** A model as OpenAI clients list it. */
export interface OpenAiModel {
  /** The catalogue name, which chat completions take as `model`. */
  id: string;
  object: 'model';
  /** When it joined the catalogue, in epoch seconds. */
  created: number;
  /** Its provider. */
  owned_by: string;
}

export interface OpenAiModelList {
  object: 'list';
  data: OpenAiModel[];
}

/** The enabled models of the catalogue, by name, as OpenAI clients list models (`GET /api/ai/models`). */
export async function listEnabledModels(ctx: RequestContext): Promise<OpenAiModelList> {
  const models = await ctx.em.find(ModelCatalogEntry, { enabled: true }, { orderBy: { name: 'asc' } });
  return {
    object: 'list',
    data: models.map((model) => ({ id: model.name, object: 'model', created: Math.floor(model.createdOn.getTime() / 1000), owned_by: model.provider })),
  };
}
