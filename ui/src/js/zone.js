// FullCalendar's named time zones (`timeZone: 'Europe/Berlin'`) through Luxon,
// with the zone's offset kept per day. The Luxon plugin asks Luxon for every
// date it places, and each answer costs an `Intl.DateTimeFormat` call: in
// WebKit that was most of the time a month of events took to draw.

import { createPlugin } from '@fullcalendar/core';
import { NamedTimeZoneImpl } from '@fullcalendar/core/internal';
import luxonPlugin from '@fullcalendar/luxon3';
import { IANAZone } from 'luxon';

const DAY_MS = 86_400_000;

class CachedZone extends NamedTimeZoneImpl {
  constructor(name) {
    super(name);
    this.zone = IANAZone.create(name);
    /** Day number (UTC) → the offset all that day, for days without a change. */
    this.offsets = new Map();
  }

  /** Minutes east of UTC at `ms`: Luxon's answer, asked once a day. */
  offsetAt(ms) {
    const day = Math.floor(ms / DAY_MS);
    let offset = this.offsets.get(day);
    if (offset === undefined) {
      offset = this.zone.offset(day * DAY_MS);
      // A day the offset changes on (daylight saving) is asked every time.
      if (offset !== this.zone.offset(day * DAY_MS + DAY_MS - 1)) return this.zone.offset(ms);
      this.offsets.set(day, offset);
    }
    return offset;
  }

  /** The wall time at `ms`, as FullCalendar's array `[y, m0, d, h, min, s, ms]`. */
  timestampToArray(ms) {
    const wall = new Date(ms + this.offsetAt(ms) * 60_000);
    return [
      wall.getUTCFullYear(),
      wall.getUTCMonth(),
      wall.getUTCDate(),
      wall.getUTCHours(),
      wall.getUTCMinutes(),
      wall.getUTCSeconds(),
      wall.getUTCMilliseconds(),
    ];
  }

  /**
   * The offset of a wall time: Luxon's own resolution (its `fixOffset`),
   * starting from the offset now, so times in a gap or an overlap of
   * daylight saving land where the Luxon plugin put them.
   */
  offsetForArray(array) {
    const local = Date.UTC(...array);
    const guess = this.offsetAt(Date.now());
    let utc = local - guess * 60_000;
    const second = this.offsetAt(utc);
    if (guess === second) return guess;
    utc -= (second - guess) * 60_000;
    const third = this.offsetAt(utc);
    if (second === third) return second;
    return Math.max(second, third);
  }
}

/** The Luxon plugin (its formatting commands) with the cached zones. */
export default createPlugin({ name: 'almanac-zone', deps: [luxonPlugin], namedTimeZonedImpl: CachedZone });
