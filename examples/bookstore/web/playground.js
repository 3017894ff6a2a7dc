// The playground page's script. The bookstore bundles it (with listql's parser) for the browser on first request.
import { complete, locate, syntaxError } from './editing.ts';
import { canPick, filterWithBucket } from './facet-filter.ts';

const $ = (id) => document.getElementById(id);
const PARAMETERS = ['filter', 'sort', 'fields', 'facets', 'nested', 'limit', 'search', 'count', 'cursor'];
// Parsed in the browser, with completion.
const TEXT_PARAMETERS = ['filter', 'sort', 'fields', 'facets'];
// Shown with the text underlined where a server error points (the nested lists' values too).
const UNDERLINED = [...TEXT_PARAMETERS, 'nested'];

const state = { endpoints: [], explain: false, seq: 0, timer: undefined, nextCursor: undefined };
// Shown in place of the SQL when the server does not serve /explain (it is off unless the bookstore enables it).
const NO_EXPLAIN = 'SQL not shown: /explain is off. Start the bookstore with BOOKSTORE_EXPLAIN=1 to see it.';

function endpoint() {
  return state.endpoints.find((e) => e.path === $('endpoint').value);
}

/** The request as the page shows it: the parameters that are set, in a fixed order. */
function requestParams() {
  const { capabilities, facets } = endpoint().description;
  const params = [];
  for (const name of ['filter', 'sort', 'fields', 'facets', 'limit', 'cursor']) {
    const value = $(name).value;
    if (name === 'facets' && facets.length === 0) continue;
    if (value.trim() !== '') params.push([name, name === 'limit' ? value.trim() : value]);
  }
  params.push(...nestedParams().map(({ name, value }) => [name, value]));
  if (capabilities.search && $('search').value !== '') params.push(['search', $('search').value]);
  if (capabilities.count && $('count').checked) params.push(['count', 'true']);
  return params;
}

/**
 * The path-named parameters of nested lists, written in one field as `reviews.limit=2&reviews.sort=-stars`: each
 * with where its value starts in the field, so an error's byte position can be underlined there.
 */
function nestedParams() {
  const text = $('nested').value;
  const out = [];
  let at = 0;
  for (const part of text.split('&')) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim();
    if (name !== '') out.push({ name, value: eq < 0 ? '' : part.slice(eq + 1), start: at + eq + 1 });
    at += part.length + 1;
  }
  return out;
}

function queryString(params) {
  return new URLSearchParams(params).toString().replaceAll('+', '%20');
}

function headers() {
  return { 'x-tenant': $('tenant').value };
}

/** Show an error of `parameter`: its text with the located characters underlined, then the message. */
function showError(parameter, message, located) {
  const box = $(`${parameter}-error`);
  box.replaceChildren();
  if (message === undefined) return;
  const input = $(parameter);
  if (located && UNDERLINED.includes(parameter)) {
    const text = input.value;
    const echo = document.createElement('span');
    echo.className = 'echo';
    const bad = document.createElement('span');
    bad.className = located.end > located.start ? 'bad' : 'bad at-end';
    bad.textContent = text.slice(located.start, located.end);
    echo.append(text.slice(0, located.start), bad, text.slice(located.end));
    box.append(echo);
  }
  box.append(message);
}

function clearErrors() {
  for (const name of PARAMETERS) showError(name, undefined);
}

function setState(value, note = '') {
  document.body.dataset.state = value;
  $('status').dataset.state = value;
  $('status').textContent = note;
}

/** Re-check and re-run after an edit; `now` skips the short pause that lets typing settle. */
function schedule(now = false) {
  state.seq++;
  setState('pending', 'checking…');
  renderCurl();
  clearTimeout(state.timer);
  const syntax = checkSyntax();
  if (syntax) {
    setState('invalid', 'syntax error (checked in the browser)');
    return;
  }
  state.timer = setTimeout(run, now ? 0 : 150, state.seq);
}

