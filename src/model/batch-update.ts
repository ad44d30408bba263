import { Field, ID, Int, ObjectType } from 'type-graphql';

/**
 * The answer of `batchUpdate` (docs/operations.md), declared once: these classes are the
 * GraphQL types, and the OpenAPI components of the same names are read from them (openapi/object-type-schema.ts).
 */

/** Operations one batch may carry. */
export const BATCH_UPDATE_LIMIT = 1000;

@ObjectType('BatchUpdateContentObject', {
  description: 'The content object an operation named, with its change sequence after the write (the current one on failure)',
})
export class BatchUpdateContentObject {
  @Field(() => ID, { description: "The content object's id" })
  id!: string;

  @Field(() => Int, { description: "The content object's changeSequence after the write; the current one when the operation failed" })
  changeSequence!: number;
}

@ObjectType('BatchUpdateOperationResult', { description: 'What one operation of a batch did, as the single PUT would have answered' })
export class BatchUpdateOperationResult {
  @Field(() => Int, { description: 'Position of the operation in the request, from 0' })
  index!: number;

  @Field(() => Boolean, { description: 'Whether the operation succeeded' })
  ok!: boolean;

  @Field(() => Int, { description: 'The status the single PUT /api/content-objects/{id} would have answered' })
  status!: number;

  @Field(() => String, { nullable: true, description: 'Reason phrase of the status (Conflict, Not Found, Bad Request, Forbidden); absent on success' })
  error?: string;

  @Field(() => String, { nullable: true, description: 'Why it failed: the message the single PUT would have answered; absent on success' })
  reason?: string;

  @Field(() => BatchUpdateContentObject, { nullable: true, description: 'null when the object does not exist or the caller may not see it' })
  contentObject!: BatchUpdateContentObject | null;
}

@ObjectType('BatchUpdateResult', { description: 'One result per operation, in request order' })
export class BatchUpdateResult {
  @Field(() => [BatchUpdateOperationResult], { description: 'One result per operation, in request order' })
  results!: BatchUpdateOperationResult[];
}
