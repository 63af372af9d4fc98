"""The independent oracle of the ICS differential test (tests/ics_differential.rs).

Reads one feed with Python's `icalendar` and expands it with
`recurring-ical-events`, then answers each range the way Almanac's range
semantics say (closed ranges; an all-day event covers its days in the
display zone; floating times are in the display zone; cancelled events are
hidden). EXRULE, which recurring-ical-events ignores (RFC 5545 dropped it),
is applied here with dateutil, as RFC 2445 defines it.

Usage: oracle.py FEED DISPLAY_TZ START_MS:END_MS...
Prints one JSON list per range: {"title", "start", "end"}; all-day events
as dates (end exclusive), timed ones as UTC instants.
"""

import datetime
import json
import sys
import zoneinfo

import icalendar
import recurring_ical_events
from dateutil.rrule import rrulestr

UTC = datetime.timezone.utc


def main():
    feed, display, *ranges = sys.argv[1:]
    display = zoneinfo.ZoneInfo(display)
    with open(feed, "rb") as f:
        calendar = icalendar.Calendar.from_ical(f.read())
    exrules = {
        str(c.get("UID", "")): (c.decoded("DTSTART"), c["EXRULE"])
        for c in calendar.walk("VEVENT")
        if "EXRULE" in c and "RECURRENCE-ID" not in c
    }
    answers = []
    for bounds in ranges:
        start_ms, end_ms = (int(b) for b in bounds.split(":"))
        answers.append(occurrences(calendar, display, exrules, start_ms, end_ms))
    print(json.dumps(answers))


def instant(value, display):
    """A date-time as epoch milliseconds (floating: in the display zone)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=display)
    return int(value.timestamp() * 1000)


def day_start(day, display):
    return instant(datetime.datetime.combine(day, datetime.time()), display)


def excluded_by_rule(exrules, uid, start, recurrence_id):
    if uid not in exrules or start != recurrence_id:
        return False
    dtstart, rules = exrules[uid]
    for rule in rules if isinstance(rules, list) else [rules]:
        text = rule.to_ical().decode()
        expanded = rrulestr(text, dtstart=dtstart)
        if expanded.after(start - datetime.timedelta(seconds=1)) == start:
            return True
    return False


def occurrences(calendar, display, exrules, start_ms, end_ms):
    # A margin of days on both sides; the closed range is applied below.
    pad = datetime.timedelta(days=3)
    lo = datetime.datetime.fromtimestamp(start_ms / 1000, UTC) - pad
    hi = datetime.datetime.fromtimestamp(end_ms / 1000, UTC) + pad
    found = []
    for event in recurring_ical_events.of(calendar).between(lo, hi):
        if str(event.get("STATUS", "")).upper() == "CANCELLED":
            continue
        start = event.decoded("DTSTART")
        recurrence_id = event.decoded("RECURRENCE-ID") if "RECURRENCE-ID" in event else None
        if excluded_by_rule(exrules, str(event.get("UID", "")), start, recurrence_id):
            continue
        if "DTEND" in event:
            end = event.decoded("DTEND")
        elif "DURATION" in event:
            end = start + event.decoded("DURATION")
        elif isinstance(start, datetime.datetime):
            end = start
        else:
            end = start + datetime.timedelta(days=1)
        title = str(event.get("SUMMARY", "")).strip() or "(no title)"
        if isinstance(start, datetime.datetime):
            first, last = instant(start, display), max(instant(end, display), instant(start, display))
            record = {
                "title": title,
                "start": iso(first),
                "end": iso(last),
            }
        else:
            if isinstance(end, datetime.datetime):
                end = end.date()
            end = max(end, start + datetime.timedelta(days=1))
            first, last = day_start(start, display), day_start(end, display) - 1
            record = {"title": title, "start": start.isoformat(), "end": end.isoformat()}
        if first <= end_ms and last >= start_ms:
            found.append(record)
    return sorted(found, key=lambda r: (r["start"], r["end"], r["title"]))


def iso(millis):
    moment = datetime.datetime.fromtimestamp(millis / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


if __name__ == "__main__":
    main()
