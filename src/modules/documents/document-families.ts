import { DocumentFamily } from '../../entities/document-family';
import { DocumentStatus } from '../../entities/document-status';
import { BadRequestError } from '../../errors/api-error';
import type { RequestContext } from '../../engine/context';
import { lockOf, unlockOf } from '../../engine/locks';
import { recordEvent } from '../workflow/platform-events';
import type { ResourceService } from '../../engine/resource-service';

/**
 * Document families beyond storage (docs/operations.md): their status set and cleared
 * on its own path, lock and unlock, and the `document_locked` event a lock leaves behind.
 */

function families(ctx: RequestContext): ResourceService<DocumentFamily> {
  return ctx.services.forEntity(DocumentFamily)!;
}

/**
 * PUT /api/document-families/{id}/status with a DocumentStatus (only its `id` is read) or, on GraphQL,
 * `documentStatusId`: a status of a project of the family's organization.
 */
export async function setDocumentStatus(ctx: RequestContext, id: string, input: Record<string, unknown>): Promise<DocumentFamily> {
  const field = typeof input.documentStatusId === 'string' ? 'documentStatusId' : 'id';
  const statusId = input[field];
  if (typeof statusId !== 'string') throw BadRequestError.forField('id', "is required: the DocumentStatus's id (documentStatusId on GraphQL)");
  return families(ctx).modify(ctx, id, async (tx, family) => {
    await assertStatusOfFamilyOrganization(tx, field, statusId, family);
    return { documentStatusId: statusId.toLowerCase() };
  });
}

/** DELETE /api/document-families/{id}/status: the family has no status afterwards (also when it had none). */
export function clearDocumentStatus(ctx: RequestContext, id: string): Promise<DocumentFamily> {
  return families(ctx).modify(ctx, id, async () => ({ documentStatusId: null }));
}

/**
 * The status must be one the caller may see (403 otherwise), exist (400), and belong to a project of
 * the family's organization (400): checked here, rather than left to the reference check, so that
 * the refusal names the field the caller sent.
 */
async function assertStatusOfFamilyOrganization(tx: RequestContext, field: string, statusId: string, family: DocumentFamily): Promise<void> {
  const status = await tx.services.forEntity(DocumentStatus)!.getNamedBy(tx, field, statusId);
  const [row] = await tx.em
    .getConnection()
    .execute<{ same: boolean }[]>(
      `select (select organization_id from project where id = ?) = (select organization_id from document_store where id = ?) as same`,
      [status.projectId, family.documentStoreId],
      'all',
      tx.em.getTransactionContext(),
    );
  if (!row?.same) throw BadRequestError.forField(field, `DocumentStatus ${statusId} is not a status of a project of the family's organization`);
}

/** PUT /api/document-families/{id}/lock: 409 when already locked; `document_locked` is recorded with the lock. */
export function lockDocumentFamily(ctx: RequestContext, id: string): Promise<DocumentFamily> {
  return families(ctx).modify(ctx, id, async (tx, family) => {
    const changes = lockOf(tx, family, 'document family');
    const { organizationId, projectIds } = await placeOfFamily(tx, family);
    for (const projectId of projectIds.length ? projectIds : [null]) {
      await recordEvent(tx, { organizationId, projectId }, 'document_locked', { documentFamilyId: family.id });
    }
    return changes;
  });
}

/** PUT /api/document-families/{id}/unlock: 409 when not locked. */
export function unlockDocumentFamily(ctx: RequestContext, id: string): Promise<DocumentFamily> {
  return families(ctx).modify(ctx, id, async (_tx, family) => unlockOf(family, 'document family'));
}

/**
 * The family's organization (its store's) and the live projects it takes part in: the project of its
 * document status and the projects of the live tasks linked to it (task-document-families). A family
 * belongs to a store of an organization, not to a project: each of these projects gets its own event
 * (the triggers that hear it are the project's), and a family in none gets one of no project.
 */
async function placeOfFamily(tx: RequestContext, family: DocumentFamily): Promise<{ organizationId: string; projectIds: string[] }> {
  const [row] = await tx.em.getConnection().execute<{ organization_id: string; project_ids: string[] }[]>(
    `select d.organization_id,
            array(select p.id::text from project p
                   where not p.deleted
                     and (p.id = (select s.project_id from document_status s where s.id = ?)
                          or exists (select 1 from task_document_family l join task t on t.id = l.task_id
                                      where l.document_family_id = ? and t.project_id = p.id and not t.deleted))
                   order by p.id) as project_ids
       from document_store d where d.id = ?`,
    [family.documentStatusId ?? null, family.id, family.documentStoreId],
    'all',
    tx.em.getTransactionContext(),
  );
  return { organizationId: row.organization_id, projectIds: row.project_ids };
}
