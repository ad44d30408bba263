import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';

/** A model the platform offers (platform-wide: administrators write, everyone authenticated reads). Wire names as written. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'model_catalog_entry' })
export class ModelCatalogEntry extends BaseEntity {
  @Attr.string({ required: true, unique: true, minLength: 1, maxLength: 255, searchable: true, description: 'Unique on the platform' })
  name!: string;

  @Attr.string({ maxLength: 255, searchable: true, description: 'The aiGateway provider (CONFIG_FILE) chat completions with this model go to' })
  provider!: string;

  @Attr.string({ maxLength: 255, description: "The provider's own model id, sent upstream in its place; blank or omitted: the name" })
  upstreamModel!: string;

  @Attr.boolean()
  supports_tools!: boolean;

  @Attr.boolean()
  supports_vision!: boolean;

  @Attr.boolean()
  supports_documents!: boolean;

  @Attr.boolean()
  reasoning_output!: boolean;

  @Attr.boolean({ default: true })
  enabled!: boolean;
}
