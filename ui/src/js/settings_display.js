// Settings › Display: the time zone (every IANA zone, filtered by a search
// field), the first day of the week, the 24- or 12-hour clock and the view
// the calendar opens in.
// Each applies as soon as it is chosen; the calendar windows follow the
// settings-changed event.

import { el, knownZone } from './format.js';
import { invoke } from './ipc.js';
import { $, clearFieldError, flashSaved, saveSettings, showFieldError } from './settings_shared.js';

const search = $('tz-search');
const zoneList = $('tz-list');
const firstDay = $('first-day');
const initialView = $('initial-view');
const timeFormat = $('time-format');
let zones = [];
let current = null;

/** "new york", "new_york" and "New York" all find America/New_York. */
function normalized(text) {
  return text.toLowerCase().replace(/[_\s]+/g, ' ').trim();
}

function renderZones() {
  const wanted = normalized(search.value);
  const shown = wanted ? zones.filter((zone) => normalized(zone).includes(wanted)) : zones;
  zoneList.replaceChildren(...shown.map((zone) => el('option', { value: zone, selected: zone === current?.displayTimezone }, zone)));
  $('tz-count').textContent = shown.length === 1 ? '1 zone' : `${shown.length} zones`;
}

search.addEventListener('input', renderZones);
search.addEventListener('keydown', (event) => {
  // Down goes into the list, Enter takes the highlighted (or first) match.
  if (event.key === 'ArrowDown' && zoneList.options.length) {
    event.preventDefault();
    if (zoneList.selectedIndex < 0) zoneList.selectedIndex = 0;
    zoneList.focus();
  } else if (event.key === 'Enter' && zoneList.options.length) {
    event.preventDefault();
    saveZone((zoneList.selectedOptions[0] ?? zoneList.options[0]).value);
  }
});

let pending = null;
zoneList.addEventListener('change', () => {
  // Arrowing through the list selects each zone in turn: apply where it stops.
  clearTimeout(pending);
  pending = setTimeout(() => saveZone(zoneList.value), 300);
});
zoneList.addEventListener('keydown', (event) => {
  if (event.key !== 'Enter') return;
  event.preventDefault();
  clearTimeout(pending);
  saveZone(zoneList.value);
});

async function save(patch, fieldId) {
  clearFieldError(fieldId);
  try {
    show(await saveSettings(patch));
    flashSaved('display-message');
  } catch (refusal) {
    showFieldError(fieldId, refusal.message);
    if (current) show(current);
  }
}

function saveZone(zone) {
  if (zone && zone !== current?.displayTimezone) save({ displayTimezone: zone }, 'tz');
}

firstDay.addEventListener('change', () => save({ firstDay: Number(firstDay.value) }, 'first-day'));
timeFormat.addEventListener('change', () => save({ timeFormat24h: timeFormat.value === '24' }, 'time-format'));
initialView.addEventListener('change', () => save({ initialView: initialView.value }, 'initial-view'));

export function show(settings) {
  current = settings;
  // A zone an update dropped stays in the file; say so where it is chosen.
  const unknown = knownZone(settings.displayTimezone) !== settings.displayTimezone;
  $('tz-current').textContent = unknown
    ? `${settings.displayTimezone} (unknown to this version: times show in UTC; choose a zone below)`
    : settings.displayTimezone;
  firstDay.value = String(settings.firstDay);
  timeFormat.value = settings.timeFormat24h ? '24' : '12';
  initialView.value = settings.initialView;
  if (zones.length) renderZones();
}

/** Loads the zones the core accepts. */
export async function loadZones() {
  zones = await invoke('time_zones');
  renderZones();
}
