"""One occurrence of a series moved, edited again and cancelled, the way
calendar apps do it: the Python `caldav` library PUTs the series' resource
with a `RECURRENCE-ID` override `VEVENT` added. Usage:
occurrence_edits.py BASE_URL TOKEN

Exits non-zero (an AssertionError with the reason) when anything is off; the
Rust test then checks the notes on disk."""

import datetime
import sys
from zoneinfo import ZoneInfo

import caldav
import icalendar

base, token = sys.argv[1], sys.argv[2]
berlin = ZoneInfo("Europe/Berlin")


def at(day, hour, minute=0):
    return datetime.datetime(2026, 2, day, hour, minute, tzinfo=berlin)


def vevents(obj):
    return list(obj.icalendar_instance.walk("VEVENT"))


def override(uid, recurrence_id, **props):
    """A modified occurrence as a client writes it."""
    component = icalendar.Event()
    component.add("uid", uid)
    component.add("dtstamp", datetime.datetime.now(datetime.timezone.utc))
    component.add("recurrence-id", recurrence_id)
    for name, value in props.items():
        component.add(name.replace("_", "-"), value)
    return component


def exdates(component):
    listed = component.get("exdate") or []
    if not isinstance(listed, list):
        listed = [listed]
    return sorted(d.dt.date() if hasattr(d.dt, "date") else d.dt for e in listed for d in e.dts)


client = caldav.DAVClient(url=base + "/", username="anyone", password=token)
events = {c.get_display_name(): c for c in client.principal().calendars()}["Events"]

# A weekly series saved by the client.
events.save_event(
    dtstart=at(3, 9),
    dtend=at(3, 9, 30),
    summary="Sync",
    uid="sync-1",
    rrule={"FREQ": "WEEKLY", "COUNT": 8},
)

# Moved: the 10 February meeting on the 11th at 14:00.
series = events.event_by_uid("sync-1")
series.icalendar_instance.add_component(
    override("sync-1", at(10, 9), dtstart=at(11, 14), dtend=at(11, 15), summary="Sync (moved)")
)
series.save()

# Read back: one resource, the same URL and UID, the move as an override.
back = events.event_by_uid("sync-1")
assert str(back.url) == str(series.url), (back.url, series.url)
parts = vevents(back)
assert len(parts) == 2, back.data
master, moved = parts
assert "recurrence-id" not in master and "rrule" in master, back.data
assert moved["recurrence-id"].dt == at(10, 9), back.data
assert moved["dtstart"].dt == at(11, 14), back.data
assert str(moved["summary"]) == "Sync (moved)", back.data
# The moved date is not an EXDATE: the override stands there.
assert exdates(master) == [], back.data
# A search sees the series once, not the detached note beside it.
february = events.search(start=at(1, 0), end=at(28, 0), event=True)
uids = [str(e.icalendar_component["uid"]) for e in february]
assert uids.count("sync-1") == 1, uids

# Edited a second time: the same override, changed.
moved = vevents(back)[1]
moved["summary"] = icalendar.vText("Sync (moved again)")
moved.add("location", "Room 4")
back.save()

# Cancelled: the 17 February meeting.
again = events.event_by_uid("sync-1")
again.icalendar_instance.add_component(
    override("sync-1", at(17, 9), dtstart=at(17, 9), status="CANCELLED")
)
again.save()

final = events.event_by_uid("sync-1")
master, moved = vevents(final)
assert str(moved["summary"]) == "Sync (moved again)", final.data
assert str(moved["location"]) == "Room 4", final.data
assert exdates(master) == [datetime.date(2026, 2, 17)], final.data

# A note series written by hand (Gym, Mondays and Thursdays): its 12
# January session moved to 18:00.
january = events.search(
    start=datetime.datetime(2026, 1, 1, tzinfo=berlin),
    end=datetime.datetime(2026, 2, 1, tzinfo=berlin),
    event=True,
)
gym = next(e for e in january if str(e.icalendar_component["summary"]) == "Gym")
gym_uid = str(gym.icalendar_component["uid"])
gym.icalendar_instance.add_component(
    override(
        gym_uid,
        datetime.datetime(2026, 1, 12, 7, 0, tzinfo=berlin),
        dtstart=datetime.datetime(2026, 1, 12, 18, 0, tzinfo=berlin),
        dtend=datetime.datetime(2026, 1, 12, 19, 0, tzinfo=berlin),
        summary="Gym",
    )
)
gym.save()
gym_back = [e for e in events.search(
    start=datetime.datetime(2026, 1, 1, tzinfo=berlin),
    end=datetime.datetime(2026, 2, 1, tzinfo=berlin),
    event=True,
) if str(e.icalendar_component["uid"]) == gym_uid]
assert len(gym_back) == 1, [e.data for e in gym_back]
gym_master, gym_moved = vevents(gym_back[0])
assert gym_moved["dtstart"].dt == datetime.datetime(2026, 1, 12, 18, 0, tzinfo=berlin), gym_back[0].data
assert exdates(gym_master) == [datetime.date(2026, 1, 8)], gym_back[0].data

# Moved, then given up: the override dropped and its date made an EXDATE.
events.save_event(
    dtstart=at(5, 16),
    dtend=at(5, 17),
    summary="Retro",
    uid="retro-1",
    rrule={"FREQ": "WEEKLY", "COUNT": 4},
)
retro = events.event_by_uid("retro-1")
retro.icalendar_instance.add_component(
    override("retro-1", at(12, 16), dtstart=at(13, 16), dtend=at(13, 17), summary="Retro")
)
retro.save()
retro = events.event_by_uid("retro-1")
assert len(vevents(retro)) == 2, retro.data
calendar = retro.icalendar_instance
calendar.subcomponents = [
    c for c in calendar.subcomponents if c.name != "VEVENT" or "recurrence-id" not in c
]
vevents(retro)[0].add("exdate", at(12, 16))
retro.save()
retro = events.event_by_uid("retro-1")
assert len(vevents(retro)) == 1, retro.data
assert exdates(vevents(retro)[0]) == [datetime.date(2026, 2, 12)], retro.data

print("occurrence edits ok")
