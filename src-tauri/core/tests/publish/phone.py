"""The phone: the Python `caldav` library on a published calendar's
collection, as a phone's calendar app would use it.

Usage: phone.py COLLECTION_URL USER PASSWORD COMMAND [ARGS...]

  list                      prints {uid: calendar text} of every event, as JSON
  create UID SUMMARY DATE   a one-hour event at 09:00 UTC on DATE (YYYY-MM-DD)
  retitle UID SUMMARY       changes an event's summary
  delete UID                deletes an event

Exits non-zero (with the reason) when the server refuses anything."""

import datetime
import json
import sys

import caldav

url, user, password, command, *args = sys.argv[1:]
client = caldav.DAVClient(url=url, username=user, password=password)
calendar = client.calendar(url=url)

if command == "list":
    out = {}
    for event in calendar.events():
        event.load()
        out[str(event.icalendar_component["uid"])] = event.data
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
elif command == "delete":
    (uid,) = args
    calendar.event_by_uid(uid).delete()
else:
    sys.exit(f"unknown command {command}")
