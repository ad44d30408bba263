import type { KnowledgeSet } from '../entities/knowledge-set';
import { recordEvent } from './platform-events';
import type { ResourceRules } from './resource-rules';

/** A change to a knowledge set of a project is a `knowledge_set_updated` event of that project (triggers listen to it). */
export const knowledgeSetRules: ResourceRules<KnowledgeSet> = {
  async afterUpdate(tx, knowledgeSet) {
    if (knowledgeSet.projectId) await recordEvent(tx, knowledgeSet.projectId, 'knowledge_set_updated', { knowledgeSetId: knowledgeSet.id });
  },
};
