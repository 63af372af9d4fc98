// The month view (`dayGridMonth`), drawn by the window itself. FullCalendar's
// own day grid lays a week out by measuring it: each new week is mounted
// empty, its day cells measured, its events drawn hidden, measured, then
// placed, three renders of every cell and a forced layout between each. A
// step to the next month of a busy vault spent most of its time there
// (BENCHMARKS.md, "The month view of the window's own").
//
// Here each week is one CSS grid: a column a day, a row for the day numbers,
// then a row per lane of the events that span several days, each such event
// a grid item across its days. A day's own events are one stack under the
// lowest lane that crosses that day. The lanes are worked out before drawing,
// so the browser lays a month out in one pass, with nothing measured, and
// titles still wrap: a long one makes its own day's stack taller, not a lane
// of the whole week.
//
// The rest is FullCalendar's: its slicing of events into weeks, its event
// and day-cell components (so every option and hook the window sets applies
// here as in the other views), and its interactions, which find days through
// `queryHit` (drag to another day, select days, resize). What it does not
// draw: FullCalendar's own "+N more" popover (`dayMaxEvents`), which the
// window never asks for: its event source already sends a few events a day
// and a "+N more" link of its own (events.js).

import { createPlugin } from '@fullcalendar/core';
import { createElement, createRef, Fragment } from '@fullcalendar/core/preact';
import {
  BgEvent,
  DateComponent,
  DayCellContainer,
  DayHeader,
  EventContainer,
  NowTimer,
  PositionCache,
  StandardEvent,
  ViewContainer,
  WeekNumberContainer,
  addDays,
  buildNavLinkAttrs,
  buildSegTimeText,
  createFormatter,
  getSegAnchorAttrs,
  getSegMeta,
  memoize,
  renderFill,
  sortEventSegs,
} from '@fullcalendar/core/internal';
import { DayTableSlicer, TableDateProfileGenerator, buildDayTableModel } from '@fullcalendar/daygrid/internal';

/** Event times as FullCalendar's day grid shows them ("9:30a"), unless `eventTimeFormat` says. */
const EVENT_TIME = createFormatter({ hour: 'numeric', minute: '2-digit', omitZeroMinute: true, meridiem: 'narrow' });
const WEEK_NUMBER = createFormatter({ week: 'narrow' });

/**
 * Each segment of one week with its lane (a grid row under the day
 * numbers): the lowest lane free on all its days, in FullCalendar's event
 * order, as its day grid places them.
 */
function laneSegs(segs, days) {
  const taken = [];
  return segs.map((seg) => {
    let lane = 0;
    while (taken[lane]?.slice(seg.firstCol, seg.lastCol + 1).some(Boolean)) lane += 1;
    taken[lane] ??= new Array(days).fill(false);
    taken[lane].fill(true, seg.firstCol, seg.lastCol + 1);
    return { seg, lane };
  });
}

/** How many lanes the placed segments `placed` take (the lowest one's number, plus one). */
const lanesIn = (placed) => placed.reduce((most, { lane }) => Math.max(most, lane + 1), 0);

/** A timed event of one day is a line (dot, time, title); the others are bars (FullCalendar's rule). */
function isListItem(seg) {
  const { display } = seg.eventRange.ui;
  return display === 'list-item'
    || (display === 'auto' && !seg.eventRange.def.allDay && seg.firstCol === seg.lastCol && seg.isStart && seg.isEnd);
}

function renderDotContent(content) {
  return createElement(Fragment, null,
    createElement('div', {
      className: 'fc-daygrid-event-dot',
      style: { borderColor: content.borderColor || content.backgroundColor },
    }),
    content.timeText && createElement('div', { className: 'fc-event-time' }, content.timeText),
    createElement('div', { className: 'fc-event-title' }, content.event.title || '\u00a0'));
}

/**
 * One event of a week, as FullCalendar draws it in its day grid, in a
 * wrapper placed by `place` (grid lines, or nothing inside a day's stack).
 */
function renderEvent(seg, place, meta, context, state) {
  const { instanceId } = seg.eventRange.instance;
  const common = { seg, isSelected: instanceId === state.selected, isDragging: false, defaultDisplayEventEnd: false, ...meta };
  const event = isListItem(seg)
    ? createElement(EventContainer, {
      ...common,
      elTag: 'a',
      elClasses: ['fc-daygrid-event', 'fc-daygrid-dot-event'],
      elAttrs: getSegAnchorAttrs(seg, context),
      defaultGenerator: renderDotContent,
      timeText: buildSegTimeText(seg, context.options.eventTimeFormat || EVENT_TIME, context, true, false),
      isResizing: false,
      isDateSelecting: false,
    })
    : createElement(StandardEvent, {
      ...common,
      elClasses: ['fc-daygrid-event', 'fc-daygrid-block-event', 'fc-h-event'],
      defaultTimeFormat: EVENT_TIME,
      disableResizing: !seg.eventRange.def.allDay,
      isResizing: state.isMirror,
      isDateSelecting: false,
    });
  return createElement('div', {
    key: `${instanceId}:${seg.firstCol}${state.isMirror ? ':mirror' : ''}`,
    className: 'almanac-month-event',
    style: { ...place, visibility: state.hidden[instanceId] ? 'hidden' : '' },
  }, event);
}

