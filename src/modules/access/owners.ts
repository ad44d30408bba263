import { Team, type Team as TeamRow } from '../../entities/team';
import { TeamMember, type TeamMember as TeamMemberRow } from '../../entities/team-member';
import { ConflictError } from '../../errors/api-error';
import type { RequestContext } from '../../engine/context';
import type { ResourceRules } from '../../engine/resource-rules';
import { scopedSlugRules } from '../../engine/slugs';
import { OWNERS_TEAM_SLUG } from '../../engine/tenancy';

/**
 * An organization keeps its `owners` team and at least one owner: otherwise nobody but a platform
 * administrator could manage it any more.
 */
const teamSlugs = scopedSlugRules<TeamRow>({ entity: Team, source: 'name', scopeField: 'organizationId', fallback: 'team' });

export const teamRules: ResourceRules<TeamRow> = {
  ...teamSlugs,
  async beforeUpdate(ctx, team, changes, sent) {
    if (team.slug === OWNERS_TEAM_SLUG && changes.slug !== undefined && changes.slug !== OWNERS_TEAM_SLUG) {
      throw new ConflictError(`the ${OWNERS_TEAM_SLUG} team keeps its slug: it decides who owns the organization`);
    }
    await teamSlugs.beforeUpdate?.(ctx, team, changes, sent);
  },
  async beforeDelete(_ctx, team) {
    if (team.slug === OWNERS_TEAM_SLUG) throw new ConflictError(`the ${OWNERS_TEAM_SLUG} team cannot be deleted`);
  },
};

export const teamMemberRules: ResourceRules<TeamMemberRow> = {
  async beforeUpdate(ctx, member, changes) {
    const leaves = (changes.teamId !== undefined && changes.teamId !== member.teamId) || (changes.userId !== undefined && changes.userId !== member.userId);
    if (leaves) await assertNotLastOwner(ctx, member);
  },
  async beforeDelete(ctx, member) {
    await assertNotLastOwner(ctx, member);
  },
};

async function assertNotLastOwner(ctx: RequestContext, member: TeamMemberRow): Promise<void> {
  if (!member.teamId) return;
  const team = await ctx.em.findOne(Team, { id: member.teamId });
  if (team?.slug !== OWNERS_TEAM_SLUG) return;
  const owners = await ctx.em.count(TeamMember, { teamId: member.teamId });
  if (owners <= 1) throw new ConflictError('the last owner of an organization cannot leave the owners team');
}
