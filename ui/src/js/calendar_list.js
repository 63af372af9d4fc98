// The calendar window's list of calendars: each with its colour, a box to
// show or hide its events in this window, its state (syncing, an error,
// read-only) and a link to its settings. Alt-click on a box shows that calendar alone
// (again: all of them). Which calendars are hidden is this window's own
// state (window_state.js), so it survives a restart and changes nothing
// for REST, CalDAV or the sidebar.

import { el } from './format.js';
import { invoke } from './ipc.js';
import { saveWindowState, windowState } from './window_state.js';

const list = document.getElementById('calendar-list');

/**
 * What stands beside a calendar's name: that its feed or server is being
 * read right now, why it cannot be read, or that it cannot be written.
 */
function statusOf(source) {
  if (source.syncing) return el('span', { class: 'cal-status cal-syncing muted' }, 'syncing');
  if (source.lastError) return el('span', { class: 'cal-status cal-error', title: source.lastError }, 'error');
  if (!source.editable) return el('span', { class: 'cal-status muted' }, 'read-only');
  return null;
}

/**
 * Draws the list for `sources()` (id → SourceInfo) and calls
 * `onShown(ids)` with the calendars to show (null: all) now and after each
 * change. Resolves with a function that redraws it (after the calendars
 * changed).
 */
export async function setupCalendarList(sources, onShown) {
  const hidden = new Set((await windowState()).hiddenCalendars);
  const shown = () => {
    const ids = [...sources().keys()];
    return ids.some((id) => hidden.has(id)) ? ids.filter((id) => !hidden.has(id)) : null;
  };
  const changed = () => {
    saveWindowState({ hiddenCalendars: [...hidden] });
    onShown(shown());
  };

  function toggle(id, alone) {
    const ids = [...sources().keys()];
    if (alone) {
      const onlyThis = ids.every((other) => (other === id) !== hidden.has(other));
      hidden.clear();
      // Alt-click on the one calendar shown shows them all again.
      if (!onlyThis) ids.filter((other) => other !== id).forEach((other) => hidden.add(other));
    } else if (hidden.has(id)) {
      hidden.delete(id);
    } else {
      hidden.add(id);
    }
    sync();
    changed();
  }

  /** The boxes as `hidden` says, each in place (the focus stays on its box). */
  function sync() {
    for (const box of list.querySelectorAll('input[data-calendar-id]')) box.checked = !hidden.has(box.dataset.calendarId);
  }

  function row(source) {
    const box = el('input', {
      type: 'checkbox',
      checked: !hidden.has(source.id),
      title: 'Show in this window (Alt-click: this one only)',
      dataset: { calendarId: source.id },
    });
    box.addEventListener('change', () => toggle(source.id, false));
    box.addEventListener('click', (e) => {
      if (!e.altKey) return;
      // Not the ordinary toggle: the browser puts the box back after a
      // cancelled click, so the boxes are set once it has.
      e.preventDefault();
      toggle(source.id, true);
      setTimeout(sync);
    });
    const swatch = el('span', { class: 'cal-swatch', 'aria-hidden': 'true' });
    swatch.style.backgroundColor = source.color;
    const settings = el(
      'button',
      {
        type: 'button',
        class: 'cal-settings',
        title: `Settings of ${source.name}`,
        'aria-label': `Settings of ${source.name}`,
        onclick: () => invoke('settings_show_calendars'),
      },
      '⚙',
    );
    return el(
      'li',
      { dataset: { calendarId: source.id } },
      el('label', {}, box, swatch, el('span', { class: 'cal-name' }, source.name)),
      statusOf(source),
      settings,
    );
  }

  function draw() {
    list.replaceChildren(...[...sources().values()].map(row));
  }

  draw();
  onShown(shown());
  return () => {
    draw();
    onShown(shown());
  };
}
