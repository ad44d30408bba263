import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import type { GraphqlContext } from './context';

const ignore = () => undefined;

/**
 * Every root field of a query or a mutation first waits its turn among the document's root fields (as
 * many at once as the request's connections: see engine/request-budget.ts), then confirms the caller's
 * access (engine/context.ts: `confirmAccess`): a change of access that committed while the document ran
 * (a removal from a team, a revoked key ...) holds for the root fields that start after it, also those
 * that waited. Root fields settle in the document's order, whichever finishes first, so that the errors
 * of several are reported in that order every time.
 */
export function confirmAccessAtRootFields(schema: GraphQLSchema): void {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = async (source, args, context: GraphqlContext, info) => {
        const { ctx } = context;
        if (!ctx) return resolve(source, args, context, info);
        const answer = ctx.budget.rootField(async () => {
          await ctx.confirmAccess();
          return resolve(source, args, context, info);
        });
        // Handled now: it is awaited only once the root fields before it have settled.
        answer.catch(ignore);
        const settled = (context.rootsSettled ?? Promise.resolve()).then(() => answer);
        context.rootsSettled = settled.then(ignore, ignore);
        return settled;
      };
    }
  }
}
