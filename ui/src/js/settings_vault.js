// Settings › Vault: the vault folder (typed, chosen with the system's folder
// picker, or among Obsidian's vaults on a first start: first_start.js), the
// Full Calendar import offered when the chosen folder holds a Full Calendar
// plugin's settings (the core builds the plan and names the file it read;
// the user confirms), and the vault's name for `obsidian://` links. Nothing
// in `.obsidian` is ever written: the plan is only read from there.

import { el, errorText } from './format.js';
import { invoke } from './ipc.js';
import { whereText } from './settings_calendars.js';
import { $, clearFieldError, editing, flashSaved, saveSettings, showFieldError } from './settings_shared.js';
import { showSection } from './settings_tabs.js';

const pathInput = $('vault-path');
const nameInput = $('vault-name');
const offerPanel = $('import-offer');
let offeredPath = null;
let pathDirty = false;

pathInput.addEventListener('input', () => {
  pathDirty = true;
});

/** The folder's last path component: the vault's name unless one is set. */
function folderName(path) {
  return String(path).split(/[\\/]/).filter(Boolean).pop() ?? '';
}

export function show(settings) {
  $('vault-current').textContent = settings.vaultPath;
  if (!pathDirty && !editing(pathInput)) pathInput.value = settings.vaultPath;
  // `vaultName` is null while Obsidian's name for the vault is its folder's.
  nameInput.placeholder = folderName(settings.vaultPath);
  if (!editing(nameInput)) nameInput.value = settings.vaultName ?? '';
}

$('vault-browse').addEventListener('click', async () => {
  clearFieldError('vault-path');
  try {
    const chosen = await window.__TAURI__.dialog.open({
      directory: true,
      title: 'Choose the vault folder',
      defaultPath: pathInput.value.trim() || undefined,
    });
    if (typeof chosen !== 'string') return; // cancelled
    pathInput.value = chosen;
    pathDirty = true;
    $('vault-form').requestSubmit();
  } catch (error) {
    showFieldError('vault-path', `The folder picker failed: ${errorText(error)}. Type the folder instead.`);
  }
});

/** Uses the folder at `path` as the vault, as if typed here and submitted. */
export function useVault(path) {
  showSection('vault');
  pathInput.value = path;
  pathDirty = true;
  $('vault-form').requestSubmit();
}

$('vault-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFieldError('vault-path');
  $('vault-message').textContent = '';
  offerPanel.hidden = true;
  const path = pathInput.value.trim();
  if (!path) {
    showFieldError('vault-path', 'Enter the vault folder, or choose it with Browse.');
    return;
  }
  $('vault-use').disabled = true;
  try {
    const settings = await saveSettings({ vaultPath: path });
    pathDirty = false;
    show(settings);
    flashSaved('vault-message', `Now using ${settings.vaultPath}`);
    await offerImport(settings.vaultPath);
  } catch (refusal) {
    showFieldError('vault-path', refusal.message);
    pathInput.focus();
  } finally {
    $('vault-use').disabled = false;
  }
});

// ---- Import -------------------------------------------------------------------

const SETTING_TEXT = {
  fcrReminderCompanion: 'FCR Reminder companion',
  firstDay: 'First day of the week',
  timeFormat24h: '24-hour time',
  initialView: 'Initial view',
  'initialView.desktop': 'Initial view',
  enableReminders: 'Reminders',
  enableDefaultReminder: 'Default reminder for every event',
  defaultReminderMinutes: 'Default reminder, minutes before',
};

function valueText(value) {
  if (value === true) return 'on';
  if (value === false) return 'off';
  if (value === null || typeof value === 'object') return '(not set)';
  return String(value);
}