/** Parse filter, sort, fields and facets in the browser with listql's own parser; true when one has a syntax error. */
function checkSyntax() {
  clearErrors();
  const { limits } = endpoint().description;
  let failed = false;
  for (const name of TEXT_PARAMETERS) {
    const located = syntaxError(name, $(name).value, limits);
    if (located) {
      showError(name, located.message, located);
      failed = true;
    }
  }
  return failed;
}

async function run(seq) {
  const { path } = endpoint();
  const query = queryString(requestParams());
  try {
    // Without /explain, the list request alone: it answers the same schema errors.
    const urls = state.explain ? [path, `/explain${path}`] : [path];
    const [listed, explained] = await Promise.all(
      urls.map(async (url) => {
        const res = await fetch(query ? `${url}?${query}` : url, { headers: headers() });
        return { ok: res.ok, body: await res.json() };
      }),
    );
    if (seq !== state.seq) return;
    const failure = [listed, explained].find((r) => r !== undefined && !r.ok);
    if (failure) {
      showServerError(failure.body);
      renderResult(undefined, undefined);
      setState('error', failure.body.code);
      return;
    }
    renderResult(explained?.body, listed.body);
    document.body.dataset.query = query;
    setState('ok', `${listed.body.items.length} rows`);
  } catch (err) {
    if (seq !== state.seq) return;
    setState('error', String(err));
  }
}

function showServerError(error) {
  const nested = nestedParams().find((p) => p.name === error.parameter);
  if (nested) {
    // A nested list's parameter: underline inside its value, where the value sits in the field.
    const at = locate(nested.value, error);
    const located = at && { ...at, start: nested.start + at.start, end: nested.start + at.end };
    showError('nested', `${error.parameter}: ${error.code}: ${error.message}`, located);
    return;
  }
  const parameter = PARAMETERS.includes(error.parameter) ? error.parameter : 'filter';
  const located = error.parameter === parameter ? locate($(parameter).value, error) : undefined;
  showError(parameter, `${error.code}: ${error.message}`, located);
}

function renderResult(explanation, page) {
  const sql = [];
  if (explanation?.data)
    sql.push(`-- data\n${explanation.data.sql}\n-- values: ${JSON.stringify(explanation.data.params)}`);
  if (explanation?.count)
    sql.push(`-- count\n${explanation.count.sql}\n-- values: ${JSON.stringify(explanation.count.params)}`);
  // Each nested level: one statement for all its parents (their keys stand as NULLs until the page above is read).
  for (const level of explanation?.levels ?? [])
    for (const kind of ['data', 'count'])
      if (level[kind])
        sql.push(
          `-- ${level.path}${kind === 'count' ? ' (count)' : ''}\n${level[kind].sql}\n-- values: ${JSON.stringify(level[kind].params)}`,
        );
  // Each facet: one grouped statement, run after the page.
  for (const facet of explanation?.facets ?? [])
    sql.push(`-- facet ${facet.name}\n${facet.sql}\n-- values: ${JSON.stringify(facet.params)}`);
  $('sql').textContent = state.explain ? sql.join('\n\n') : NO_EXPLAIN;
  const info = page?.page;
  $('count-value').textContent = info?.count === undefined ? '–' : String(info.count);
  $('has-more').textContent = info === undefined ? '–' : String(info.hasMore);
  $('next-cursor').textContent = info?.nextCursor ?? '–';
  state.nextCursor = info?.nextCursor;
  $('next').disabled = state.nextCursor === undefined;
  renderRows(page?.items ?? []);
  renderFacets(page?.facets);
}

/**
 * The answer's facets beside the rows: per facet a small table of its buckets (value, label for a relation facet
 * with one, count). A bucket's value is a button when the policy lets the filter pick it: clicking it adds the
 * bucket's test to the filter (facet-filter.ts) and runs the request again from page one.
 */
