import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { SoftDeletableEntity } from './base';
import { DocumentFamily } from './document-family';

const OBJECT = { type: 'object', additionalProperties: true };

/** One version or rendition of a document family's content; its organization is the family's store's. */
@ObjectType({ simpleResolvers: true, description: "One version or rendition of a document family's content; its organization is the family's store's" })
@Entity({ tableName: 'content_object' })
export class ContentObject extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the content object, or null', nullable: true, searchable: true })
  name?: string | null;

  @Attr.reference(() => DocumentFamily, {
    description: 'The document family the content object belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'contentObjects',
    embedInverse: 'contentObjects',
    onDelete: 'cascade',
  })
  documentFamilyId!: string;

  @Attr.string({ description: 'Version of the document this content belongs to, or null', nullable: true })
  documentVersion?: string | null;

  @Attr.string({ description: 'Reference of the store holding the content, or null', nullable: true })
  storeRef?: string | null;

  @Attr.string({ description: 'Summary of the content, or null', nullable: true })
  summary?: string | null;

  @Attr.string({ description: 'How this content was produced from another (free text), or null', nullable: true })
  docTransitionType?: string | null;

  @Attr.string({ description: 'Id of the content object this one was produced from, or null', nullable: true })
  sourceContentObjectId?: string | null;

  @Attr.int({ description: 'Position of this content object within its document family' })
  index!: number;

  @Attr.int({ description: 'Kind of content (a number), or null', nullable: true })
  contentType?: number | null;

  @Attr.int({ description: 'Size of the content, or null', nullable: true })
  size?: number | null;

  @Attr.dateTime({ description: 'When the content was created at its source, or null', nullable: true })
  created?: Date | null;

  @Attr.dateTime({ description: 'When the content was last modified at its source, or null', nullable: true })
  modified?: Date | null;

  @Attr.stringArray({ description: 'Names of the mixins the content carries' })
  mixins!: string[];

  @Attr.json({ description: 'Metadata of the content object, as free JSON', default: {}, schema: OBJECT })
  metadata!: Record<string, unknown>;

  @Attr.json({ description: 'Metadata of the content itself, as free JSON', default: {}, schema: OBJECT })
  contentMetadata!: Record<string, unknown>;

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
    description: 'Where the content came from: checksum, connector, original file name and path, MIME type, headers and lineage ids',
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
