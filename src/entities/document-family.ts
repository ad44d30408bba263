import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { DocumentStatus } from './document-status';
import { DocumentStore } from './document-store';

const OBJECT = { type: 'object', additionalProperties: true };

/** A document of a document store, with its versions (content objects); its organization is the store's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'document_family' })
export class DocumentFamily extends SoftDeletableEntity {
  @Attr.reference(() => DocumentStore, { required: true, writable: 'create', inverse: 'documentFamilies', onDelete: 'cascade' })
  documentStoreId!: string;

  @Attr.string({ writable: 'never', description: '<organization slug>/<store slug>, set on create' })
  storeRef!: string;

  @Attr.string({ nullable: true, searchable: true })
  path?: string | null;

  @Attr.string({ nullable: true })
  originalPath?: string | null;

  @Attr.string({ nullable: true })
  summary?: string | null;

  @Attr.int({ nullable: true })
  size?: number | null;

  @Attr.boolean({ writable: 'never', description: 'Changed only by the lock and unlock operations' })
  locked!: boolean;

  @Attr.dateTime({ nullable: true, writable: 'never' })
  lockedAt?: Date | null;

  @Attr.string({ nullable: true, writable: 'never' })
  lockedById?: string | null;

  @Attr.boolean()
  pendingProcessing!: boolean;

  @Attr.stringArray()
  mixins!: string[];

  @Attr.json({ default: {}, schema: OBJECT })
  metadata!: Record<string, unknown>;

  @Attr.json({ default: {}, schema: OBJECT })
  metadataSource!: Record<string, unknown>;

  @Attr.dateTime({ nullable: true })
  created?: Date | null;

  @Attr.dateTime({ nullable: true })
  modified?: Date | null;

  @Attr.reference(() => DocumentStatus, {
    nullable: true,
    embed: true,
    onDelete: 'set null',
    description: "A status of a project of the family's organization; a body may also send documentStatus: {id}",
  })
  documentStatusId?: string | null;

  @Attr.json({
    default: [],
    schema: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: { taxonPath: { type: 'string' }, taxonomyRef: { type: 'string' }, validation: { type: 'object', additionalProperties: true } },
      },
    },
  })
  documentTaxonValidations!: Record<string, unknown>[];

  @Attr.json({
    default: {},
    schema: {
      type: 'object',
      additionalProperties: true,
      properties: {
        instances: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: true,
            properties: {
              type: { type: 'string', description: 'For example DOCUMENT_STORE' },
              ref: { type: 'string' },
              contentObjectId: { type: 'string' },
              documentFamilyId: { type: 'string' },
              labelsToApply: { type: 'array', items: { type: 'string' } },
              taxonomyRefs: { type: 'array', items: { type: 'string' } },
              actor: { type: 'object', additionalProperties: true, properties: { actorId: { type: 'string' }, actorType: { type: 'string' } } },
            },
          },
        },
      },
    },
  })
  executionTargets!: Record<string, unknown>;

  @Attr.json({ default: {}, writable: 'never', schema: OBJECT, description: 'Kept by the server' })
  statistics!: Record<string, unknown>;

  @Attr.json({ default: [], schema: { type: 'array', items: OBJECT } })
  labels!: Record<string, unknown>[];

  @Attr.json({ default: [], schema: { type: 'array', items: OBJECT } })
  features!: Record<string, unknown>[];
}