/** One plugin setting Almanac does not take, in words (a daily-note format keeps its key). */
function foundText({ key, value }) {
  const format = key.match(/^calendarSources\[\d+\]\.format$/);
  return `${format ? 'Daily note format' : (SETTING_TEXT[key] ?? key)}: ${valueText(value)}`;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const VIEW_TEXT = {
  dayGridMonth: 'Month',
  timeGridWeek: 'Week, with times',
  dayGridWeek: 'Week, days only',
  timeGridDay: 'Day',
  listDay: 'List: day',
  listWeek: 'List: week',
  listMonth: 'List: month',
};

/**
 * The plan's display settings (Almanac's keys of the same names), in words,
 * each with whether the import takes it (`applies`: the keys it changes).
 */
function displayLines(display, applies) {
  if (!display) return [];
  const lines = [];
  const line = (key, text) => lines.push(applies.has(key) ? el('li', {}, text) : el('li', { class: 'muted' }, `${text} (not imported: you have chosen your own)`));
  if ('firstDay' in display) line('firstDay', `Weeks start on ${WEEKDAYS[display.firstDay]}`);
  if ('timeFormat24h' in display) line('timeFormat24h', display.timeFormat24h ? 'Times on a 24-hour clock (09:30)' : 'Times on a 12-hour clock (9:30am)');
  if ('initialView' in display) line('initialView', `The calendar opens in: ${VIEW_TEXT[display.initialView] ?? display.initialView}`);
  return lines;
}

/** The plan's reminder defaults (Almanac's `reminders` keys), in words. */
function reminderLines(reminders) {
  if (!reminders) return [];
  const lines = [];
  if ('vaultReminders' in reminders) lines.push(`Remind from the vault: ${valueText(reminders.vaultReminders)}`);
  if ('defaultReminders' in reminders) lines.push(`Default reminder for every event: ${valueText(reminders.defaultReminders)}`);
  if ('defaultMinutes' in reminders) lines.push(`Default reminder, minutes before: ${reminders.defaultMinutes}`);
  return lines;
}

function swatch(color) {
  const dot = el('span', { class: 'swatch' });
  dot.style.background = color;
  dot.setAttribute('aria-hidden', 'true');
  return dot;
}

/** Offers the import when the vault at `path` holds Full Calendar settings. */
async function offerImport(path) {
  let offer;
  try {
    offer = await invoke('vault_import_offer', { path });
  } catch (error) {
    $('vault-message').classList.remove('ok');
    $('vault-message').classList.add('error');
    $('vault-message').textContent = `Full Calendar settings were found but cannot be read: ${errorText(error)}`;
    return;
  }
  if (!offer) return;
  offeredPath = path;
  const applies = new Set(offer.applies);
  const count = offer.sources.length;
  const calendars = count === 1 ? 'its calendar' : `its ${count} calendars`;
  const also = offer.alsoFound.length ? ` (it also has ${offer.alsoFound.join(', ')}, not read)` : '';
  $('import-intro').textContent =
    `The vault “${offer.vaultName}” has Full Calendar settings in ${offer.settingsFile}${also}. ` +
    (!count ? 'None of its calendars can be read by Almanac.'
    : applies.has('calendarSources') ? `Import ${calendars}?`
    : `Almanac already has calendars of its own, so ${calendars} would not be imported; remove them in Calendars first to import them.`);
  // The plugin kept these passwords in its own file: they go to the keyring.
  const moved = offer.passwordsToKeyring.length
    ? [el('li', { class: 'muted passwords-moved' }, `The password of ${offer.passwordsToKeyring.join(', ')} moves into the system keyring (never into Almanac’s settings).`)]
    : [];
  // Remastered keeps them in Obsidian's own secret storage, out of reach.
  if (offer.passwordsToEnter.length) {
    moved.push(el('li', { class: 'muted passwords-to-enter' }, `The password of ${offer.passwordsToEnter.join(', ')} is not in the plugin’s settings: after the import, enter it in Calendars (Change password).`));
  }
  $('import-sources').replaceChildren(
    ...offer.sources.map((source) =>
      el('li', { dataset: { sourceId: source.id } }, swatch(source.color), el('strong', {}, source.name), ' ', el('span', { class: 'muted' }, whereText(source))),
    ),
    ...moved,
  );
  $('import-skipped').replaceChildren(
    ...offer.skipped.map((skipped) =>
      el('li', { class: 'skipped' }, el('strong', {}, skipped.name), ` (${skipped.type}): ${skipped.reason}`),
    ),
  );
  $('import-skipped-block').hidden = offer.skipped.length === 0;
  // The reminder defaults Almanac takes (unless the user set their own),
  // then the plugin settings it has no setting for.
  const reminders = reminderLines(offer.reminders).map((line) => el('li', {}, line));
  if (reminders.length && !applies.has('reminders')) {
    reminders.push(el('li', { class: 'muted' }, 'Not imported: you have set reminders yourself.'));
  }
  const display = displayLines(offer.display, applies);
  $('import-display').replaceChildren(...display);
  $('import-display-block').hidden = display.length === 0;
  const found = (offer.foundNotApplied ?? []).map((setting) => el('li', { class: 'muted' }, `${foundText(setting)} (not imported)`));
  $('import-reminders').replaceChildren(...reminders, ...found);
  $('import-reminders-block').hidden = reminders.length + found.length === 0;
  const applicable = applies.size > 0;
  $('import-blocked').hidden = applicable;
  $('import-blocked').textContent = 'Everything this import holds is configured in Almanac already.';
  $('import-confirm').hidden = !applicable;
  $('import-error').textContent = '';
  offerPanel.hidden = false;
  (applicable ? $('import-confirm') : $('import-dismiss')).focus();
}

$('import-confirm').addEventListener('click', async () => {
  $('import-confirm').disabled = true;
  try {
    await invoke('vault_import_apply', { path: offeredPath });
    offerPanel.hidden = true;
    offerPanel.dispatchEvent(new Event('imported'));
    flashSaved('vault-message', 'Imported. The calendars are in Settings › Calendars.');
  } catch (error) {
    $('import-error').textContent = errorText(error);
  } finally {
    $('import-confirm').disabled = false;
  }
});

$('import-dismiss').addEventListener('click', () => {
  offerPanel.hidden = true;
  pathInput.focus();
});

// ---- Vault name -----------------------------------------------------------------

$('vault-name-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFieldError('vault-name');
  try {
    show(await saveSettings({ vaultName: nameInput.value.trim() || null }));
    flashSaved('vault-name-message');
  } catch (refusal) {
    showFieldError('vault-name', refusal.message);
  }
});
