"""Reads an iCalendar object on stdin with Debian's python3-icalendar and prints its VEVENTs as JSON (times in UTC).

With `--expand FROM TO` (ISO dates) it prints the occurrences python3-recurring-ical-events expands instead.
An object icalendar cannot parse exits non-zero with the error on stderr.
"""
import datetime
import json
import sys

import icalendar


def when(value):
    if value is None:
        return None
    v = value.dt
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            return {"floating": v.strftime("%Y-%m-%d %H:%M:%S")}
        return v.astimezone(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    return {"date": v.isoformat()}


def text(value):
    return None if value is None else str(value)


def event(component):
    categories = []
    cats = component.get("CATEGORIES")
    for item in cats if isinstance(cats, list) else ([cats] if cats is not None else []):
        categories.extend(str(c) for c in item.cats)
    geo = component.get("GEO")
    organizer = component.get("ORGANIZER")
    return {
        "uid": text(component.get("UID")),
        "summary": text(component.get("SUMMARY")),
        "description": text(component.get("DESCRIPTION")),
        "location": text(component.get("LOCATION")),
        "url": text(component.get("URL")),
        "start": when(component.get("DTSTART")),
        "end": when(component.get("DTEND")),
        "sequence": component.get("SEQUENCE"),
        "status": text(component.get("STATUS")),
        "class": text(component.get("CLASS")),
        "categories": categories,
        "geo": None if geo is None else [geo.latitude, geo.longitude],
        "organizer": None if organizer is None else {"cn": text(organizer.params.get("CN")), "value": str(organizer)},
        "recurrence_id": when(component.get("RECURRENCE-ID")),
    }


def main():
    calendar = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
    if len(sys.argv) == 4 and sys.argv[1] == "--expand":
        import recurring_ical_events
        start, end = datetime.date.fromisoformat(sys.argv[2]), datetime.date.fromisoformat(sys.argv[3])
        found = recurring_ical_events.of(calendar).between(start, end)
        print(json.dumps([{"uid": text(o.get("UID")), "summary": text(o.get("SUMMARY")), "start": when(o.get("DTSTART")), "end": when(o.get("DTEND"))} for o in found]))
        return
    print(json.dumps({
        "name": text(calendar.get("X-WR-CALNAME")),
        "timezones": [text(tz.get("TZID")) for tz in calendar.walk("VTIMEZONE")],
        "events": [event(c) for c in calendar.walk("VEVENT")],
    }))


main()
