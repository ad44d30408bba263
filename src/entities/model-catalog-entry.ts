import { Entity } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';
import { BaseEntity } from './base';

/** A model the platform offers (platform-wide: administrators write, everyone authenticated reads). Wire names as written. */
@ObjectType({
  simpleResolvers: true,
  description: 'A model the platform offers through the AI gateway (platform-wide: administrators write, every authenticated caller reads)',
})
@Entity({ tableName: 'model_catalog_entry' })
export class ModelCatalogEntry extends BaseEntity {
  @Attr.string({
    required: true,
    unique: true,
    minLength: 1,
    maxLength: 255,
    searchable: true,
    description: 'Name of the model, as chat completions name it; unique on the platform',
  })
  name!: string;

  @Attr.string({ maxLength: 255, searchable: true, description: 'The aiGateway provider (CONFIG_FILE) chat completions with this model go to' })
  provider!: string;

  @Attr.string({ maxLength: 255, description: "The provider's own model id, sent upstream in its place; blank or omitted: the name" })
  upstreamModel!: string;

  @Attr.boolean({ description: 'Whether the model can call tools' })
  supports_tools!: boolean;

  @Attr.boolean({ description: 'Whether the model reads images' })
  supports_vision!: boolean;

  @Attr.boolean({ description: 'Whether the model reads documents' })
  supports_documents!: boolean;

  @Attr.boolean({ description: 'Whether answers keep the reasoning the model returns' })
  reasoning_output!: boolean;

  @Attr.boolean({ description: 'Whether the model is offered (default true)', default: true })
  enabled!: boolean;
}
