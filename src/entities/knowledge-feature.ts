import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';
import { Organization } from './organization';

/** A value of a feature type known to an organization. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'knowledge_feature' })
export class KnowledgeFeature extends BaseEntity {
  @Attr.reference(() => Organization, { required: true, writable: 'create', inverse: 'knowledgeFeatures', onDelete: 'cascade' })
  organizationId!: string;

  @Attr.string({ required: true, minLength: 1, maxLength: 255 })
  featureTypeRef!: string;

  @Attr.string({ searchable: true })
  value!: string;

  @Attr.json({ default: {}, schema: { type: 'object', additionalProperties: true } })
  properties!: Record<string, unknown>;
}
