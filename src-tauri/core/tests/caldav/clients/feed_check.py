"""Checks a subscription feed with the `icalendar` parser: it parses without
errors, every VEVENT has UID, DTSTAMP, DTSTART and SUMMARY, every TZID used is
defined by a VTIMEZONE, and the weekly series resolves to the right instants.
Usage: feed_check.py FILE EXPECTED_EVENT_COUNT"""

import datetime
import sys

from icalendar import Calendar

path, expected = sys.argv[1], int(sys.argv[2])
calendar = Calendar.from_ical(open(path, "rb").read())
for component in calendar.walk():
    assert not component.errors, (component.name, component.errors)
assert str(calendar["X-WR-CALNAME"]) == "Phone"
defined = {str(tz["TZID"]) for tz in calendar.walk("VTIMEZONE")}
events = calendar.walk("VEVENT")
assert len(events) == expected, [str(e.get("SUMMARY")) for e in events]
for event in events:
    for prop in ("UID", "DTSTAMP", "DTSTART", "SUMMARY"):
        assert prop in event, (prop, event.to_ical())
    for prop in ("DTSTART", "DTEND", "EXDATE"):
        values = event.get(prop)
        for value in values if isinstance(values, list) else [values]:
            if value is not None and "TZID" in value.params:
                assert value.params["TZID"] in defined, (prop, value.params["TZID"], defined)

gym = next(e for e in events if str(e["SUMMARY"]) == "Gym")
assert "FREQ=WEEKLY" in gym["RRULE"].to_ical().decode()
start = gym["DTSTART"].dt
assert start.astimezone(datetime.timezone.utc) == datetime.datetime(
    2026, 1, 1, 6, 0, tzinfo=datetime.timezone.utc
), start
print("feed ok:", len(events), "events,", sorted(defined))
