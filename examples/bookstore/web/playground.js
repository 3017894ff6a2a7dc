// The playground page's script. The bookstore bundles it (with listql's parser) for the browser on first request.
import { complete, locate, syntaxError } from './editing.ts';

const $ = (id) => document.getElementById(id);
const PARAMETERS = ['filter', 'sort', 'fields', 'limit', 'search', 'count', 'cursor'];
// Parsed in the browser, with completion.
const TEXT_PARAMETERS = ['filter', 'sort', 'fields'];

const state = { endpoints: [], explain: false, seq: 0, timer: undefined, nextCursor: undefined };
// Shown in place of the SQL when the server does not serve /explain (it is off unless the bookstore enables it).
const NO_EXPLAIN = 'SQL not shown: /explain is off. Start the bookstore with BOOKSTORE_EXPLAIN=1 to see it.';

function endpoint() {
  return state.endpoints.find((e) => e.path === $('endpoint').value);
}

/** The request as the page shows it: the parameters that are set, in a fixed order. */
function requestParams() {
  const { capabilities } = endpoint().description;
  const params = [];
  for (const name of ['filter', 'sort', 'fields', 'limit', 'cursor']) {
    const value = $(name).value;
    if (value.trim() !== '') params.push([name, name === 'limit' ? value.trim() : value]);
  }
  if (capabilities.search && $('search').value !== '') params.push(['search', $('search').value]);
  if (capabilities.count && $('count').checked) params.push(['count', 'true']);
  return params;
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
  if (located && TEXT_PARAMETERS.includes(parameter)) {
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

/** Parse filter, sort and fields in the browser with listql's own parser; true when one has a syntax error. */
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
  $('sql').textContent = state.explain ? sql.join('\n\n') : NO_EXPLAIN;
  const info = page?.page;
  $('count-value').textContent = info?.count === undefined ? '–' : String(info.count);
  $('has-more').textContent = info === undefined ? '–' : String(info.hasMore);
  $('next-cursor').textContent = info?.nextCursor ?? '–';
  state.nextCursor = info?.nextCursor;
  $('next').disabled = state.nextCursor === undefined;
  renderRows(page?.items ?? []);
}

function renderRows(items) {
  const keys = [...new Set(items.flatMap((item) => Object.keys(item)))];
  const head = document.createElement('tr');
  for (const key of keys) {
    const th = document.createElement('th');
    th.textContent = key;
    head.append(th);
  }
  $('rows').tHead.replaceChildren(items.length ? head : '');
  $('rows').tBodies[0].replaceChildren(
    ...items.map((item) => {
      const tr = document.createElement('tr');
      for (const key of keys) {
        const td = document.createElement('td');
        const value = item[key];
        td.textContent = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
        tr.append(td);
      }
      return tr;
    }),
  );
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
  if (name !== 'cursor' && name !== 'limit' && name !== 'count') $('cursor').value = '';
  if (TEXT_PARAMETERS.includes(name)) showCompletions(name);
  schedule();
}

function showEndpoint() {
  const { capabilities, limits } = endpoint().description;
  $('search-row').hidden = !capabilities.search;
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
  for (const name of ['filter', 'sort', 'fields', 'limit', 'search', 'cursor'])
    $(name).addEventListener('input', () => onEdit(name));
  for (const name of TEXT_PARAMETERS) {
    $(name).addEventListener('focus', () => showCompletions(name));
    $(name).addEventListener('click', () => showCompletions(name));
  }
  $('count').addEventListener('change', () => onEdit('count'));
  $('tenant').addEventListener('change', () => onEdit('tenant'));
  $('endpoint').addEventListener('change', () => {
    for (const name of ['filter', 'sort', 'fields', 'search']) $(name).value = '';
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