/** A fill behind a week's days (a selection, a drop target, a background event). */
function renderFillSeg(seg, kind, todayRange) {
  return createElement('div', {
    key: `${kind}:${seg.eventRange.instance?.instanceId ?? ''}:${seg.firstCol}`,
    className: 'almanac-month-fill',
    style: { gridColumn: `${seg.firstCol + 1} / ${seg.lastCol + 2}` },
  }, kind === 'bg-event' ? createElement(BgEvent, { seg, ...getSegMeta(seg, todayRange) }) : renderFill(kind));
}

/** One week: its days, then its fills and events over them. */
function renderWeek(cells, parts, view) {
  const { props, context } = view;
  const { options } = context;
  const { todayRange } = parts;
  const sorted = sortEventSegs(parts.fg, options.eventOrder);
  const spanning = laneSegs(sorted.filter((seg) => seg.firstCol !== seg.lastCol), cells.length);
  const laneOf = new Map(spanning.map(({ seg, lane }) => [seg.eventRange.instance.instanceId, lane]));
  const below = lanesIn(spanning);
  // A resized event is drawn again at its new length, in its own lane.
  const mirrors = parts.mirrors.map((seg) => ({ seg, lane: laneOf.get(seg.eventRange.instance.instanceId) ?? below }));
  const normal = { selected: props.eventSelection, hidden: parts.hidden, isMirror: false };
  const mirror = { selected: null, hidden: {}, isMirror: true };
  const laned = [...spanning.map((placed) => ({ ...placed, state: normal })),
    ...mirrors.map((placed) => ({ ...placed, state: mirror }))];
  const lanes = lanesIn(laned);
  // Grid rows: the day numbers, the lanes, then what is left (1fr). A day's
  // stack starts under the lowest lane crossing that day and runs to the end.
  const stackRow = cells.map((_, col) => 2 + lanesIn(laned.filter(({ seg }) => seg.firstCol <= col && col <= seg.lastCol)));
  const eventsByCol = cells.map(() => []);
  for (const { seg, lane, state } of laned) {
    const place = { gridColumn: `${seg.firstCol + 1} / ${seg.lastCol + 2}`, gridRow: lane + 2 };
    eventsByCol[seg.firstCol].push(renderEvent(seg, place, getSegMeta(seg, todayRange), context, state));
  }
  const ownByCol = cells.map(() => []);
  for (const seg of sorted) {
    if (seg.firstCol === seg.lastCol) {
      ownByCol[seg.firstCol].push(renderEvent(seg, null, getSegMeta(seg, todayRange), context, normal));
    }
  }
  ownByCol.forEach((own, col) => {
    if (!own.length) return;
    eventsByCol[col].push(createElement('div', {
      key: 'own',
      className: 'almanac-month-day-events',
      style: { gridColumn: col + 1, gridRow: `${stackRow[col]} / -1` },
    }, own));
  });
  return createElement('div', {
    key: cells[0].key,
    className: 'almanac-week',
    role: 'row',
    style: {
      gridTemplateColumns: `repeat(${cells.length}, minmax(0, 1fr))`,
      gridTemplateRows: `auto ${'auto '.repeat(lanes)}1fr`,
    },
  },
  cells.map((cell, col) => createElement(DayCellContainer, {
    key: cell.key,
    elTag: 'div',
    elClasses: ['fc-daygrid-day'],
    elAttrs: { role: 'gridcell', ...cell.extraDataAttrs },
    defaultGenerator: (content) => content.dayNumberText || '\u00a0',
    date: cell.date,
    dateProfile: props.dateProfile,
    todayRange,
    showDayNumber: true,
    extraRenderProps: cell.extraRenderProps,
  }, (InnerContent) => createElement(Fragment, null,
    createElement('div', { className: 'fc-daygrid-day-frame', style: { gridColumn: col + 1 } }),
    createElement('div', { className: 'fc-daygrid-day-top', style: { gridColumn: col + 1 } },
      createElement(InnerContent, {
        elTag: 'a',
        elClasses: ['fc-daygrid-day-number'],
        elAttrs: buildNavLinkAttrs(context, cell.date),
      })),
    col === 0 && options.weekNumbers && createElement(WeekNumberContainer, {
      elTag: 'a',
      elClasses: ['fc-daygrid-week-number'],
      elAttrs: buildNavLinkAttrs(context, cell.date, 'week'),
      date: cell.date,
      defaultFormat: WEEK_NUMBER,
    }),
    eventsByCol[col]))),
  parts.fills);
}

