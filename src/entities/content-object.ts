import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { DocumentFamily } from './document-family';

const OBJECT = { type: 'object', additionalProperties: true };

/** One version or rendition of a document family's content; its organization is the family's store's. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'content_object' })
export class ContentObject extends SoftDeletableEntity {
  @Attr.string({ nullable: true, searchable: true })
  name?: string | null;

  @Attr.reference(() => DocumentFamily, {
    required: true,
    writable: 'create',
    inverse: 'contentObjects',
    embedInverse: 'contentObjects',
    onDelete: 'cascade',
  })
  documentFamilyId!: string;

  @Attr.string({ nullable: true })
  documentVersion?: string | null;

  @Attr.string({ nullable: true })
  storeRef?: string | null;

  @Attr.string({ nullable: true })
  summary?: string | null;

  @Attr.string({ nullable: true })
  docTransitionType?: string | null;

  @Attr.string({ nullable: true })
  sourceContentObjectId?: string | null;

  @Attr.int()
  index!: number;

  @Attr.int({ nullable: true })
  contentType?: number | null;

  @Attr.int({ nullable: true })
  size?: number | null;

  @Attr.dateTime({ nullable: true })
  created?: Date | null;

  @Attr.dateTime({ nullable: true })
  modified?: Date | null;

  @Attr.stringArray()
  mixins!: string[];

  @Attr.json({ default: {}, schema: OBJECT })
  metadata!: Record<string, unknown>;

  @Attr.json({ default: {}, schema: OBJECT })
  contentMetadata!: Record<string, unknown>;

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
        checksum: { type: 'string' },
        cid: { type: 'string' },
        connector: { type: 'string' },
        created: { type: 'string', format: 'date-time' },
        document_family_id: { type: 'string' },
        headers: { type: 'object', additionalProperties: true },
        last_modified: { type: 'string', format: 'date-time' },
        lineage_document_uuid: { type: 'string' },
        mime_type: { type: 'string' },
        original_filename: { type: 'string' },
        original_path: { type: 'string' },
        source_document_uuid: { type: 'string' },
      },
    },
  })
  source!: Record<string, unknown>;
}
