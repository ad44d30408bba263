import { KnowledgeSet } from '../../entities/knowledge-set';
import { recordEvent } from '../workflow/platform-events';
import { combineRules, type ResourceRules } from '../../engine/resource-rules';
import { scopedSlugRules } from '../../engine/slugs';

/**
 * A knowledge set's slug is unique within its organization, derived from the name when the body sends
 * none (else it would be stored empty, which its own pattern refuses when the row is sent back). A
 * change to a knowledge set of a project is a `knowledge_set_updated` event of that project (triggers
 * listen to it).
 */
export const knowledgeSetRules: ResourceRules<KnowledgeSet> = combineRules<KnowledgeSet>(
  scopedSlugRules({ entity: KnowledgeSet, source: 'name', scopeField: 'organizationId', fallback: 'knowledge-set' }),
  {
    async afterUpdate(tx, knowledgeSet) {
      if (knowledgeSet.projectId) await recordEvent(tx, knowledgeSet.projectId, 'knowledge_set_updated', { knowledgeSetId: knowledgeSet.id });
    },
  },
);
