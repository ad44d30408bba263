import { Assistant, DataDefinition, DataForm, DataStore, DocumentFamily, DocumentStatus, DocumentStore, KnowledgeSet, LinkedDelta } from '../../entities';
import { rulesOf, type PlatformModule } from '../../engine/module';
import { scopedSlugRules } from '../../engine/slugs';
import { batchUpdate } from './batch-update';
import { contentStoreRules, documentFamilyRules } from './content-stores';
import { clearDocumentStatus, lockDocumentFamily, setDocumentStatus, unlockDocumentFamily } from './document-families';
import { knowledgeSetRules } from './knowledge-sets';
import { linkedDeltaRules } from './linked-deltas';
import { assistantRules, dataFormRules } from './processing';

/** Document and data stores, document families and their content, statuses, linked deltas, and what processes them. */
export const documentsModule: PlatformModule = {
  name: 'documents',
  rules: [
    rulesOf(DataDefinition, scopedSlugRules({ entity: DataDefinition, source: 'name', scopeField: 'organizationId', fallback: 'data-definition' })),
    rulesOf(DocumentStatus, scopedSlugRules({ entity: DocumentStatus, source: 'status', scopeField: 'projectId', fallback: 'status' })),
    rulesOf(DocumentStore, contentStoreRules(DocumentStore, 'document-store')),
    rulesOf(DataStore, contentStoreRules(DataStore, 'data-store')),
    rulesOf(DocumentFamily, documentFamilyRules),
    rulesOf(Assistant, assistantRules),
    rulesOf(DataForm, dataFormRules),
    rulesOf(KnowledgeSet, knowledgeSetRules),
    rulesOf(LinkedDelta, linkedDeltaRules),
  ],
  operations: {
    setDocumentStatus: (ctx, id, input) => setDocumentStatus(ctx, id!, input),
    clearDocumentStatus: (ctx, id) => clearDocumentStatus(ctx, id!),
    lockDocumentFamily: (ctx, id) => lockDocumentFamily(ctx, id!),
    unlockDocumentFamily: (ctx, id) => unlockDocumentFamily(ctx, id!),
    batchUpdate: (ctx, _id, input) => batchUpdate(ctx, input),
  },
};
