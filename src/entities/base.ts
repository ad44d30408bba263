import { ObjectType } from 'type-graphql';
import { Attr } from '../model/fields';

/** Fields every persisted resource carries; all of them are owned by the server. */
@ObjectType({ simpleResolvers: true })
export abstract class BaseEntity {
  @Attr.primaryKey()
  id!: string;

  @Attr.uuid({ writable: 'never', unique: true, description: 'Secondary UUID identifier of the row; set by the server' })
  uuid!: string;

  @Attr.dateTime({ description: 'When the row was created; set by the server', writable: 'never' })
  createdOn!: Date;

  @Attr.dateTime({ description: 'When the row was last changed; set by the server', writable: 'never' })
  updatedOn!: Date;

  @Attr.int({ writable: 'never', description: 'Optimistic-locking version: 0 on create, +1 on every update that changes something' })
  changeSequence!: number;
}

/** Resources that are hidden, not removed, when deleted. */
@ObjectType({ simpleResolvers: true })
export abstract class SoftDeletableEntity extends BaseEntity {
  @Attr.boolean({ description: 'Whether the row is deleted; set by the delete operation', writable: 'never' })
  deleted!: boolean;

  @Attr.dateTime({ description: 'When the row was deleted; null until then', writable: 'never', nullable: true })
  deletedDate?: Date | null;

  @Attr.string({ description: 'Id of the user who deleted the row; null until then', writable: 'never', nullable: true })
  deleteUserId?: string | null;

  @Attr.string({ description: 'Email of the user who deleted the row; null until then', writable: 'never', nullable: true })
  deleteUserEmail?: string | null;
}
