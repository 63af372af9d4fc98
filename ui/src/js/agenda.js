// The agenda (`a`, the toolbar's "Agenda"): the next seven days from today
// as a list grouped by day (FullCalendar's list view), and above today's
// events the open tasks whose day has passed, marked overdue. A task's box
// ticks it in place through the same path as on the calendar
// (calendar_editing.js); the vault's change then redraws the list.

import { DateTime } from 'luxon';

import { shownCalendarIds, toFullCalendar } from './events.js';
import { shownId } from './event_fields.js';
import { invoke } from './ipc.js';

/** The view's name, as `changeView` and the toolbar know it. */
export const AGENDA = 'agenda';
/** How far back an open task still shows as overdue. */
const OVERDUE_DAYS = 60;

/** FullCalendar's `views` option: the agenda as a seven-day list from the day it is on. */
export const agendaViews = {
  [AGENDA]: { type: 'list', duration: { days: 7 }, listDayFormat: { weekday: 'long', month: 'long', day: 'numeric' } },
};

/**
 * FullCalendar's `eventSources`: the overdue open tasks, drawn on today in
 * the agenda (and nowhere else). `calendar()` is the FullCalendar
 * calendar, `sources()` the calendars by id (for colours).
 */
export function overdueTasks(calendar, sources) {
  return [{ id: 'overdue', events: overdueSource(calendar, sources) }];
}

/**
 * Fetches the overdue tasks again once the agenda is shown: a source asked
 * while the view changes still sees the view before.
 */
export function followAgenda(calendar) {
  calendar.on('datesSet', (info) => {
    if (info.view.type === AGENDA) calendar.getEventSourceById('overdue')?.refetch();
  });
}

function overdueSource(calendar, sources) {
  return async (range, success, failure) => {
    const today = DateTime.now().setZone(range.timeZone).startOf('day');
    const inView = calendar()?.view.type === AGENDA && range.start.valueOf() <= today.toMillis() && range.end.valueOf() > today.toMillis();
    if (!inView) {
      success([]);
      return;
    }
    try {
      const tasks = await invoke('calendar_events', {
        start: today.minus({ days: OVERDUE_DAYS }).toMillis(),
        end: today.toMillis() - 1,
        calendars: shownCalendarIds(),
        openTasks: true,
      });
      const colors = new Map([...sources().values()].map((s) => [s.id, s.color]));
      const todayDate = today.toISODate();
      success(
        tasks
          // A task reaching into today is today's, in the days' own list.
          .filter((task) => (task.endDate ?? task.date) < todayDate)
          .map((task) => ({
            ...toFullCalendar(task, colors),
            id: `overdue:${shownId(task)}`,
            start: todayDate,
            end: undefined,
            allDay: true,
            editable: false,
            classNames: ['almanac-overdue'],
          })),
      );
    } catch (error) {
      failure(error);
    }
  };
}
