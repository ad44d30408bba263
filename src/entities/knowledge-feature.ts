import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Organization } from './organization';

/** A value of a feature type known to an organization. */
@ObjectType({ simpleResolvers: true, description: 'A value of a feature type known to an organization' })
@Entity({ tableName: 'knowledge_feature' })
export class KnowledgeFeature extends BaseEntity {
  @Attr.reference(() => Organization, {
    description: 'The organization the knowledge feature belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'knowledgeFeatures',
    onDelete: 'cascade',
  })
  organizationId!: string;

  @Attr.string({ description: 'Reference of the feature type this is a value of, 1-255 characters', required: true, minLength: 1, maxLength: 255 })
  featureTypeRef!: string;

  @Attr.string({ description: 'The value', searchable: true })
  value!: string;

  @Attr.json({ description: 'Further values of the feature, as free JSON', default: {}, schema: { type: 'object', additionalProperties: true } })
  properties!: Record<string, unknown>;
}
