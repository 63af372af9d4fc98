"""Drives Almanac's MCP server with the official Python MCP client (PyPI `mcp`).

Usage: client.py SCENARIO TRANSPORT TARGET
  TRANSPORT `http`: TARGET is the /mcp URL, the token is in ALMANAC_TOKEN.
  TRANSPORT `stdio`: TARGET is the almanac binary, run as `TARGET mcp` with
  this process's environment (ALMANAC_TOKEN, XDG_*).
Scenarios:
  session    lists the tools with their hints, reads a week with a recurring
             event expanded, creates and edits an event, and is refused a
             delete (no elicitation, nobody to ask).
  read-only  sees only the read-only tools; a write tool is refused.
  elicit ID  deletes event ID, accepting the confirmation asked through
             elicitation.
  undo       creates an event, finds the change in list_changes and undoes it,
             accepting the confirmation asked through elicitation.
  retry      creates an event, then sends the same call again with the same
             idempotencyKey, concurrently and once more after.
  times      reads current_time, creates a zoned and an all-day event, and
             reads the week of Berlin's spring DST change (2026-03-29).
  handover DIR
             reads a week, then writes DIR/served and waits for DIR/go (the
             test starts the app meanwhile); then, in the same session,
             creates an event and reads the week again.
MCP_MODE picks how the client negotiates: `legacy` (the default: the
initialize handshake, where the server asks through elicitation requests) or
`auto` (protocol 2026-07-28 when the server has it: no handshake, and the
server asks through the call's InputRequiredResult).
Prints one JSON object of facts on its last line; the Rust test checks the
vault. Exits non-zero on any failed expectation.
"""

import asyncio
import json
import os
import sys

import httpx2
from mcp import Client, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client

WRITE_TOOLS = {"create_event", "update_event", "delete_event", "quick_add", "undo_change"}
READ_TOOLS = {
    "list_calendars", "list_events", "search_events", "get_event", "free_busy",
    "current_time", "upcoming_reminders", "list_changes",
}
FENCE = "<untrusted-calendar-data>"


def server(transport, target):
    if transport == "http":
        token = os.environ["ALMANAC_TOKEN"]
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
        return streamable_http_client(target, http_client=http)
    return StdioServerParameters(command=target, args=["mcp"], env=dict(os.environ))


def check(condition, message):
    if not condition:
        raise SystemExit(f"FAILED: {message}")


async def tools_by_name(client):
    listed = await client.list_tools()
    return {tool.name: tool for tool in listed.tools}


async def call(client, name, arguments):
    result = await client.call_tool(name, arguments)
    text = result.content[0].text if result.content else ""
    return result, text


async def session(client):
    facts = {}
    tools = await tools_by_name(client)
    check(set(tools) == READ_TOOLS | WRITE_TOOLS, f"tools: {sorted(tools)}")
    for name, tool in tools.items():
        hints = tool.annotations
        check(hints is not None, f"{name} has no annotations")
        check(hints.read_only_hint == (name in READ_TOOLS), f"{name} readOnlyHint")
        check(hints.destructive_hint is not None and hints.idempotent_hint is not None,
              f"{name} destructive/idempotent hints")
        check(tool.input_schema.get("type") == "object", f"{name} schema")
    check(tools["delete_event"].annotations.destructive_hint is True, "delete is destructive")
    check(tools["list_events"].annotations.destructive_hint is False, "a read is not destructive")
    facts["tools"] = sorted(tools)

    week, text = await call(client, "list_events", {"start": "2026-01-05", "end": "2026-01-11"})
    check(not week.is_error, f"list_events: {text}")
    check(text.count(FENCE) == 1 and "untrusted" in text, "note text is fenced as untrusted")
    data = week.structured_content["data"]
    check(week.structured_content["untrustedContent"] is True, "marked untrusted")
    gym = [e for e in data["events"] if e["title"] == "Gym"]
    check(len(gym) == 2, f"the weekly Gym (Mon, Thu) expanded in the week: {gym}")
    check(all(e["recurring"] and e["instanceDate"] for e in gym), "occurrences carry their date")
    check(gym[0]["start"].startswith("2026-01-05T07:00:00+01:00"), f"display zone: {gym[0]}")
    facts["weekTitles"] = sorted(e["title"] for e in data["events"])

    created, text = await call(client, "create_event", {
        "calendarId": "local",
        "event": {"title": "MCP lunch", "date": "2026-01-07", "startTime": "12:00",
                  "endTime": "13:00", "allDay": False},
    })
    check(not created.is_error, f"create_event: {text}")
    event_id = created.structured_content["data"]["created"]["id"]
    edited, text = await call(client, "update_event", {
        "id": event_id, "changes": {"title": "MCP lunch moved", "startTime": "12:30"},
    })
    check(not edited.is_error, f"update_event: {text}")
    facts["edited"] = edited.structured_content["data"]["updated"]

    standup = next(e for e in data["events"] if e["title"] == "Standup")
    refused, text = await call(client, "delete_event", {"id": standup["id"]})
    check(refused.is_error, f"a delete with nobody to ask must be refused: {text}")
    check("elicitation" in text and "Nothing was changed" in text, f"says how to allow it: {text}")
    facts["refusal"] = text
    facts["standupId"] = standup["id"]
    return facts


