import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Organization } from './organization';
import { Project } from './project';

/** A curated body of knowledge of an organization (items, their clauses, snapshots), optionally tied to a project. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'knowledge_set' })
export class KnowledgeSet extends SoftDeletableEntity {
  @Attr.string({ required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug()
  slug!: string;

  @Attr.string({ searchable: true })
  description!: string;

  @Attr.string()
  setType!: string;

  @Attr.string()
  status!: string;

  @Attr.boolean({ default: true })
  active!: boolean;

  @Attr.reference(() => Organization, { required: true, writable: 'create', inverse: 'knowledgeSets', onDelete: 'cascade' })
  organizationId!: string;

  @Attr.reference(() => Project, { nullable: true, writable: 'create', onDelete: 'set null' })
  projectId?: string | null;
}
