"""The phone: the Python `caldav` library on a published calendar's
collection, as a phone's calendar app would use it.

Usage: phone.py COLLECTION_URL USER PASSWORD COMMAND [ARGS...]

  list                      prints {uid: calendar text} of every event and
                            task (completed or not), as JSON
  create UID SUMMARY DATE   a one-hour event at 09:00 UTC on DATE (YYYY-MM-DD)
  retitle UID SUMMARY       changes an event's summary
  move UID DATE             moves an event to DATE (YYYY-MM-DD), same times
  delete UID                deletes an event or a task
  complete UID              completes a task
  move-occurrence UID DATE SUMMARY
                            one occurrence of a series (on DATE) retitled and
                            an hour later: a RECURRENCE-ID override
  cancel-occurrence UID DATE
                            one occurrence of a series cancelled: an EXDATE

Exits non-zero (with the reason) when the server refuses anything."""

import datetime
import json
import sys

import caldav
import icalendar

url, user, password, command, *args = sys.argv[1:]
client = caldav.DAVClient(url=url, username=user, password=password)
calendar = client.calendar(url=url)



def master(obj):
    """The series' own component (the one without a RECURRENCE-ID)."""
    for component in obj.icalendar_instance.walk("VEVENT"):
        if "recurrence-id" not in component:
            return component
    sys.exit("no master component")


def occurrence_start(component, day):
    """The start of the occurrence on `day` (YYYY-MM-DD), in the series'
    own form (a time of day in its zone, or floating)."""
    start = component.decoded("dtstart")
    return start.replace(
        year=int(day[:4]), month=int(day[5:7]), day=int(day[8:10])
    )


if command == "list":
    out = {}
    for obj in calendar.events() + calendar.todos(include_completed=True):
        obj.load()
        out[str(obj.icalendar_component["uid"])] = obj.data
    print(json.dumps(out))
elif command == "create":
    uid, summary, day = args
    start = datetime.datetime.fromisoformat(day + "T09:00:00+00:00")
    calendar.save_event(
        dtstart=start, dtend=start + datetime.timedelta(hours=1), summary=summary, uid=uid
    )
elif command == "retitle":
    uid, summary = args
    event = calendar.event_by_uid(uid)
    event.load()
    component = event.icalendar_component
    component.pop("summary")
    component.add("summary", summary)
    event.save()
elif command == "move":
    uid, day = args
    event = calendar.event_by_uid(uid)
    event.load()
    component = event.icalendar_component
    start = component.decoded("dtstart")
    length = component.decoded("dtend") - start
    moved = start.replace(year=int(day[:4]), month=int(day[5:7]), day=int(day[8:10]))
    component.pop("dtstart")
    component.pop("dtend")
    component.add("dtstart", moved)
    component.add("dtend", moved + length)
    event.save()
elif command == "delete":
    (uid,) = args
    calendar.object_by_uid(uid).delete()
elif command == "complete":
    (uid,) = args
    calendar.todo_by_uid(uid).complete()
elif command == "move-occurrence":
    uid, day, summary = args
    event = calendar.event_by_uid(uid)
    event.load()
    series = master(event)
    start = occurrence_start(series, day)
    length = series.decoded("dtend") - series.decoded("dtstart")
    override = icalendar.Event()
    override.add("uid", uid)
    override.add("recurrence-id", start)
    override.add("dtstart", start + datetime.timedelta(hours=1))
    override.add("dtend", start + datetime.timedelta(hours=1) + length)
    override.add("summary", summary)
    override.add("dtstamp", datetime.datetime.now(datetime.timezone.utc))
    event.icalendar_instance.add_component(override)
    event.save()
elif command == "cancel-occurrence":
    uid, day = args
    event = calendar.event_by_uid(uid)
    event.load()
    series = master(event)
    series.add("exdate", occurrence_start(series, day))
    event.save()
else:
    sys.exit(f"unknown command {command}")
