import { AgentSession, Project, ProjectResource, ServiceBridge } from '../../entities/index';
import { ForbiddenError } from '../../errors/api-error';
import type { AgentServiceBridgeCall, AgentServiceBridgeList } from '../../model/agent-bridge-tools';
import { isUuid } from '../../model/uuid';
import { endpointsOf } from './bridge-endpoints';
import type { RequestContext } from '../../engine/context';
import { callBridgeForResult } from './service-bridges';

/** How a project resource names a bound service bridge. */
const SERVICE_BRIDGE_RESOURCE = 'SERVICE_BRIDGE';

/**
 * `GET /api/agent-sessions/{id}/tools/list_service_bridges`: the bridges the session may call, those
 * with `agentCallable` bound to its project (a project resource of type SERVICE_BRIDGE).
 */
export async function listServiceBridges(ctx: RequestContext, sessionId: string): Promise<AgentServiceBridgeList> {
  const bridges = await callableBridges(ctx, sessionId);
  return { bridges: bridges.map((b) => ({ id: b.id, slug: b.slug, name: b.name, endpoints: endpointsOf(b).map((e) => e.name) })) };
}

/**
 * `POST /api/agent-sessions/{id}/tools/call_service_bridge` with `{bridge, endpoint_name, query?, body?}`:
 * one of the session's callable bridges (by id or slug; any other is 403) called as the proxy calls it,
 * its secrets filled in server-side; the answer as a value, the body cut at 256 KB.
 */
export async function callServiceBridge(ctx: RequestContext, sessionId: string, input: Record<string, unknown>): Promise<AgentServiceBridgeCall> {
  const ref = String(input.bridge).trim().toLowerCase();
  const bridge = (await callableBridges(ctx, sessionId)).find((b) => b.id === ref || b.slug === ref);
  if (!bridge)
    throw new ForbiddenError(
      `service bridge ${String(input.bridge)} is not callable by this agent session: it must be agentCallable and bound to the session's project`,
    );
  return callBridgeForResult(ctx, bridge, {
    endpointName: String(input.endpoint_name),
    query: input.query as Record<string, unknown> | undefined,
    body: input.body,
  });
}

/**
 * The session (read as GET /api/agent-sessions/{id} reads it: 404, 403 alike), then the live
 * agentCallable bridges of its project's organization bound to its project. A session without a
 * project may call none: 403.
 */
async function callableBridges(ctx: RequestContext, sessionId: string): Promise<ServiceBridge[]> {
  const session = await ctx.services.forEntity(AgentSession)!.get(ctx, sessionId);
  if (!session.projectId) throw new ForbiddenError(`agent session ${session.id} has no project: it may call no service bridge`);
  const project = await ctx.em.findOneOrFail(Project, { id: session.projectId });
  const bound = await ctx.em.find(ProjectResource, { projectId: project.id, resourceType: SERVICE_BRIDGE_RESOURCE });
  const ids = bound.map((r) => r.resourceId.toLowerCase()).filter(isUuid);
  if (ids.length === 0) return [];
  return ctx.em.find(
    ServiceBridge,
    { id: { $in: ids }, organizationId: project.organizationId, agentCallable: true, deleted: false },
    { orderBy: { name: 'asc' } },
  );
}
