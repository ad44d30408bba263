import { Field, ObjectType } from 'type-graphql';
import { DateTimeScalar } from './scalars';

/**
 * The answer of `mintAnalyticsEmbedToken` (docs/operations.md), declared once: this
 * class is the GraphQL type, and the OpenAPI component of the same name is read from it.
 */
@ObjectType('AnalyticsEmbedToken', { description: 'A short-lived RS256 JWT for the analytics service, and what it grants' })
export class AnalyticsEmbedToken {
  @Field(() => String, { description: 'The signed JWT (header kid names the signing key)' })
  token!: string;

  @Field(() => DateTimeScalar, { description: 'When the token expires (its exp claim), at most 15 minutes from now' })
  expiresAt!: Date;

  @Field(() => [String], { description: 'The models (datasets) the token grants' })
  models!: string[];

  @Field(() => [String], { description: "Slugs of the organizations the token's rows are filtered to" })
  orgs!: string[];
}
