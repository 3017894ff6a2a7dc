/**
 * ListqlModule: engines created once from the app's MikroORM (as `@mikro-orm/nestjs` provides it) and injected
 * into controllers by name.
 */
import { MikroORM } from '@mikro-orm/core';
import { getMikroORMToken } from '@mikro-orm/nestjs';
import { type DynamicModule, Inject, Module, type Provider } from '@nestjs/common';

/** One engine to provide: its name, and how to build it from the ORM. */
export interface EngineDefinition {
  /** The name `@InjectEngine(name)` asks for. */
  readonly name: string;
  /** Build the engine, typically `(orm) => createEngine(orm, { policy })`. Called once, at start-up. */
  readonly create: (orm: MikroORM) => unknown;
  /** The `contextName` of the MikroOrmModule to use when the app has several databases. */
  readonly contextName?: string;
}

/** Return the injection token of the engine named `name`. */
export function getEngineToken(name: string): string {
  return `listql:engine:${name}`;
}

/**
 * Inject the engine named `name`, as provided by `ListqlModule.forFeature`.
 *
 * @example constructor(@InjectEngine('books') private readonly books: Engine) {}
 */
export function InjectEngine(name: string): PropertyDecorator & ParameterDecorator {
  return Inject(getEngineToken(name));
}

/** The Nest module that provides listql engines. */
// biome-ignore lint/complexity/noStaticOnlyClass: Nest identifies a module by its class.
export class ListqlModule {
  /**
   * Provide each engine under its name to the importing module, built from the MikroORM instance that
   * `MikroOrmModule.forRoot` registered.
   *
   * @example imports: [ListqlModule.forFeature([{ name: 'books', create: (orm) => createEngine(orm, { policy }) }])]
   */
  static forFeature(engines: readonly EngineDefinition[]): DynamicModule {
    const providers = engines.map(
      (engine): Provider => ({
        provide: getEngineToken(engine.name),
        useFactory: (orm: MikroORM) => engine.create(orm),
        inject: [engine.contextName === undefined ? MikroORM : getMikroORMToken(engine.contextName)],
      }),
    );
    return { module: ListqlModule, providers, exports: engines.map((engine) => getEngineToken(engine.name)) };
  }
}

// Without the decorator syntax: Node strips types and runs no decorator transform.
Module({})(ListqlModule);
