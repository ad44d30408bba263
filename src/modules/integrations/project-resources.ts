import type { EntityClass } from '@mikro-orm/core';
import { DataStore, DocumentStore, Project, ProjectResource, ServiceBridge } from '../../entities/index';
import { BadRequestError } from '../../errors/api-error';
import type { RequestContext } from '../../engine/context';
import type { ResourceRules } from '../../engine/resource-rules';
import { isUuid } from '../../model/uuid';

/** A row a project resource may bind: every kind below belongs to one organization. */
interface OrganizationRow {
  id: string;
  organizationId: string;
}

/**
 * The kinds of resource a binding names by `resourceType`, and the collection its `resourceId` is an id
 * of. Agent tools find a project's bridges through these bindings, so a binding must never name a
 * bridge (or store) of another organization, nor one the caller cannot see. Other kinds are stored as sent.
 */
export const BOUND_KINDS: Readonly<Record<string, EntityClass<OrganizationRow>>> = {
  SERVICE_BRIDGE: ServiceBridge,
  DOCUMENT_STORE: DocumentStore,
  DATA_STORE: DataStore,
};

/**
 * The bound row must exist (400 naming resourceId), be one the caller may see (403), and belong to the
 * project's organization (400): checked on create, and on an update that changes what is bound.
 */
async function assertBindable(ctx: RequestContext, binding: Pick<ProjectResource, 'projectId' | 'resourceType' | 'resourceId'>): Promise<void> {
  const entity = BOUND_KINDS[binding.resourceType];
  if (!entity) return;
  const id = binding.resourceId;
  if (!isUuid(id)) throw BadRequestError.forField('resourceId', `no ${entity.name} with id ${id}: a ${binding.resourceType} binding names the id of one`);
  const bound = await ctx.services.forEntity(entity)!.getNamedBy(ctx, 'resourceId', id.toLowerCase());
  const project = await ctx.services.forEntity(Project)!.getNamedBy(ctx, 'projectId', binding.projectId);
  if (bound.organizationId !== project.organizationId)
    throw BadRequestError.forField('resourceId', `${entity.name} ${id} belongs to another organization than the project`);
}

/** Project resources: what a binding names is checked against the caller and the project. */
export const projectResourceRules: ResourceRules<ProjectResource> = {
  async beforeCreate(ctx, values) {
    await assertBindable(ctx, values as ProjectResource);
  },
  async beforeUpdate(ctx, binding, changes) {
    await assertBindable(ctx, { ...binding, ...changes });
  },
  updateWatches: ['resourceType', 'resourceId'],
};
