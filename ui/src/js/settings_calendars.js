// Settings › Calendars: the configured calendar sources, each renamed,
// recoloured or removed in place (removing never touches the notes), a CalDAV
// calendar's password changed, and a form to add a notes folder, the daily
// notes, an ICS feed, a CalDAV calendar, the Obsidian Tasks of a folder, a
// country's public holidays or an .ics file of the vault. Every change is one settings patch
// of `calendarSources`, except a CalDAV calendar's set-up, which the core does
// (`caldav_add`: discovery, the keyring, then the settings); either way the
// core names the refused field, shown next to it. A row's "Show on my phone"
// and its sync are settings_phone.js'.

import { el, errorText, formatDateTime } from './format.js';
import { invoke } from './ipc.js';
import * as phone from './settings_phone.js';
import { $, clearFieldError, saveSettings, showFieldError } from './settings_shared.js';

const list = $('calendar-list');
const addForm = $('add-calendar');
const removeDialog = $('remove-dialog');
const ADD_FIELDS = [
  'name', 'color', 'directory', 'heading', 'dateField', 'url', 'username', 'password', 'calendarUrl', 'country',
  'subdivision', 'path',
];

let sources = []; // settings.calendarSources
let info = new Map(); // id → the engine's SourceInfo (event count, last error)

/** Any CSS colour as the `#rrggbb` a colour input takes. */
function hexColor(color) {
  const context = document.createElement('canvas').getContext('2d');
  context.fillStyle = '#3788d8';
  context.fillStyle = color;
  return context.fillStyle.startsWith('#') ? context.fillStyle : '#3788d8';
}

const KIND_TEXT = {
  local: 'Notes folder',
  dailynote: 'Daily notes',
  ical: 'ICS feed',
  caldav: 'CalDAV calendar',
  tasks: 'Obsidian Tasks',
  holidays: 'Public holidays',
  icsfile: 'ICS file',
};

/** Where a source reads from, in words. */
export function whereText(source) {
  if (source.type === 'local') return `${KIND_TEXT.local} ${source.directory || '(vault root)'}`;
  if (source.type === 'dailynote') {
    const folder = source.directory ? ` in ${source.directory}` : '';
    return `${KIND_TEXT.dailynote}${folder}, under “${source.heading}”`;
  }
  if (source.type === 'tasks') {
    return `${KIND_TEXT.tasks} in ${source.directory || 'the whole vault'}, by ${source.dateField ?? 'due'} date`;
  }
  if (source.type === 'caldav') return `${KIND_TEXT.caldav} ${source.username} at ${source.url}`;
  if (source.type === 'holidays') {
    return `${KIND_TEXT.holidays} of ${source.country}${source.subdivision ? `-${source.subdivision}` : ''}`;
  }
  if (source.type === 'icsfile') return `${KIND_TEXT.icsfile} ${source.path}`;
  return `${KIND_TEXT.ical} ${source.url}`;
}

function countText(id) {
  const known = info.get(id);
  if (!known) return '';
  const count = known.eventCount === 1 ? '1 event' : `${known.eventCount} events`;
  if (known.type !== 'caldav') return count;
  return known.lastFetched ? `${count}, synced ${formatDateTime(known.lastFetched)}` : `${count}, not synced yet`;
}

// Saves run one after another, each applied to the sources as the save
// before it left them: a recolour sent while a rename is still being saved
// must not send the old name back.
let saving = Promise.resolve();

/**
 * Saves `change(sources)` as the calendar sources once the saves before it
 * are done; `errorSlot` shows a refusal. Returns whether it was saved.
 */
function saveSources(change, errorSlot) {
  const run = saving.then(async () => {
    errorSlot.textContent = '';
    try {
      show(await saveSettings({ calendarSources: change(sources) }));
      return true;
    } catch (refusal) {
      errorSlot.textContent = refusal.message;
      return false;
    }
  });
  saving = run;
  return run;
}