/** The segments of a sliced interaction (a drag, a resize) that fall in week `row`. */
const inRow = (segs, row) => (segs ?? []).filter((seg) => seg.row === row);

class MonthView extends DateComponent {
  constructor(...args) {
    super(...args);
    this.buildModel = memoize(buildDayTableModel);
    this.slicer = new DayTableSlicer();
    this.bodyRef = createRef();
    this.scrolledDown = false;
    // Known from the scroll itself: reading the position after a step
    // would force the new month's layout inside the click.
    this.handleScroll = (scroll) => {
      this.scrolledDown = scroll.currentTarget.scrollTop > 0;
    };
  }

  render() {
    const { props, context } = this;
    const { options } = context;
    const model = this.buildModel(props.dateProfile, context.dateProfileGenerator);
    const sliced = this.slicer.sliceProps(props, props.dateProfile, options.nextDayThreshold, context, model);
    const interaction = sliced.eventDrag ?? sliced.eventResize;
    // While an event is dragged or resized, its days are lit and its own
    // element hidden; a resize also draws the event at its new length.
    const highlight = interaction?.segs.length ? interaction.segs : sliced.dateSelectionSegs;
    const weeks = (todayRange) => model.cells.map((cells, row) => renderWeek(cells, {
      todayRange,
      fg: inRow(sliced.fgEventSegs, row),
      hidden: interaction?.affectedInstances ?? {},
      mirrors: inRow(sliced.eventResize?.segs, row),
      fills: [
        ...inRow(sliced.businessHourSegs, row).map((seg) => renderFillSeg(seg, 'non-business', todayRange)),
        ...inRow(sliced.bgEventSegs, row).filter((seg) => seg.eventRange.def.allDay)
          .map((seg) => renderFillSeg(seg, 'bg-event', todayRange)),
        ...inRow(highlight, row).map((seg) => renderFillSeg(seg, 'highlight', todayRange)),
      ],
    }, this));
    return createElement(ViewContainer, { elClasses: ['fc-daygrid', 'almanac-month'], viewSpec: context.viewSpec },
      createElement('div', { className: 'almanac-month-scroller', role: 'grid', onScroll: this.handleScroll },
        options.dayHeaders && createElement('table', { className: 'fc-col-header', role: 'presentation' },
          createElement('thead', { role: 'presentation' },
            createElement(DayHeader, { dateProfile: props.dateProfile, dates: model.headerDates, datesRepDistinctDays: false }))),
        createElement('div', { className: 'fc-daygrid-body', role: 'rowgroup', ref: this.bodyRef },
          createElement(NowTimer, { unit: 'day' }, (_now, todayRange) => createElement(Fragment, null, weeks(todayRange))))));
  }

  componentDidMount() {
    this.context.registerInteractiveComponent(this, { el: this.bodyRef.current });
  }

  /** A new month opens at its first week, as FullCalendar's month view does. */
  componentDidUpdate(prevProps) {
    if (prevProps.dateProfile !== this.props.dateProfile && this.scrolledDown) {
      this.bodyRef.current.parentElement.scrollTop = 0;
    }
  }

  componentWillUnmount() {
    this.context.unregisterInteractiveComponent(this);
  }

  // Where a pointer is, in days: FullCalendar's interactions ask, once at the
  // start of a drag (`prepareHits`) and then at each move (`queryHit`).

  prepareHits() {
    const body = this.bodyRef.current;
    const weeks = [...body.querySelectorAll(':scope > .almanac-week')];
    const days = weeks[0].querySelectorAll(':scope > .fc-daygrid-day > .fc-daygrid-day-frame');
    this.rowPositions = new PositionCache(body, weeks, false, true);
    this.colPositions = new PositionCache(body, [...days], true, false);
  }

  queryHit(left, top) {
    const { colPositions, rowPositions } = this;
    const col = colPositions.leftToIndex(left);
    const row = rowPositions.topToIndex(top);
    if (row == null || col == null) return null;
    const model = this.buildModel(this.props.dateProfile, this.context.dateProfileGenerator);
    const cell = model.cells[row][col];
    return {
      dateProfile: this.props.dateProfile,
      dateSpan: { range: { start: cell.date, end: addDays(cell.date, 1) }, allDay: true, ...cell.extraDateSpan },
      dayEl: this.bodyRef.current.children[row].children[col],
      rect: {
        left: colPositions.lefts[col],
        right: colPositions.rights[col],
        top: rowPositions.tops[row],
        bottom: rowPositions.bottoms[row],
      },
      layer: 0,
    };
  }
}

/** Replaces the day grid plugin's month view; its other views stay FullCalendar's. */
export default createPlugin({
  name: 'almanac-month-grid',
  views: {
    dayGridMonth: {
      component: MonthView,
      dateProfileGeneratorClass: TableDateProfileGenerator,
      duration: { months: 1 },
    },
  },
});
