// Settings › API & Security › Subscription feeds: make a read-only ICS feed
// of chosen calendars (its secret URL shown once, with a Copy button), list
// the feeds (never a secret) and revoke them. The shell calls the same core
// functions as `almanac --new-feed / --list-feeds / --revoke-feed`.

import { el, errorText, formatDateTime } from './format.js';
import { invoke } from './ipc.js';
import { $, secretShownOnce } from './settings_shared.js';

let names = new Map(); // calendar id → name, for the list

// A new feed's URL, shown once in place of the form.
const feedUrl = secretShownOnce({
  panel: 'feed-secret-panel',
  value: 'feed-url',
  copy: 'feed-copy',
  message: 'feed-copy-message',
  done: 'feed-done',
  replaces: 'feed-form',
});

/** Offers the settings' calendars to pick for a new feed. */
export function show(settings) {
  names = new Map(settings.calendarSources.map((s) => [s.id, s.name]));
  const picked = new Set([...document.querySelectorAll('#feed-calendars input:checked')].map((box) => box.value));
  $('feed-calendars').replaceChildren(
    ...settings.calendarSources.map((source) =>
      el(
        'label',
        { class: 'scope' },
        el('input', { type: 'checkbox', value: source.id, checked: picked.has(source.id), dataset: { calendarId: source.id } }),
        ` ${source.name}`,
      ),
    ),
  );
}

/** Lists the feeds. */
export async function refresh() {
  let feeds;
  try {
    feeds = await invoke('feeds_list');
    $('feeds-error').textContent = '';
  } catch (error) {
    $('feeds-error').textContent = `Could not list the feeds: ${errorText(error)}`;
    return;
  }
  $('feed-rows').replaceChildren(
    ...feeds.map((feed) => {
      const revoke = el('button', { type: 'button', class: 'danger', onclick: () => askRevoke(feed) }, 'Revoke');
      revoke.setAttribute('aria-label', `Revoke feed ${feed.name}`);
      return el(
        'tr',
        { dataset: { feedId: feed.id } },
        el('td', {}, feed.name),
        el('td', {}, feed.calendars.map((id) => names.get(id) ?? id).join(', ')),
        el('td', {}, formatDateTime(feed.created)),
        el('td', {}, revoke),
      );
    }),
  );
  $('feed-table').hidden = feeds.length === 0;
  $('no-feeds').hidden = feeds.length > 0;
}

$('feed-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('feed-error').textContent = '';
  const name = $('feed-name').value.trim();
  const calendars = [...document.querySelectorAll('#feed-calendars input:checked')].map((box) => box.value);
  if (!name || !calendars.length) {
    $('feed-error').textContent = 'Name the feed and choose at least one calendar.';
    return;
  }
  $('feed-create').disabled = true;
  try {
    const made = await invoke('feed_create', { name, calendars });
    $('feed-form').reset();
    $('feed-secret-name').textContent = made.feed.name;
    $('feed-off').hidden = made.served;
    feedUrl.show(made.url);
    await refresh();
  } catch (error) {
    $('feed-error').textContent = errorText(error);
  } finally {
    $('feed-create').disabled = false;
  }
});


function askRevoke(feed) {
  const dialog = $('feed-revoke-dialog');
  $('feed-revoke-name').textContent = feed.name;
  dialog.returnValue = '';
  dialog.onclose = async () => {
    if (dialog.returnValue !== 'revoke') return;
    try {
      await invoke('feed_revoke', { id: feed.id });
    } catch (error) {
      $('feeds-error').textContent = errorText(error);
    }
    await refresh();
  };
  dialog.showModal();
}
