// Render the API reference page from /openapi.json: one section per path, its parameters, responses and schemas.

const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== undefined));
  return node;
};

function resolve(doc, schema) {
  const ref = schema?.$ref;
  return ref ? doc.components.schemas[ref.split('/').pop()] : schema;
}

/** A schema as one short line: `integer, 0..100, default 20`, `string (date-time) | null`, `one of: a, b`. */
function typeOf(schema) {
  if (!schema) return '';
  if (schema.$ref) return schema.$ref.split('/').pop();
  // A nested selection's value: `integer | BooksAuthorItem | null` (the key, or the object), or a page.
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' | ');
  if (schema.allOf) return schema.allOf.map(typeOf).join(' & ');
  if (schema.enum) return `one of: ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const types = [schema.type ?? 'any'].flat();
  const base = types.map((t) => (t !== 'null' && schema.format ? `${t} (${schema.format})` : t)).join(' | ');
  const bounds = [];
  if (schema.minimum !== undefined || schema.maximum !== undefined)
    bounds.push(`${schema.minimum ?? ''}..${schema.maximum ?? ''}`);
  if (schema.maxLength !== undefined) bounds.push(`at most ${schema.maxLength} characters`);
  if (schema.default !== undefined) bounds.push(`default ${JSON.stringify(schema.default)}`);
  return [base, ...bounds].join(', ');
}

function table(headings, rows) {
  return el(
    'table',
    {},
    el('thead', {}, el('tr', {}, ...headings.map((h) => el('th', { textContent: h })))),
    el('tbody', {}, ...rows.map((cells) => el('tr', {}, ...cells.map((c) => el('td', {}, c))))),
  );
}

function schemaTable(schema) {
  const required = new Set(schema.required ?? []);
  return table(
    ['property', 'type', ''],
    Object.entries(schema.properties ?? {}).map(([name, prop]) => [
      el('code', { textContent: name }),
      typeOf(prop),
      [required.has(name) ? 'required' : '', prop.description ?? ''].filter(Boolean).join('. '),
    ]),
  );
}

function operation(doc, path, op) {
  const section = el('section', { id: op.operationId });
  section.append(
    el('h2', {}, el('span', { className: 'method', textContent: 'GET' }), el('code', { textContent: path })),
    el('p', { textContent: op.summary ?? '' }),
    el('h3', { textContent: 'Query parameters' }),
    table(
      ['name', 'type', 'description'],
      op.parameters.map((p) => [el('code', { textContent: p.name }), typeOf(p.schema), p.description ?? '']),
    ),
    el('h3', { textContent: 'Responses' }),
    table(
      ['status', 'body', 'description'],
      Object.entries(op.responses).map(([status, r]) => [
        status,
        typeOf(r.content?.['application/json']?.schema),
        r.description,
      ]),
    ),
  );
  const page = resolve(doc, op.responses['200']?.content?.['application/json']?.schema);
  const itemRef = page?.properties?.items?.items;
  const item = resolve(doc, itemRef);
  if (item) section.append(el('h3', {}, 'Items: ', el('code', { textContent: typeOf(itemRef) })), schemaTable(item));
  if (page?.properties?.page) section.append(el('h3', { textContent: 'page' }), schemaTable(page.properties.page));
  // What nested selections put into items (`fields=author(name),reviews(stars)`): each object and page schema once.
  for (const name of nestedSchemas(doc, item)) {
    const schema = doc.components.schemas[name];
    section.append(el('h3', {}, 'Nested: ', el('code', { textContent: name })), schemaTable(schema));
    if (schema.properties?.page) section.append(schemaTable(schema.properties.page));
  }
  return section;
}

/** The names of the schemas an item's properties point at, depth first, each once. */
function nestedSchemas(doc, item, seen = new Set()) {
  const refs = (schema) =>
    schema.$ref ? [schema.$ref] : [...(schema.anyOf ?? []), ...(schema.allOf ?? [])].flatMap(refs);
  for (const property of Object.values(item?.properties ?? {}))
    for (const ref of refs(property)) {
      const name = ref.split('/').pop();
      if (seen.has(name)) continue;
      seen.add(name);
      const schema = doc.components.schemas[name];
      nestedSchemas(doc, schema, seen);
      // A page's items are the next level.
      nestedSchemas(doc, { properties: { items: schema?.properties?.items?.items ?? {} } }, seen);
    }
  return [...seen];
}

async function render() {
  const doc = await (await fetch('/openapi.json')).json();
  const main = document.getElementById('reference');
  document.title = `${doc.info.title}: API reference`;
  const nav = el(
    'ul',
    {},
    ...Object.entries(doc.paths).map(([path, item]) =>
      el('li', {}, el('a', { href: `#${item.get.operationId}` }, el('code', { textContent: `GET ${path}` }))),
    ),
  );
  main.replaceChildren(
    el('h1', { textContent: doc.info.title }),
    el(
      'p',
      { className: 'muted', textContent: `version ${doc.info.version} · OpenAPI ${doc.openapi} · ` },
      el('a', { href: '/openapi.json', textContent: 'openapi.json' }),
      ' · ',
      el('a', { href: '/playground', textContent: 'playground' }),
    ),
    el('p', { textContent: doc.info.description ?? '' }),
    nav,
    ...Object.entries(doc.paths).map(([path, item]) => operation(doc, path, item.get)),
    el('h2', { id: 'errors', textContent: 'Errors' }),
    ...['ListError', 'InternalError'].map((name) =>
      el('section', {}, el('h3', {}, el('code', { textContent: name })), schemaTable(doc.components.schemas[name])),
    ),
  );
  document.body.dataset.state = 'ok';
}

render().catch((err) => {
  document.getElementById('reference').textContent = `Cannot load /openapi.json: ${err}`;
  document.body.dataset.state = 'error';
});
