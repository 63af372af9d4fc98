// Small display helpers shared by the windows. Times are shown in the
// settings' `displayTimezone`, not the machine's zone: the two may differ, and
// the calendar window (FullCalendar's `timeZone`) already follows the setting.

import { invoke, listen } from './ipc.js';

let zone;
let dateTime;
let dateOnly;
let timeOnly;

/**
 * `name` if this window knows the zone, else UTC: a settings file written
 * before an update may name a zone the update dropped; it still loads, and
 * times then show in UTC, as the core reads them.
 */
export function knownZone(name) {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: name });
    return name;
  } catch {
    return 'UTC';
  }
}

/** Shows times in `name` (an IANA zone; UTC if unknown) from now on. */
export function setDisplayZone(name) {
  const timeZone = knownZone(name);
  zone = timeZone;
  dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone });
  dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone });
  timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short', timeZone });
}

/** The zone times are shown in. */
export function displayZone() {
  return zone;
}

// Until the settings arrive: the machine's zone.
setDisplayZone(Intl.DateTimeFormat().resolvedOptions().timeZone);

/**
 * Reads `displayTimezone` now and follows its changes; `onChange(settings)`
 * runs after each change so the window can redraw its times. Resolves with
 * the current settings.
 */
export async function followDisplayZone(onChange = () => {}) {
  const settings = await invoke('settings_get');
  setDisplayZone(settings.displayTimezone);
  await listen('settings-changed', (changed) => {
    if (knownZone(changed.displayTimezone) === zone) return;
    setDisplayZone(changed.displayTimezone);
    onChange(changed);
  });
  return settings;
}

function formatWith(format, value, fallback) {
  if (value === null || value === undefined || value === '') return fallback;
  const date = new Date(value);
  return Number.isNaN(date.valueOf()) ? String(value) : format.format(date);
}

/** An instant (epoch ms, or an ISO string) as a date and time in the display zone; `fallback` when absent. */
export function formatDateTime(value, fallback = '—') {
  return formatWith(dateTime, value, fallback);
}

/** An instant as a date in the display zone; `fallback` when absent. */
export function formatDate(value, fallback = '—') {
  return formatWith(dateOnly, value, fallback);
}

/** An instant as a time of day in the display zone; `fallback` when absent. */
export function formatTime(value, fallback = '—') {
  return formatWith(timeOnly, value, fallback);
}

/** Creates an element with attributes/properties and children. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key in node) node[key] = value;
    else node.setAttribute(key, value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

/** Error text from a rejected command (the shell rejects with a string). */
export function errorText(error) {
  return typeof error === 'string' ? error : (error?.message ?? String(error));
}