function renderFacets(facets) {
  const entries = Object.entries(facets ?? {});
  $('facets-list').hidden = entries.length === 0;
  $('facet-buckets').replaceChildren(
    ...entries.map(([name, buckets]) => {
      const section = document.createElement('section');
      section.className = 'facet';
      section.dataset.facet = name;
      const labelled = buckets.some((b) => 'label' in b);
      const table = document.createElement('table');
      const head = document.createElement('tr');
      for (const title of labelled ? ['value', 'label', 'count'] : ['value', 'count'])
        head.append(Object.assign(document.createElement('th'), { textContent: title }));
      table.append(wrap('thead', head), document.createElement('tbody'));
      for (const bucket of buckets) {
        const tr = document.createElement('tr');
        tr.append(wrap('td', bucketValue(name, bucket)));
        if (labelled) tr.append(wrap('td', bucket.label === null ? '(none)' : String(bucket.label)));
        tr.append(
          Object.assign(document.createElement('td'), { className: 'count', textContent: String(bucket.count) }),
        );
        table.tBodies[0].append(tr);
      }
      section.append(Object.assign(document.createElement('h3'), { textContent: name }), table);
      return section;
    }),
  );
}

/** A bucket's value: `null` for the NULL bucket; a button adding it to the filter when the policy allows that test. */
function bucketValue(name, bucket) {
  const text = bucket.value === null ? 'null' : String(bucket.value);
  const { description } = endpoint();
  if (!canPick(description, name, bucket)) return text;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'bucket';
  button.textContent = text;
  button.title = 'add to the filter';
  button.addEventListener('click', () => {
    const filter = filterWithBucket($('filter').value, description, name, bucket);
    if (filter === undefined || filter === $('filter').value) return;
    $('filter').value = filter;
    $('cursor').value = '';
    schedule(true);
  });
  return button;
}

function renderRows(items) {
  const [head, body] = itemRows(items);
  $('rows').tHead.replaceChildren(head ?? '');
  $('rows').tBodies[0].replaceChildren(...body);
}

/** The header row (undefined without items) and one row per item; nested values are drawn inside their cells. */
function itemRows(items) {
  const keys = [...new Set(items.flatMap((item) => Object.keys(item)))];
  const head = document.createElement('tr');
  for (const key of keys) head.append(Object.assign(document.createElement('th'), { textContent: key }));
  const rows = items.map((item) => {
    const tr = document.createElement('tr');
    for (const key of keys) {
      const td = document.createElement('td');
      td.append(cell(item[key]));
      tr.append(td);
    }
    return tr;
  });
  return [items.length ? head : undefined, rows];
}

/** A value in a cell: text; a nested page as a small table and its page line; a related object as key/value lines. */
function cell(value) {
  if (value === undefined) return '';
  if (isPage(value)) return nestedPage(value);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const list = document.createElement('dl');
    list.className = 'object';
    for (const [key, inner] of Object.entries(value))
      list.append(Object.assign(document.createElement('dt'), { textContent: key }), wrap('dd', cell(inner)));
    return list;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** One item's nested list: its items as a table (drawn as the top level's are), then `2 of 5 · hasMore: true · …`. */
function nestedPage({ items, page }) {
  const box = document.createElement('div');
  box.className = 'nested-page';
  if (items.length) {
    const [head, rows] = itemRows(items);
    const table = document.createElement('table');
    table.className = 'nested';
    table.append(wrap('thead', head), document.createElement('tbody'));
    table.tBodies[0].append(...rows);
    box.append(table);
  }
  const info = [page.count === undefined ? `${items.length} shown` : `${items.length} of ${page.count}`];
  info.push(`hasMore: ${page.hasMore}`);
  if (page.nextCursor) info.push(`nextCursor: ${page.nextCursor}`);
  box.append(Object.assign(document.createElement('p'), { className: 'page-info', textContent: info.join(' · ') }));
  return box;
}

function wrap(tag, child) {
  const node = document.createElement(tag);
  node.append(child);
  return node;
}

/** A nested to-many selection's value: `{ items, page }`. */
function isPage(value) {
  return value !== null && typeof value === 'object' && Array.isArray(value.items) && typeof value.page === 'object';
}

