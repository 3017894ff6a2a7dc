/** The GraphQL type names of one schema, each claimed once, with what claimed it (for a clear clash message). */
export interface TypeNames {
  /** Claim `name` for `origin` (`the endpoint books`, `Book.author`); a name taken already is a TypeError. */
  claim(name: string, origin: string): string;
}

/** Names graphql-js or graphqlSchema() itself defines. */
const RESERVED = ['Query', 'PageInfo', 'String', 'Int', 'Float', 'Boolean', 'ID'];

/** Start the type names of a schema, with graphqlSchema()'s own (`Node` with `relay`) and the built-in scalars taken. */
export function typeNames(relay: boolean): TypeNames {
  const reserved = relay ? [...RESERVED, 'Node'] : RESERVED;
  const taken = new Map<string, string>(reserved.map((name) => [name, 'graphqlSchema itself']));
  return {
    claim(name, origin) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name.startsWith('__'))
        throw new TypeError(`graphqlSchema: ${origin}: '${name}' is not a GraphQL type name`);
      const holder = taken.get(name);
      if (holder !== undefined)
        throw new TypeError(
          `graphqlSchema: the type name ${name} is wanted by ${origin} and by ${holder}; give the endpoint another type (nested types are named <Type><Relation>)`,
        );
      taken.set(name, origin);
      return name;
    },
  };
}

/** The name of a selectable relation's node type: its parent's, then the relation's with a capital (`BookAuthor`). */
export function nestedTypeName(parent: string, relation: string): string {
  return parent + relation.charAt(0).toUpperCase() + relation.slice(1);
}
