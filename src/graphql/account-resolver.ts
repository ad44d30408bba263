import { Ctx, Query, Resolver } from 'type-graphql';
import { PlatformUser } from '../entities/platform-user';
import type { GraphqlContext } from './context';

/** `me`: the caller, as REST's GET /api/account/me. */
@Resolver()
export class AccountResolver {
  @Query(() => PlatformUser, { description: 'The authenticated caller' })
  me(@Ctx() { ctx }: GraphqlContext): PlatformUser {
    return ctx.user!;
  }
}
