// The GraphQL explorer of the bookstore: pick or write a query, run it against /graphql (POST, JSON), read the answer.
// Plain browser JavaScript with no dependencies, inlined into the page by the server: it works offline.

const EXAMPLES = {
  'Books: first page': `{
  books(first: 3, sort: "-year") {
    nodes { id title year authorId publisherId }
    pageInfo { hasNextPage endCursor }
    totalCount
  }
}`,
  'Books: last page, then before': `{
  books(last: 3, sort: "-year") {
    edges { cursor node { id title year } }
    pageInfo { hasPreviousPage startCursor }
  }
}`,
  'Filter through a relation': `{
  books(filter: "author/name startswith 'U'", sort: "title") {
    nodes { id title authorId }
  }
}`,
  'Related objects: authors and best reviews': `{
  books(first: 3, sort: "-year") {
    nodes {
      title
      author { name }
      reviews(first: 2) { totalCount nodes { reviewer stars } }
    }
  }
}`,
  'Facets: counts beside the page': `{
  books(first: 2, filter: "year gt 1968", sort: "-year") {
    nodes { id title year }
    facets {
      author { value label count }
      tags(limit: 2) { label count }
    }
  }
}`,
  'One bad field, one good': `{
  bad: books(filter: "price gt") { nodes { id } }
  authors(first: 2) { nodes { id name } }
}`,
};

const $ = (id) => document.getElementById(id);
const query = $('query');
const variables = $('variables');
const result = $('result');
const status = $('status');

for (const name of Object.keys(EXAMPLES)) $('example').append(new Option(name, name));
$('example').addEventListener('change', () => {
  query.value = EXAMPLES[$('example').value];
});
query.value = EXAMPLES[$('example').value];

/** Run the query in the editor and show the answer; the body's data-state says how it went. */
async function run() {
  document.body.dataset.state = 'running';
  status.textContent = 'running…';
  let vars;
  try {
    vars = variables.value.trim() ? JSON.parse(variables.value) : undefined;
  } catch {
    return done('error', 'the variables are not JSON', '');
  }
  try {
    const res = await fetch('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        'x-tenant': $('tenant').value,
      },
      body: JSON.stringify({ query: query.value, variables: vars }),
    });
    const answer = await res.json();
    const errors = answer.errors?.length ?? 0;
    const summary = `HTTP ${res.status}${errors ? `, ${errors} error${errors > 1 ? 's' : ''}` : ''}`;
    done(errors ? 'error' : 'ok', summary, JSON.stringify(answer, null, 2));
  } catch (err) {
    done('error', `the request failed: ${err.message}`, '');
  }
}

function done(state, message, text) {
  status.textContent = message;
  result.textContent = text;
  document.body.dataset.state = state;
}

$('run').addEventListener('click', run);
query.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    run();
  }
});