/** A source's row: its element and the parts a refresh updates in place. */
function buildRow(source, index) {
  const error = el('span', { class: 'field-error', role: 'alert' });
  const replace = (changes) => (current) => current.map((s) => (s.id === source.id ? { ...s, ...changes } : s));
  const color = el('input', {
    type: 'color',
    class: 'calendar-color',
    value: hexColor(source.color),
    onchange: async () => {
      if (!(await saveSources(replace({ color: color.value }), error))) color.value = hexColor(source.color);
    },
  });
  color.setAttribute('aria-label', `Colour of ${source.name}`);
  const name = el('input', {
    type: 'text',
    class: 'calendar-name',
    value: source.name,
    maxLength: 100,
    onchange: async () => {
      if (!(await saveSources(replace({ name: name.value.trim() }), error))) name.value = source.name;
    },
  });
  name.setAttribute('aria-label', `Name of ${source.name}`);
  const remove = el('button', { type: 'button', class: 'danger remove', onclick: () => askRemove(source) }, 'Remove');
  remove.setAttribute('aria-label', `Remove ${source.name}`);
  const password =
    source.type === 'caldav' ? el('button', { type: 'button', class: 'change-password', onclick: () => askPassword(source) }, 'Change password') : null;
  password?.setAttribute('aria-label', `Change the password of ${source.name}`);
  const count = el('span', { class: 'muted calendar-count' });
  const problem = el('span', { class: 'error calendar-problem' });
  const published = phone.rowParts(source);
  const node = el(
    'li',
    { class: 'calendar-item', dataset: { calendarId: source.id } },
    color,
    el(
      'div',
      { class: 'calendar-main' },
      name,
      el('span', { class: 'muted calendar-where' }, whereText(source)),
      count,
      problem,
      error,
      published.node,
    ),
    password,
    remove,
  );
  // Names in the labels follow a rename even while the row is kept.
  const label = (current) => {
    color.setAttribute('aria-label', `Colour of ${current.name}`);
    remove.setAttribute('aria-label', `Remove ${current.name}`);
    password?.setAttribute('aria-label', `Change the password of ${current.name}`);
  };
  return { key: JSON.stringify([index, source]), node, count, problem, label, published };
}

// Rows by source id. A row is rebuilt only when its source changed, so a
// refresh (event counts change with every vault edit) never replaces the
// element under the user's pointer or cursor.
const rows = new Map();
const empty = el('li', { class: 'muted' }, 'No calendars yet: add one below.');

function render() {
  for (const source of sources) rows.get(source.id)?.label(source);
  // A changed name must not be pulled out from under the user's cursor.
  if (list.contains(document.activeElement) && document.activeElement.type === 'text') {
    document.activeElement.addEventListener('blur', render, { once: true });
    return;
  }
  const nodes = sources.map((source, index) => {
    let row = rows.get(source.id);
    if (row?.key !== JSON.stringify([index, source])) {
      row = buildRow(source, index);
      rows.set(source.id, row);
    }
    row.count.textContent = countText(source.id);
    row.problem.textContent = info.get(source.id)?.lastError ?? '';
    row.problem.hidden = !row.problem.textContent;
    row.published.update();
    return row.node;
  });
  for (const id of rows.keys()) {
    if (!sources.some((source) => source.id === id)) rows.delete(id);
  }
  if (!nodes.length) nodes.push(empty);
  const same = nodes.length === list.children.length && nodes.every((node, i) => list.children[i] === node);
  if (!same) list.replaceChildren(...nodes);
}

/** Shows the settings' calendar sources. */
export function show(settings) {
  sources = settings.calendarSources;
  render();
}

phone.onChange(render);

/**
 * Refetches what the engine knows of each source (event counts, problems)
 * and how the published ones sync with the phone.
 */
export async function refreshInfo() {
  await phone.refresh();
  try {
    info = new Map((await invoke('calendar_sources')).map((source) => [source.id, source]));
    $('calendars-error').textContent = '';
  } catch (error) {
    $('calendars-error').textContent = `Could not list the calendars: ${errorText(error)}`;
  }
  render();
}

function askRemove(source) {
  $('remove-name').textContent = source.name;
  removeDialog.returnValue = '';
  removeDialog.onclose = async () => {
    if (removeDialog.returnValue !== 'remove') return;
    // `publishedCalendars` may only name calendars that exist: one on the
    // phone stops being published first.
    if (phone.isPublished(source.id) && !(await phone.stop(source.id, $('calendars-error')))) return;
    saveSources(
      (current) => current.filter((s) => s.id !== source.id),
      $('calendars-error'),
    );
  };
  removeDialog.showModal();
}

// ---- A CalDAV calendar's password -------------------------------------------

const passwordDialog = $('password-dialog');
let passwordFor = null; // the source whose password the dialog changes

function askPassword(source) {
  passwordFor = source;
  $('password-calendar').textContent = source.name;
  $('password-new').value = '';
  clearFieldError('password-new');
  passwordDialog.showModal();
  $('password-new').focus();
}

$('password-cancel').addEventListener('click', () => passwordDialog.close());

$('password-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFieldError('password-new');
  $('password-save').disabled = true;
  try {
    await invoke('caldav_change_password', { id: passwordFor.id, password: $('password-new').value });
    $('password-new').value = '';
    passwordDialog.close();
    await refreshInfo();
  } catch (refusal) {
    showFieldError('password-new', errorText(refusal));
    $('password-new').focus();
  } finally {
    $('password-save').disabled = false;
  }
});

// ---- Add --------------------------------------------------------------------

