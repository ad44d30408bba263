import { DEFAULT_MAX_API_KEYS_PER_USER } from '../../config/config';
import { AccessToken, Organization, OrganizationSecret, PlatformUser, Team, TeamMember } from '../../entities';
import { rulesOf, type PlatformModule } from '../../engine/module';
import { accessTokenRules } from './access-tokens';
import { organizationSecretRules } from './organization-secrets';
import { organizationRules } from './organizations';
import { teamMemberRules, teamRules } from './owners';
import type { SecretBox } from './secret-box';
import { userRules } from './users';

declare module '../../engine/services' {
  interface ModuleDependencies {
    /** Seals organization secrets; without it (tools that never write one) a secret cannot be stored. */
    secrets?: SecretBox;
    /** MAX_API_KEYS_PER_USER: live API keys one user may hold. */
    maxApiKeysPerUser: number;
  }
}

/** Organizations, their secrets, users, access tokens, teams and their members: who may do what where. */
export const accessModule: PlatformModule = {
  name: 'access',
  rules: [
    rulesOf(Organization, organizationRules),
    rulesOf(OrganizationSecret, organizationSecretRules),
    rulesOf(PlatformUser, userRules),
    rulesOf(AccessToken, accessTokenRules),
    rulesOf(Team, teamRules),
    rulesOf(TeamMember, teamMemberRules),
  ],
  defaults: { maxApiKeysPerUser: () => DEFAULT_MAX_API_KEYS_PER_USER },
};
