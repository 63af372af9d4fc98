#!/usr/bin/env bash
# Prints the path of a Python virtualenv holding the real CalDAV / iCalendar
# clients the CalDAV server tests drive (the `caldav` library, vdirsyncer and
# the `icalendar` parser), created from PyPI on first use and cached.
exec "$(dirname "$0")/pip-venv.sh" caldav caldav==3.6.0 vdirsyncer==0.21.0 icalendar==7.3.0
