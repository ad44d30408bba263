import { Entity, Unique } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { Attr, type JsonSchema } from '../model/fields';
import { defineShape } from '../model/json-shapes';
import { SoftDeletableEntity } from './base';
import { TaxonCardinality, TaxonMetadataValue, TaxonValuePath } from './enums';
import { Organization } from './organization';

const enumRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/**
 * One node of a taxonomy, published as the `Taxon` component: `children` holds nodes of the same shape,
 * and the enumerated fields take only their enumeration's values, at every depth.
 */
const taxon: JsonSchema = defineShape('Taxon', {
  type: 'object',
  additionalProperties: true,
  properties: {
    name: { type: 'string' },
    label: { type: 'string' },
    taxonType: { type: 'string' },
    cardinality: enumRef(TaxonCardinality.name),
    valuePath: enumRef(TaxonValuePath.name),
    metadataValue: enumRef(TaxonMetadataValue.name),
    children: { type: 'array', description: 'Taxons of the same shape', items: { $ref: '#/components/schemas/Taxon' } },
  },
});

/** A taxonomy of an organization: the tree of taxons documents are read into. */
@ObjectType({ simpleResolvers: true, description: 'A taxonomy of an organization: the tree of taxons documents are read into' })
@Entity({ tableName: 'data_definition' })
@Unique({ properties: ['organizationId', 'slug'] })
export class DataDefinition extends SoftDeletableEntity {
  @Attr.string({ description: 'Name of the data definition', required: true, minLength: 1, maxLength: 255, searchable: true })
  name!: string;

  @Attr.slug({ description: 'Unique within the organization: a colliding slug gets a numeric suffix (-1, -2, ...)' })
  slug!: string;

  @Attr.string({ description: 'Free-text description of the data definition', searchable: true })
  description!: string;

  @Attr.string({ description: 'Kind of taxonomy (free text)' })
  taxonomyType!: string;

  @Attr.boolean({ description: 'Whether the taxonomy is in use (default true)', default: true })
  enabled!: boolean;

  @Attr.json({ description: 'The taxons of the taxonomy, each possibly with children of the same shape', default: [], schema: { type: 'array', items: taxon } })
  taxons!: Record<string, unknown>[];

  @Attr.reference(() => Organization, {
    description: 'The organization the data definition belongs to (its id); set on create, an update leaves it unchanged',
    required: true,
    writable: 'create',
    inverse: 'dataDefinitions',
    onDelete: 'cascade',
  })
  organizationId!: string;
}