const addType = $('add-type');

/** Shows the fields the chosen kind of calendar has. */
function showAddFields() {
  for (const node of addForm.querySelectorAll('[data-for]')) {
    node.hidden = !node.dataset.for.split(' ').includes(addType.value);
  }
  showChoice([]);
}

/** Offers the account's calendars to pick from (none: hides the choice). */
function showChoice(calendars) {
  $('add-choice').hidden = calendars.length === 0;
  $('add-calendarUrl').replaceChildren(...calendars.map((c) => el('option', { value: c.url }, `${c.name} (${c.url})`)));
}
addType.addEventListener('change', showAddFields);
showAddFields();

/** `<type>_<n>` with the smallest free `n`, as the Full Calendar plugin names sources. */
function freeId(type) {
  const taken = new Set(sources.map((s) => s.id));
  let n = 1;
  while (taken.has(`${type}_${n}`)) n += 1;
  return `${type}_${n}`;
}

function newSource() {
  const type = addType.value;
  const value = (id) => $(id).value.trim();
  const source = { id: freeId(type), name: value('add-name'), color: $('add-color').value, type };
  if (type === 'local') source.directory = value('add-directory');
  if (type === 'dailynote') Object.assign(source, { directory: value('add-directory'), heading: value('add-heading') });
  if (type === 'ical') source.url = value('add-url');
  if (type === 'tasks') Object.assign(source, { directory: value('add-directory'), dateField: $('add-dateField').value });
  if (type === 'holidays') Object.assign(source, { country: value('add-country'), subdivision: value('add-subdivision') });
  if (type === 'icsfile') source.path = value('add-path');
  return source;
}

/** What the form resets to after an addition. */
function resetAddForm() {
  addForm.reset();
  showAddFields();
  $('add-status').textContent = '';
}

/**
 * Adds the CalDAV calendar the form describes: the core discovers the
 * account's calendars with the credentials given (asking to pick one when
 * there are several), keeps the password in the keyring and adds the source.
 */
async function addCaldav() {
  const value = (id) => $(id).value.trim();
  const choosing = !$('add-choice').hidden;
  const calendar = {
    name: value('add-name'),
    color: $('add-color').value,
    url: value('add-url'),
    username: value('add-username'),
    password: $('add-password').value,
    calendarUrl: choosing ? $('add-calendarUrl').value : null,
  };
  $('add-status').textContent = 'Connecting to the server…';
  const outcome = await invoke('caldav_add', { calendar });
  if (outcome.outcome === 'choose') {
    showChoice(outcome.calendars);
    $('add-status').textContent = 'This account has several calendars: choose one, then add it.';
    $('add-calendarUrl').focus();
    return;
  }
  show(await invoke('settings_get'));
  resetAddForm();
}

addForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  for (const field of ADD_FIELDS) clearFieldError(`add-${field}`);
  $('add-error').textContent = '';
  if (addType.value === 'caldav') {
    $('add-submit').disabled = true;
    try {
      await addCaldav();
      await refreshInfo();
    } catch (refusal) {
      $('add-status').textContent = '';
      const target = ADD_FIELDS.includes(refusal?.field) ? `add-${refusal.field}` : null;
      if (target) {
        showFieldError(target, refusal.message);
        $(target).focus();
      } else {
        $('add-error').textContent = errorText(refusal);
      }
    } finally {
      $('add-submit').disabled = false;
    }
    return;
  }
  const source = newSource();
  // What the core cannot tell from an empty string: which field is missing.
  const missing =
    source.type === 'dailynote' && !source.heading ? ['add-heading', 'Name the heading the events are listed under.']
    : source.type === 'ical' && !source.url ? ['add-url', 'Enter the address of the ICS feed.']
    : source.type === 'holidays' && !source.country ? ['add-country', 'Enter the country’s code, such as DE.']
    : source.type === 'icsfile' && !source.path ? ['add-path', 'Enter the path of the .ics file in the vault.']
    : null;
  if (missing) {
    showFieldError(...missing);
    $(missing[0]).focus();
    return;
  }
  $('add-submit').disabled = true;
  try {
    show(await saveSettings({ calendarSources: [...sources, source] }));
    resetAddForm();
    await refreshInfo();
  } catch (refusal) {
    // `calendarSources[<new index>].<field>`: show it next to that field.
    const field = refusal.field?.match(/^calendarSources\[(\d+)\]\.(\w+)$/);
    const target = field && Number(field[1]) === sources.length && ADD_FIELDS.includes(field[2]) ? `add-${field[2]}` : null;
    if (target) {
      showFieldError(target, refusal.message);
      $(target).focus();
    } else {
      $('add-error').textContent = refusal.message;
    }
  } finally {
    $('add-submit').disabled = false;
  }
});
