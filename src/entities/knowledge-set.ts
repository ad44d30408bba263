import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { Organization } from './organization';
import { Project } from './project';

/** A curated body of knowledge of an organization (items, their clauses, snapshots), optionally tied to a project. */
@ObjectType({
  simpleResolvers: true,
  description: 'A curated body of knowledge of an organization (items, their clauses, snapshots), optionally tied to a project',
})
@Entity({ tableName: 'knowledge_set' })
export class KnowledgeSet extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the knowledge set', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'URL-safe identifier: lowercase letters, digits and dashes, lowercased on write' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the knowledge set', searchable: true })
  description!: string;

  @Attr.string({ description: 'Kind of knowledge set (free text)' })
  setType!: string;

  @Attr.string({ description: 'State of the knowledge set (free text)' })
  status!: string;

  @Attr.boolean({ description: 'Whether the knowledge set is active (default true)', default: true })
  active!: boolean;

  @Attr.reference(() => Organization, {
    description: 'The organization the knowledge set belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'knowledgeSets',
    onDelete: 'cascade',
  })
  organizationId!: string;

  @Attr.reference(() => Project, {
    description: 'The project the knowledge set is tied to (its id), or null; set on create, an update leaves it unchanged',
    nullable: true,
    writable: 'create',
    onDelete: 'set null',
  })
  projectId?: string | null;
}
