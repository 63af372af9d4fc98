// The sidebar: a narrow agenda of the coming week, docked at the right edge
// of the screen by the shell.

import { Calendar } from '@fullcalendar/core';
import listPlugin from '@fullcalendar/list';

import { eventSource, followChanges, showAnnouncements } from './events.js';

const status = document.getElementById('status');
const showError = (message) => {
  status.hidden = !message;
  status.textContent = message ? `Could not load events: ${message}` : '';
};

const calendar = new Calendar(document.getElementById('calendar'), {
  plugins: [listPlugin],
  initialView: 'agenda',
  views: { agenda: { type: 'list', duration: { days: 7 }, buttonText: 'Agenda' } },
  height: '100%',
  headerToolbar: { left: 'title', right: 'prev,next today' },
  // Text arrows: FullCalendar's icon font would need `font-src data:`.
  buttonIcons: false,
  buttonText: { prev: '‹', next: '›', today: 'Today' },
  noEventsContent: 'Nothing planned this week',
  events: eventSource(showError),
});
calendar.render();
await followChanges(calendar);
await showAnnouncements(document.getElementById('announce'));
document.body.dataset.ready = 'true';