/** The request as a curl command line, each value quoted for a POSIX shell. */
function curlCommand() {
  const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;
  const parts = [
    'curl -sG',
    `-H ${quote(`x-tenant: ${$('tenant').value}`)}`,
    quote(new URL(endpoint().path, location.href).href),
  ];
  for (const [name, value] of requestParams()) parts.push(`--data-urlencode ${quote(`${name}=${value}`)}`);
  return parts.join(' ');
}

function renderCurl() {
  $('curl').textContent = curlCommand();
}

function showCompletions(name) {
  const input = $(name);
  const box = $(`${name}-suggest`);
  const caret = input.selectionStart ?? input.value.length;
  const { start, end, options } = complete(name, input.value, caret, endpoint().description);
  box.replaceChildren(
    ...options.slice(0, 16).map((option) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = option;
      button.addEventListener('mousedown', (event) => event.preventDefault());
      button.addEventListener('click', () => {
        const tail = option.endsWith('(') || name !== 'filter' ? '' : ' ';
        input.value = input.value.slice(0, start) + option + tail + input.value.slice(end);
        const at = start + option.length + tail.length;
        input.focus();
        input.setSelectionRange(at, at);
        onEdit(name);
      });
      return button;
    }),
  );
}

function onEdit(name) {
  // A cursor belongs to the request it came from: a new filter, sort, search or scope starts again at page one.
  // Nested lists shape each item's lists, not which items: the cursor stays.
  // Facets describe the whole result set, not which page: the cursor stays too.
  if (!['cursor', 'limit', 'count', 'nested', 'facets'].includes(name)) $('cursor').value = '';
  if (TEXT_PARAMETERS.includes(name)) showCompletions(name);
  schedule();
}

function showEndpoint() {
  const { capabilities, limits, facets } = endpoint().description;
  $('search-row').hidden = !capabilities.search;
  $('facets-row').hidden = facets.length === 0;
  $('count-row').hidden = !capabilities.count;
  $('limit').max = String(limits.maxLimit);
  $('limit').placeholder = String(limits.defaultLimit);
}

async function start() {
  const res = await fetch('/describe');
  const described = await res.json();
  state.endpoints = described.endpoints;
  state.explain = described.explain === true;
  $('endpoint').replaceChildren(
    ...state.endpoints.map(({ path }) =>
      Object.assign(document.createElement('option'), { value: path, textContent: path }),
    ),
  );
  showEndpoint();
  for (const name of ['filter', 'sort', 'fields', 'facets', 'nested', 'limit', 'search', 'cursor'])
    $(name).addEventListener('input', () => onEdit(name));
  for (const name of TEXT_PARAMETERS) {
    $(name).addEventListener('focus', () => showCompletions(name));
    $(name).addEventListener('click', () => showCompletions(name));
  }
  $('count').addEventListener('change', () => onEdit('count'));
  $('tenant').addEventListener('change', () => onEdit('tenant'));
  $('endpoint').addEventListener('change', () => {
    for (const name of ['filter', 'sort', 'fields', 'facets', 'nested', 'search']) $(name).value = '';
    showEndpoint();
    onEdit('endpoint');
  });
  $('next').addEventListener('click', () => {
    if (state.nextCursor === undefined) return;
    $('cursor').value = state.nextCursor;
    schedule(true);
  });
  $('copy-curl').addEventListener('click', async () => {
    const command = curlCommand();
    $('curl').textContent = command;
    try {
      await navigator.clipboard.writeText(command);
      $('copy-curl').textContent = 'Copied';
    } catch {
      // No clipboard (plain http, permissions): select the command so it can be copied by hand.
      getSelection().selectAllChildren($('curl'));
      $('copy-curl').textContent = 'Selected: copy it';
    }
    setTimeout(() => {
      $('copy-curl').textContent = 'Copy as curl';
    }, 1500);
  });
  schedule(true);
}

start().catch((err) => setState('error', String(err)));
