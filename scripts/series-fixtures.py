#!/usr/bin/python3
"""Expected occurrences of recurrence rules from an independent implementation, Debian's python3-dateutil.

Run with Debian's Python (`apt-get install -y python3-dateutil`; `/usr/bin/python3 scripts/series-fixtures.py`).
It writes test/unit/fixtures/series-rules.json, which test/unit/series-rules.test.ts compares with our expansion.

The semantics mirror the series contract (D54, and RFC 5545 section 3.3.10): dateutil expands the rule in floating
wall-clock time from DTSTART; each local time is then placed in the zone with dateutil.tz: a local time that does
not exist (spring-forward gap) is skipped and not counted, an ambiguous one takes the first instant (fold=0).
COUNT counts the placed instances; an UNTIL date keeps its whole local day, an UNTIL UTC time compares instants;
exdates remove occurrences after counting; rdates add some. Open-ended rules stop at the case's horizon.
"""
import json
import os
from datetime import datetime, timezone

from dateutil import tz
from dateutil.rrule import rrulestr

FMT = '%Y-%m-%d %H:%M:%S'

CASES = [
    # name, rrule, start (local), zone, extra
    ('daily count', 'FREQ=DAILY;COUNT=10', '2027-01-10 09:00:00', 'Europe/Berlin', {}),
    ('daily interval', 'FREQ=DAILY;INTERVAL=3;COUNT=8', '2027-02-20 07:15:00', 'America/New_York', {}),
    ('weekly until date', 'FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270630', '2027-03-02 18:00:00', 'Europe/Berlin', {}),
    ('weekly until date keeps its last day', 'FREQ=WEEKLY;BYDAY=WE;UNTIL=20270630', '2027-06-02 18:00:00', 'Europe/Berlin', {}),
    ('wkst su interval 2', 'FREQ=WEEKLY;INTERVAL=2;WKST=SU;BYDAY=TU,SU;COUNT=8', '2027-08-03 09:00:00', 'America/New_York', {}),
    ('wkst mo interval 2', 'FREQ=WEEKLY;INTERVAL=2;WKST=MO;BYDAY=TU,SU;COUNT=8', '2027-08-03 09:00:00', 'America/New_York', {}),
    ('monthday 31', 'FREQ=MONTHLY;BYMONTHDAY=31;COUNT=10', '2027-01-31 10:00:00', 'Europe/Berlin', {}),
    ('monthday -1', 'FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=14', '2027-01-31 10:00:00', 'Australia/Sydney', {}),
    ('monthday 30 from january', 'FREQ=MONTHLY;BYMONTHDAY=30;COUNT=5', '2027-01-30 12:00:00', 'UTC', {}),
    ('monthly from the 31st', 'FREQ=MONTHLY;COUNT=7', '2027-01-31 12:00:00', 'Europe/Berlin', {}),
    ('yearly on 29 february', 'FREQ=YEARLY;COUNT=4', '2028-02-29 19:00:00', 'Europe/Berlin', {}),
    ('yearly bymonth bymonthday 29', 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=3', '2028-02-29 08:00:00', 'America/New_York', {}),
    ('last friday', 'FREQ=MONTHLY;BYDAY=-1FR;COUNT=12', '2027-01-29 17:00:00', 'Europe/Berlin', {}),
    ('second tuesday', 'FREQ=MONTHLY;BYDAY=2TU;COUNT=6', '2027-01-12 19:30:00', 'America/New_York', {}),
    ('last workday bysetpos -1', 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=12', '2027-01-29 16:00:00', 'Europe/Berlin', {}),
    ('third of tu we th bysetpos 3', 'FREQ=MONTHLY;BYDAY=TU,WE,TH;BYSETPOS=3;COUNT=6', '2027-01-07 10:00:00', 'UTC', {}),
    ('first and last monday every 2 months', 'FREQ=MONTHLY;INTERVAL=2;BYDAY=1MO,-1MO;COUNT=8', '2027-01-04 08:00:00', 'Australia/Sydney', {}),
    ('friday 13th', 'FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR;COUNT=5', '2027-08-13 20:00:00', 'Europe/Berlin', {}),
    ('election day', 'FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8;COUNT=3', '2028-11-07 09:00:00', 'America/New_York', {}),
    ('byyearday', 'FREQ=YEARLY;BYYEARDAY=1,100,200,-1;COUNT=10', '2027-01-01 12:00:00', 'Europe/Berlin', {}),
    ('byyearday negative', 'FREQ=YEARLY;BYYEARDAY=-306;COUNT=4', '2027-03-01 12:00:00', 'UTC', {}),
    ('byweekno monday', 'FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO;COUNT=5', '2027-05-17 09:00:00', 'Europe/Berlin', {}),
    ('byweekno first and last', 'FREQ=YEARLY;BYWEEKNO=1,-1;BYDAY=MO;COUNT=6', '2027-01-04 09:00:00', 'UTC', {}),
    ('byweekno wkst su', 'FREQ=YEARLY;BYWEEKNO=1;BYDAY=SU;WKST=SU;COUNT=4', '2027-01-03 09:00:00', 'UTC', {}),
    ('yearly 20th monday', 'FREQ=YEARLY;BYDAY=20MO;COUNT=3', '2027-05-17 09:00:00', 'Europe/Berlin', {}),
    ('yearly first sunday of jan and jun', 'FREQ=YEARLY;BYMONTH=1,6;BYDAY=1SU;COUNT=6', '2027-01-03 11:00:00', 'Australia/Sydney', {}),
    ('daily bymonth', 'FREQ=DAILY;BYMONTH=1,2;COUNT=10', '2027-01-28 06:00:00', 'America/New_York', {}),
    ('daily weekends', 'FREQ=DAILY;BYDAY=SA,SU;COUNT=8', '2027-01-02 10:00:00', 'Europe/Berlin', {}),
    ('daily bymonthday', 'FREQ=DAILY;BYMONTHDAY=1,15;COUNT=8', '2027-01-01 10:00:00', 'UTC', {}),
    ('weekly in december', 'FREQ=WEEKLY;BYMONTH=12;BYDAY=MO;COUNT=5', '2027-12-06 18:00:00', 'Europe/Berlin', {}),
    ('until utc time', 'FREQ=DAILY;UNTIL=20270310T170000Z', '2027-03-01 18:00:00', 'Europe/Berlin', {}),
    ('until utc time just before', 'FREQ=DAILY;UNTIL=20270310T165959Z', '2027-03-01 18:00:00', 'Europe/Berlin', {}),
    ('until utc across dst', 'FREQ=WEEKLY;UNTIL=20270401T220000Z', '2027-02-25 18:00:00', 'America/New_York', {}),
    ('count with exdates', 'FREQ=WEEKLY;COUNT=6', '2027-03-02 18:00:00', 'Europe/Berlin',
     {'exdates': ['2027-03-09 18:00:00', '2027-03-23 18:00:00']}),
    ('rdates and exdates', 'FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270331', '2027-03-02 18:00:00', 'Europe/Berlin',
     {'rdates': ['2027-04-07 18:00:00', '2027-03-06 10:00:00'], 'exdates': ['2027-03-02 18:00:00', '2027-03-18 18:00:00']}),
    ('berlin spring forward gap skipped', 'FREQ=DAILY;COUNT=5', '2027-03-26 02:30:00', 'Europe/Berlin', {}),
    ('berlin fall back first instant', 'FREQ=DAILY;COUNT=4', '2027-10-30 02:30:00', 'Europe/Berlin', {}),
    ('berlin weekly keeps wall clock', 'FREQ=WEEKLY;COUNT=10', '2027-03-09 18:00:00', 'Europe/Berlin', {}),
    ('berlin last sunday 02:30', 'FREQ=MONTHLY;BYDAY=-1SU;COUNT=12', '2027-01-31 02:30:00', 'Europe/Berlin', {}),
    ('new york spring forward gap', 'FREQ=DAILY;COUNT=4', '2027-03-13 02:30:00', 'America/New_York', {}),
    ('new york fall back', 'FREQ=DAILY;COUNT=4', '2027-11-06 01:30:00', 'America/New_York', {}),
    ('new york weekly across both', 'FREQ=WEEKLY;BYDAY=SU;UNTIL=20271231', '2027-03-07 01:30:00', 'America/New_York', {}),
    ('sydney spring forward gap', 'FREQ=DAILY;COUNT=4', '2027-10-02 02:30:00', 'Australia/Sydney', {}),
    ('sydney fall back', 'FREQ=DAILY;COUNT=4', '2027-04-03 02:30:00', 'Australia/Sydney', {}),
    ('sydney first sunday 02:15', 'FREQ=MONTHLY;BYDAY=1SU;COUNT=12', '2027-01-03 02:15:00', 'Australia/Sydney', {}),
    ('sydney until utc', 'FREQ=DAILY;INTERVAL=10;UNTIL=20271231T230000Z', '2027-09-01 20:00:00', 'Australia/Sydney', {}),
    ('open-ended weekly to horizon', 'FREQ=WEEKLY;BYDAY=MO,WE', '2027-06-14 18:00:00', 'Europe/Berlin',
     {'horizon_utc': '2027-12-31 23:59:59'}),
    ('open-ended monthly to horizon', 'FREQ=MONTHLY;BYMONTHDAY=15', '2027-06-15 12:00:00', 'America/New_York',
     {'horizon_utc': '2029-06-15 12:00:00'}),
    ('all-day weekly', 'FREQ=WEEKLY;BYDAY=SA;COUNT=6', '2027-03-06 00:00:00', 'Europe/Berlin', {'all_day': True}),
    ('all-day last day of month until date', 'FREQ=MONTHLY;BYMONTHDAY=-1;UNTIL=20280101', '2027-01-31 00:00:00',
     'America/New_York', {'all_day': True, 'exdates': ['2027-07-31']}),
]


def local_key(value, all_day):
    return value[:10] if all_day else value


def normalise(value):
    return value if len(value) > 10 else value + ' 00:00:00'


def expand(rule, start, zone_name, extra):
    zone = tz.gettz(zone_name)
    all_day = extra.get('all_day', False)
    count = until_local = until_utc = None
    core = []
    for part in rule.split(';'):
        name, value = part.split('=', 1)
        if name == 'COUNT':
            count = int(value)
        elif name == 'UNTIL' and len(value) == 8:
            until_local = datetime.strptime(value, '%Y%m%d').replace(hour=23, minute=59, second=59)
        elif name == 'UNTIL':
            until_utc = datetime.strptime(value, '%Y%m%dT%H%M%SZ').replace(tzinfo=timezone.utc)
        else:
            core.append(part)
    horizon = extra.get('horizon_utc')
    horizon = horizon and datetime.strptime(horizon, FMT).replace(tzinfo=timezone.utc)
    exdates = {local_key(normalise(d), all_day) for d in extra.get('exdates', [])}
    found = {}
    counted = 0
    for local in rrulestr(';'.join(core), dtstart=datetime.strptime(start, FMT)):
        if until_local and local > until_local:
            break
        aware = local.replace(tzinfo=zone, fold=0)
        if not all_day and not tz.datetime_exists(aware):
            continue
        utc = aware.astimezone(timezone.utc)
        if until_utc and utc > until_utc:
            break
        if horizon and utc > horizon:
            break
        counted += 1
        text = local.strftime(FMT)
        if local_key(text, all_day) not in exdates:
            found[local_key(text, all_day)] = (text, utc.strftime(FMT))
        if count is not None and counted >= count:
            break
    for rdate in extra.get('rdates', []):
        text = normalise(rdate)
        aware = datetime.strptime(text, FMT).replace(tzinfo=zone, fold=0)
        if local_key(text, all_day) not in exdates:
            found.setdefault(local_key(text, all_day), (text, aware.astimezone(timezone.utc).strftime(FMT)))
    return [{'local': local, 'utc': utc} for local, utc in sorted(found.values(), key=lambda o: o[1])]


def main():
    cases = []
    for name, rule, start, zone, extra in CASES:
        case = {'name': name, 'rrule': rule, 'start': start, 'zone': zone, **extra}
        case['expected'] = expand(rule, start, zone, extra)
        cases.append(case)
    out = os.path.join(os.path.dirname(__file__), '..', 'test', 'unit', 'fixtures', 'series-rules.json')
    with open(out, 'w') as f:
        json.dump({'generator': 'scripts/series-fixtures.py', 'cases': cases}, f, indent=1)
        f.write('\n')
    print(f'{len(cases)} cases written to {os.path.normpath(out)}')


main()
