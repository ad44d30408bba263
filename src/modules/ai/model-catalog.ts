import type { ModelCatalogEntry } from '../../entities/model-catalog-entry';
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
