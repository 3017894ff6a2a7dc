/**
 * A decorated entity class, for the type fixtures only (`npm run typecheck`; never run: Node's type stripping
 * cannot run decorators). The decorators are local stand-ins with the ES decorator signature, because
 * `@mikro-orm/decorators` is not a dependency; the listql types read only the class's property types.
 */
import type { Ref } from '@mikro-orm/core';
import { User } from './entities.ts';

function Entity() {
  return <C extends abstract new (...args: never[]) => object>(target: C, _context: ClassDecoratorContext<C>) => target;
}

function Property(_options: { type?: string; primary?: boolean; hidden?: boolean } = {}) {
  return (_target: undefined, _context: ClassFieldDecoratorContext) => undefined;
}

function ManyToOne(_entity: () => object, _options: { ref?: boolean } = {}) {
  return (_target: undefined, _context: ClassFieldDecoratorContext) => undefined;
}

@Entity()
export class Invoice {
  @Property({ type: 'integer', primary: true })
  id!: number;

  @Property({ type: 'decimal' })
  total!: string;

  @Property({ type: 'boolean' })
  paid!: boolean;

  @Property({ type: 'datetime' })
  issuedAt!: Date;

  @ManyToOne(() => User, { ref: true })
  customer!: Ref<User>;
}
