import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { DocumentStatus } from './document-status';
import { DocumentStore } from './document-store';

const OBJECT = { type: 'object', additionalProperties: true };

/** A document of a document store, with its versions (content objects); its organization is the store's. */
@ObjectType({ simpleResolvers: true, description: "A document of a document store, with its versions (content objects); its organization is the store's" })
@Entity({ tableName: 'document_family' })
export class DocumentFamily extends SoftDeletableEntity {
  @Attr.reference(() => DocumentStore, {
    description: 'The document store the document family belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'documentFamilies',
    onDelete: 'cascade',
  })
  documentStoreId!: string;

  @Attr.string({ writable: 'never', description: '<organization slug>/<store slug>, set on create' })
  storeRef!: string;

  @Attr.string({ description: 'Path of the document in its store, or null', nullable: true, searchable: true })
  path?: string | null;

  @Attr.string({ description: 'Path the document had where it came from, or null', nullable: true })
  originalPath?: string | null;

  @Attr.string({ description: 'Summary of the document, or null', nullable: true })
  summary?: string | null;

  @Attr.int({ description: 'Size of the document, or null', nullable: true })
  size?: number | null;

  @Attr.boolean({ writable: 'never', description: 'Changed only by the lock and unlock operations' })
  locked!: boolean;

  @Attr.dateTime({ description: 'When the document was locked; set by the lock operation, null when unlocked', nullable: true, writable: 'never' })
  lockedAt?: Date | null;

  @Attr.string({ description: 'Id of the user who locked the document; set by the lock operation, null when unlocked', nullable: true, writable: 'never' })
  lockedById?: string | null;

  @Attr.boolean({ description: 'Whether the document waits for processing' })
  pendingProcessing!: boolean;

  @Attr.stringArray({ description: 'Names of the mixins the document carries' })
  mixins!: string[];

  @Attr.json({ description: 'Metadata of the document, as free JSON', default: {}, schema: OBJECT })
  metadata!: Record<string, unknown>;

  @Attr.json({ description: 'Where each metadata value came from, as free JSON', default: {}, schema: OBJECT })
  metadataSource!: Record<string, unknown>;

  @Attr.dateTime({ description: 'When the document was created at its source, or null', nullable: true })
  created?: Date | null;

  @Attr.dateTime({ description: 'When the document was last modified at its source, or null', nullable: true })
  modified?: Date | null;

  @Attr.reference(() => DocumentStatus, {
    nullable: true,
    embed: true,
    onDelete: 'set null',
    description: "A status of a project of the family's organization; a body may also send documentStatus: {id}",
  })
  documentStatusId?: string | null;

  @Attr.json({
    description: 'Validation results, each with taxonPath, taxonomyRef and validation',
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
    description: 'Where the document is to be processed: instances of {type, ref, contentObjectId, documentFamilyId, labelsToApply, taxonomyRefs, actor}',
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

  @Attr.json({ default: {}, writable: 'never', schema: OBJECT, description: 'Statistics of the document (recentExecutions ...); kept by the server' })
  statistics!: Record<string, unknown>;

  @Attr.json({ description: 'Labels applied to the document', default: [], schema: { type: 'array', items: OBJECT } })
  labels!: Record<string, unknown>[];

  @Attr.json({ description: 'Features of the document', default: [], schema: { type: 'array', items: OBJECT } })
  features!: Record<string, unknown>[];
}
