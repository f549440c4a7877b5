import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A blog entry, the textbook way: a TypeORM entity of its own table, made by `synchronize`. */
@Entity('textbook_blogs')
export class Blog {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ length: 200 })
  title!: string;

  @Column('text')
  content!: string;

  @Column({ length: 100 })
  author!: string;

  @Column({ name: 'owner_sub' })
  ownerSub!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
