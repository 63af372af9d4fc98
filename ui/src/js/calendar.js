// The calendar window: month, week, day and list views over the cached
// events, edited in place (calendar_editing.js, event_dialog.js). The REST
// route `ui/change-view` reaches it as a `change-view` event.

import { Calendar } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import timeGridPlugin from '@fullcalendar/timegrid';
import listPlugin from '@fullcalendar/list';

import monthGridPlugin from './month_grid.js';

import { deleteByKey, editingOptions, interactionPlugin, newEventButton } from './calendar_editing.js';
import { setupEventDialog } from './event_dialog.js';
import { setupKeys } from './calendar_keys.js';
import { setupUndoKeys } from './edit_notice.js';
import { focusSearch, setupSearch } from './calendar_search.js';
import { AGENDA, agendaViews, followAgenda, overdueTasks } from './agenda.js';
import { setupCalendarList } from './calendar_list.js';
import { setupMiniMonth } from './mini_month.js';
import { setupSecondZone } from './second_zone.js';
import { eventSource, followChanges, showAnnouncements, showCalendars } from './events.js';
import { clockOptions, followClock } from './clock.js';
import { knownZone } from './format.js';
import { invoke, listen } from './ipc.js';
// Named zones for `timeZone`: without a plugin FullCalendar can only show the
// machine's zone, and the user's `displayTimezone` may differ from it.
import zonePlugin from './zone.js';

/** The toolbar's views; the API may also ask for the others in KNOWN_VIEWS. */
const VIEWS = ['dayGridMonth', 'timeGridWeek', 'timeGridDay', AGENDA];
const KNOWN_VIEWS = [...VIEWS, 'listWeek', 'dayGridWeek', 'listDay', 'listMonth'];

const status = document.getElementById('status');
const showError = (message) => {
  status.hidden = !message;
  status.textContent = message ? `Could not load events: ${message}` : '';
};

const settings = await invoke('settings_get');
const requested = new URLSearchParams(location.search).get('view');
const initialView = [requested, settings.initialView].find((v) => KNOWN_VIEWS.includes(v)) ?? VIEWS[0];

const sourcesById = async () => new Map((await invoke('calendar_sources')).map((s) => [s.id, s]));
let sources = await sourcesById();
const zoneInput = document.getElementById('ev-timezone');
zoneInput.placeholder = `${settings.displayTimezone} (display zone)`;
setupEventDialog(settings.firstDay);

const newEvent = newEventButton(() => calendar.getOption('timeZone'), () => sources);
const calendar = new Calendar(document.getElementById('calendar'), {
  plugins: [dayGridPlugin, monthGridPlugin, timeGridPlugin, listPlugin, zonePlugin, interactionPlugin],
  ...editingOptions(() => sources),
  customButtons: { newEvent },
  initialView,
  // Events arrive as epoch millis, so they land at their wall time in this zone.
  timeZone: knownZone(settings.displayTimezone),
  firstDay: settings.firstDay,
  // 24-hour or 12-hour times (`timeFormat24h`).
  ...clockOptions(settings),
  height: '100%',
  nowIndicator: true,
  // A month shows its own weeks (four to six), not always six: a sixth row of
  // the next month's days would be drawn again a step later, and on a busy
  // vault each row's events are work in every step.
  fixedWeekCount: false,
  headerToolbar: {
    left: 'prev,next today newEvent',
    center: 'title',
    right: VIEWS.join(','),
  },
  // Text arrows: FullCalendar's icon font would need `font-src data:`. The
  // toolbar's one list view is the agenda (FullCalendar names every list
  // view's button by `list`).
  buttonIcons: false,
  buttonText: { prev: '‹', next: '›', today: 'Today', month: 'Month', week: 'Week', day: 'Day', list: 'Agenda' },
  views: agendaViews,
  events: eventSource(showError),
  eventSources: overdueTasks(() => calendar, () => sources),
  datesSet: (info) => {
    document.body.dataset.view = info.view.type;
    // The day the view is about (a month's first day), for tests and styles.
    document.body.dataset.current = calendar.formatIso(info.view.currentStart, true);
  },
});
// Before the first fetch: the calendars hidden in this window are not asked for.
const redrawList = await setupCalendarList(() => sources, (ids) => showCalendars(calendar, ids));
calendar.render();
deleteByKey(calendar, () => sources);
setupKeys(calendar, { newEvent: () => newEvent.click(), search: focusSearch });
setupUndoKeys();
setupSearch(calendar);
followAgenda(calendar);
await setupMiniMonth(calendar);
await setupSecondZone(calendar);
await followChanges(calendar);
await listen('change-view', (view) => calendar.changeView(view));
await listen('settings-changed', async (changed) => {
  zoneInput.placeholder = `${changed.displayTimezone} (display zone)`;
  await refreshSources();
  const shown = knownZone(changed.displayTimezone);
  if (shown !== calendar.getOption('timeZone')) calendar.setOption('timeZone', shown);
  if (changed.firstDay !== calendar.getOption('firstDay')) calendar.setOption('firstDay', changed.firstDay);
  followClock(calendar, changed);
});
// A calendar's state (an error, its events) changes with the vault and feeds.
async function refreshSources() {
  sources = await sourcesById();
  redrawList();
}
await listen('calendar-changed', refreshSources);
// Read again after listening: a change made since the first read is not missed.
await refreshSources();
await showAnnouncements(document.getElementById('announce'));
document.body.dataset.ready = 'true';
