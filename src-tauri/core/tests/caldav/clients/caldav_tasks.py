"""Tasks over CalDAV with the Python `caldav` library: the vault's tasks
listed as VTODOs (a Full Note task, a daily-note checkbox, an Obsidian Tasks
line), found by a VTODO time-range search, completed from the client, and a
new task saved. Usage: caldav_tasks.py BASE_URL TOKEN

Exits non-zero (an AssertionError with the reason) when anything is off; the
Rust test then checks the notes on disk."""

import datetime
import sys

import caldav
from caldav.lib.error import AuthorizationError

base, token = sys.argv[1], sys.argv[2]


def summary(obj):
    return str(obj.icalendar_component["summary"])


def summaries(objects):
    return sorted(summary(o) for o in objects)


client = caldav.DAVClient(url=base + "/", username="anyone", password=token)
calendars = {c.get_display_name(): c for c in client.principal().calendars()}
events, journal, tasks = calendars["Events"], calendars["Journal"], calendars["Tasks"]

# Each collection says what it holds.
assert sorted(events.get_supported_components()) == ["VEVENT", "VTODO"], events.get_supported_components()
assert tasks.get_supported_components() == ["VTODO"], tasks.get_supported_components()

# Tasks are VTODOs, events VEVENTs, each listed by its own kind.
assert summaries(events.todos()) == ["File taxes"], summaries(events.todos())
assert "File taxes" not in summaries(events.events()), summaries(events.events())
assert "Standup" in summaries(events.events())
assert summaries(journal.todos()) == ["Water plants"], summaries(journal.todos())
assert summaries(journal.events()) == ["Lunch"], summaries(journal.events())
assert summaries(tasks.todos()) == ["Order seeds", "Pay rent"], summaries(tasks.todos())

taxes = events.todos()[0].icalendar_component
assert str(taxes["status"]) == "NEEDS-ACTION", taxes
assert taxes["due"].dt == datetime.date(2026, 2, 2), taxes["due"].dt
assert "dtstart" not in taxes and "dtend" not in taxes, taxes

# A VTODO time-range search: the server's answer, not the library's filter.
def todos_between(calendar, start, end):
    found = calendar.search(
        todo=True,
        start=datetime.datetime(*start, tzinfo=datetime.timezone.utc),
        end=datetime.datetime(*end, tzinfo=datetime.timezone.utc),
        include_completed=True,
        post_filter=False,
    )
    return summaries(found)

assert todos_between(tasks, (2026, 2, 1), (2026, 2, 10)) == ["Pay rent"]
assert todos_between(tasks, (2026, 2, 10), (2026, 3, 10)) == ["Order seeds"]
assert todos_between(events, (2026, 2, 1), (2026, 2, 3)) == ["File taxes"]
assert todos_between(events, (2026, 1, 1), (2026, 2, 1)) == []

# Completed in the client: each kind of task.
for calendar, title in ((events, "File taxes"), (journal, "Water plants"), (tasks, "Pay rent")):
    todo = next(t for t in calendar.todos() if summary(t) == title)
    todo.complete()
    todo.load()
    assert str(todo.icalendar_component["status"]) == "COMPLETED", (title, todo.data)
    # Done tasks leave the pending list.
    assert title not in summaries(calendar.todos()), (title, summaries(calendar.todos()))

# A new task, due on a day; and one without any date.
events.save_todo(summary="Buy milk", due=datetime.date(2026, 2, 6), uid="caldav-todo-1")
milk = events.todo_by_uid("caldav-todo-1").icalendar_component
assert milk["due"].dt == datetime.date(2026, 2, 6), milk["due"].dt
assert str(milk["status"]) == "NEEDS-ACTION"
journal.save_todo(summary="Call mum", due=datetime.date(2026, 2, 5), uid="caldav-todo-3")
assert summaries(journal.todos()) == ["Call mum"], summaries(journal.todos())
events.save_todo(summary="Someday", uid="caldav-todo-2")
someday = events.todo_by_uid("caldav-todo-2").icalendar_component
# Placed on the day it arrived (the Rust test checks which).
assert isinstance(someday["due"].dt, datetime.date), someday

# Journals are refused, cleanly.
try:
    events.save_journal(summary="Dear diary", uid="caldav-journal-1")
    raise AssertionError("a journal was stored")
except AuthorizationError:  # 403, with the precondition the Rust test reads
    pass
print("caldav tasks ok")