async def read_only(client):
    tools = await tools_by_name(client)
    check(set(tools) == READ_TOOLS - {"list_calendars", "list_changes"},
          f"an events:read token sees the read tools but list_calendars and list_changes: "
          f"{sorted(tools)}")
    result, text = await call(client, "create_event", {
        "calendarId": "local", "event": {"title": "Sneaky", "date": "2026-01-07"},
    })
    check(result.is_error and "events:write" in text, f"a write tool is refused: {text}")
    return {"tools": sorted(tools)}


async def elicit(client, event_id):
    result, text = await call(client, "delete_event", {"id": event_id})
    check(not result.is_error, f"delete after an accepted confirmation: {text}")
    return {"asked": ASKED, "deleted": result.structured_content["deleted"]}


async def undo(client):
    created, text = await call(client, "create_event", {
        "calendarId": "local",
        "event": {"title": "Mistaken lunch", "date": "2026-01-08", "allDay": True},
    })
    check(not created.is_error, f"create_event: {text}")
    listed, text = await call(client, "list_changes", {"token": "mcp test"})
    check(not listed.is_error, f"list_changes: {text}")
    change = listed.structured_content["data"]["changes"][0]
    undone, text = await call(client, "undo_change", {"id": change["id"]})
    check(not undone.is_error, f"undo_change after an accepted confirmation: {text}")
    return {"change": change, "asked": ASKED, "undo": undone.structured_content["data"]["change"]}


async def handover(client, signals):
    before, text = await call(client, "list_events", {"start": "2026-01-05", "end": "2026-01-11"})
    check(not before.is_error, f"list_events before: {text}")
    with open(os.path.join(signals, "served"), "w") as served:
        served.write("ok")
    go = os.path.join(signals, "go")
    for _ in range(1200):
        if os.path.exists(go):
            break
        await asyncio.sleep(0.1)
    check(os.path.exists(go), "the test never said go")
    created, text = await call(client, "create_event", {
        "calendarId": "local",
        "event": {"title": "After handover", "date": "2026-01-08", "allDay": True},
    })
    check(not created.is_error, f"create_event after the handover: {text}")
    after, text = await call(client, "list_events", {"start": "2026-01-05", "end": "2026-01-11"})
    check(not after.is_error, f"list_events after: {text}")
    return {
        "before": sorted({e["title"] for e in before.structured_content["data"]["events"]}),
        "after": sorted({e["title"] for e in after.structured_content["data"]["events"]}),
    }


async def retry(client):
    call_args = {
        "calendarId": "local",
        "idempotencyKey": "7f7c4c1e-2a51-4a8e-9a55-3f2f7c1b9d10",
        "event": {"title": "Retried lunch", "date": "2026-01-09", "startTime": "12:00",
                  "endTime": "13:00", "allDay": False},
    }
    first, second = await asyncio.gather(
        call(client, "create_event", call_args), call(client, "create_event", call_args))
    third = await call(client, "create_event", call_args)
    ids = []
    for result, text in (first, second, third):
        check(not result.is_error, f"create_event with a key: {text}")
        ids.append(result.structured_content["data"]["created"]["id"])
    return {"ids": ids}


async def times(client):
    now, text = await call(client, "current_time", {})
    check(not now.is_error, f"current_time: {text}")
    for event in (
        {"title": "Flight", "date": "2026-03-27", "startTime": "10:00", "endTime": "12:00",
         "allDay": False, "timezone": "America/New_York"},
        {"title": "Holiday", "date": "2026-03-28", "endDate": "2026-03-29", "allDay": True},
    ):
        created, text = await call(client, "create_event", {"calendarId": "local", "event": event})
        check(not created.is_error, f"create_event: {text}")
    week, text = await call(client, "list_events", {"start": "2026-03-26", "end": "2026-03-30"})
    check(not week.is_error, f"list_events: {text}")
    fields = ("timing", "displayZone", "startUtc", "endUtc", "startLocal", "endLocal",
              "start", "end")
    events = [{"title": e["title"], **{f: e[f] for f in fields}}
              for e in week.structured_content["data"]["events"]]
    return {"now": now.structured_content, "events": events}


ASKED = []


async def confirm(context, params):
    ASKED.append(params.message)
    return types.ElicitResult(action="accept", content={"confirm": True})


async def main():
    scenario, transport, target = sys.argv[1], sys.argv[2], sys.argv[3]
    callback = confirm if scenario in ("elicit", "undo") else None
    mode = os.environ.get("MCP_MODE", "legacy")
    async with Client(server(transport, target), mode=mode,
                      elicitation_callback=callback) as client:
        if scenario == "session":
            facts = await session(client)
        elif scenario == "read-only":
            facts = await read_only(client)
        elif scenario == "elicit":
            facts = await elicit(client, sys.argv[4])
        elif scenario == "retry":
            facts = await retry(client)
        elif scenario == "times":
            facts = await times(client)
        elif scenario == "undo":
            facts = await undo(client)
        elif scenario == "handover":
            facts = await handover(client, sys.argv[4])
        else:
            raise SystemExit(f"unknown scenario {scenario}")
        facts["protocol"] = client.protocol_version
    print(json.dumps(facts))


asyncio.run(main())
