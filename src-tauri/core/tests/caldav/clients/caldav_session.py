"""A scripted session of the Python `caldav` client library against Almanac's
CalDAV server: discover, list calendars, query a month, create, edit, delete,
and sync-collection. Usage: caldav_session.py BASE_URL TOKEN

Exits non-zero (an AssertionError with the reason) when anything is off; the
Rust test then checks the edited note on disk."""

import datetime
import sys
from zoneinfo import ZoneInfo

import caldav
from caldav.lib.error import NotFoundError

base, token = sys.argv[1], sys.argv[2]
berlin = ZoneInfo("Europe/Berlin")


def summary(obj):
    return str(obj.icalendar_component["summary"])


# Discovery: the root names the principal, the principal the calendar home.
client = caldav.DAVClient(url=base + "/", username="anyone", password=token)
principal = client.principal()
calendars = {c.get_display_name(): c for c in principal.calendars()}
assert {"Events", "Holidays"} <= set(calendars), calendars
events = calendars["Events"]

# A month: the weekly series counts once, the multi-day event too.
january = events.search(
    start=datetime.datetime(2026, 1, 1, tzinfo=berlin),
    end=datetime.datetime(2026, 2, 1, tzinfo=berlin),
    event=True,
)
assert sorted(summary(e) for e in january) == ["Gym", "Offsite", "Planning", "Standup"], [
    summary(e) for e in january
]
february_only = events.search(
    start=datetime.datetime(2026, 2, 1, tzinfo=berlin),
    end=datetime.datetime(2026, 3, 1, tzinfo=berlin),
    event=True,
)
assert [summary(e) for e in february_only] == ["Gym"], [summary(e) for e in february_only]

# A sync baseline: a real RFC 6578 token, not the library's fallback.
synced = events.get_objects_by_sync_token(load_objects=True, disable_fallback=True)
assert str(synced.sync_token).startswith("urn:almanac:sync:"), synced.sync_token
assert len(list(synced)) == 4

# Create.
events.save_event(
    dtstart=datetime.datetime(2026, 1, 14, 10, 0, tzinfo=berlin),
    dtend=datetime.datetime(2026, 1, 14, 11, 30, tzinfo=berlin),
    summary="Created by caldav",
    location="Room 1",
    uid="caldav-created-1",
)
created = events.event_by_uid("caldav-created-1")
assert summary(created) == "Created by caldav"
start = created.icalendar_component["dtstart"].dt
assert start == datetime.datetime(2026, 1, 14, 10, 0, tzinfo=berlin), start

# Edit the Full Note event: new title (the note is renamed) and a location.
planning = next(e for e in january if summary(e) == "Planning")
planning_url = str(planning.url)
planning.load()
component = planning.icalendar_component
component.pop("summary")
component.add("summary", "Planning v2")
component.add("location", "Room 7")
planning.save()
reloaded = events.event_by_url(planning_url)
reloaded.load()
assert summary(reloaded) == "Planning v2", "the resource stays where the client knows it"
assert str(reloaded.icalendar_component["location"]) == "Room 7"

# Sync: the new event and the edited one, nothing deleted.
updated, deleted = synced.sync()
assert sorted(summary(o) for o in updated) == ["Created by caldav", "Planning v2"], [
    summary(o) for o in updated
]
assert not list(deleted), deleted

# Delete, and sync again: the deletion comes through.
created.delete()
try:
    events.event_by_uid("caldav-created-1")
    raise AssertionError("the deleted event is still there")
except NotFoundError:
    pass
updated, deleted = synced.sync()
assert not list(updated), [summary(o) for o in updated]
assert [str(o.url).rsplit("/", 1)[-1] for o in deleted] == ["caldav-created-1.ics"], deleted

# The feed calendar is read-only.
try:
    calendars["Holidays"].save_event(
        dtstart=datetime.datetime(2026, 1, 1, tzinfo=berlin), summary="no", uid="nope-1"
    )
    raise AssertionError("a read-only calendar took a write")
except caldav.lib.error.AuthorizationError:  # 403 Forbidden
    pass
print("caldav session ok")
