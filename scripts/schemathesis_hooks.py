"""Schemathesis hooks (loaded through schemathesis.toml): generators for the spec's own `format` names.

Each format names a grammar JSON Schema cannot write down, judged by the service's own reader
(src/http/spec-formats.ts, docs/decisions.md D135). Without a generator the fuzzer would send any text as a valid
date or URL; with one it sends what the grammar admits, so a refusal of such a value is a real finding.
"""

from datetime import datetime

import schemathesis
from hypothesis import strategies as st

# instants every zone writes with four-digit years, well inside what the readers take
_instants = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2099, 12, 31))

# `strtotime`: PHP's date texts (the forms the spec's description names) or a Unix timestamp
schemathesis.openapi.format(
    "strtotime",
    st.one_of(
        _instants.map(lambda d: d.strftime("%Y-%m-%d %H:%M:%S")),
        _instants.map(lambda d: d.strftime("%Y-%m-%d")),
        _instants.map(lambda d: str(int(d.timestamp()))),
        st.sampled_from(["now", "today", "tomorrow 9am", "next wednesday 4pm", "+5 days 11am", "-1 week"]),
    ),
)

# `iso-8601`: an instant, with or without its zone (without one it is UTC)
schemathesis.openapi.format(
    "iso-8601",
    st.one_of(
        _instants.map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")),
        _instants.map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%S")),
        _instants.map(lambda d: d.strftime("%Y-%m-%d")),
    ),
)

# `http-url`: an absolute http(s) URL with a host, or "" (clears the field)
schemathesis.openapi.format(
    "http-url",
    st.one_of(
        st.just(""),
        st.from_regex(r"\Ahttps?://[a-z][a-z0-9-]{0,20}(\.[a-z]{2,8}){0,2}(/[A-Za-z0-9._~-]{0,12}){0,3}\Z"),
    ),
)


# Rules between fields that JSON Schema cannot state for these parameters, and the spec states in words: a position
# takes both coordinates, and an event does not end before it starts. A well-formed request the fuzzer makes is
# completed to keep them (positive cases only: a negative case keeps what makes it wrong).
_PAIRS = (("geoloc_lat", "geoloc_lng"), ("geo_lat", "geo_lng"))


def _complete_pairs(values):
    for first, second in _PAIRS:
        if (first in values) != (second in values):
            present = values.get(first, values.get(second))
            missing = second if first in values else first
            values[missing] = "0" if isinstance(present, str) else 0
    return values


@schemathesis.hook
def map_case(context, case):
    meta = getattr(case, "meta", None)
    mode = getattr(getattr(getattr(meta, "generation", None), "mode", None), "value", None)
    if mode != "positive":
        return case
    if isinstance(case.query, dict):
        case.query = _complete_pairs(dict(case.query))
    if isinstance(case.body, dict):
        body = _complete_pairs(dict(case.body))
        if "start_date" in body and "end_date" in body:
            body["end_date"] = body["start_date"]  # an event may end as it starts
        case.body = body
    return case
