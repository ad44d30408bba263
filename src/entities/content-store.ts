import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';

/** The three keys of a store's `contentMetadata`, also served flattened at the top level. */
export interface ContentMetadata {
  indexed: boolean;
  documentProperties: Record<string, unknown>;
  labelExpressions: string[];
}

export const CONTENT_METADATA_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    indexed: { type: 'boolean' },
    documentProperties: { type: 'object', additionalProperties: true },
    labelExpressions: { type: 'array', items: { type: 'string' } },
  },
};

/**
 * What document stores and data stores share: an organization's named store with its content metadata,
 * kept both as the `contentMetadata` object and as the flat `indexed`, `documentProperties` and
 * `labelExpressions` (modules/documents/content-stores.ts keeps them in step). Each subclass declares its own
 * `organizationId`, whose inverse collection differs.
 */
@ObjectType({ simpleResolvers: true })
export abstract class ContentStoreEntity extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the store', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the store', searchable: true })
  description!: string;

  @Attr.string({ description: 'What the store is for (free text), or null', nullable: true })
  storePurpose?: string | null;

  @Attr.json({
    default: { indexed: false, documentProperties: {}, labelExpressions: [] },
    schema: CONTENT_METADATA_SCHEMA,
    description: 'The same values as the flat indexed, documentProperties and labelExpressions; a body may send either form (flat keys win)',
  })
  contentMetadata!: ContentMetadata;

  @Attr.boolean({ description: 'Whether the store is indexed; the same value as contentMetadata.indexed' })
  indexed!: boolean;

  @Attr.json({
    default: {},
    schema: { type: 'object', additionalProperties: true },
    description: 'Document properties of the store; the same value as contentMetadata.documentProperties',
  })
  documentProperties!: Record<string, unknown>;

  @Attr.stringArray({ description: 'Label expressions of the store; the same value as contentMetadata.labelExpressions' })
  labelExpressions!: string[];
}
