"""Offline place knowledge: which US ZIP prefixes exist (and their state and timezone), and
approximate coordinates of larger cities, for when geocoding is unavailable.

ZIP prefixes follow the USPS three-digit ranges per state; prefixes USPS never assigned are
refused, so "00000" or "99999" never become someone's home. Coordinates are city centres to
about 0.01 degree: good enough for weather and sun, labelled as approximate where used.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from advisor.energy.utilities import utility_named


class Place(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    state: str
    lat: float
    lon: float
    timezone: str


# (first, last, state) three-digit ZIP prefix ranges (USPS).
_ZIP3_RANGES = [
    (5, 5, "NY"),
    (6, 7, "PR"),
    (8, 8, "VI"),
    (9, 9, "PR"),
    (10, 27, "MA"),
    (28, 29, "RI"),
    (30, 38, "NH"),
    (39, 49, "ME"),
    (50, 54, "VT"),
    (55, 55, "MA"),
    (56, 59, "VT"),
    (60, 69, "CT"),
    (70, 89, "NJ"),
    (100, 149, "NY"),
    (150, 196, "PA"),
    (197, 199, "DE"),
    (200, 200, "DC"),
    (201, 201, "VA"),
    (202, 205, "DC"),
    (206, 219, "MD"),
    (220, 246, "VA"),
    (247, 268, "WV"),
    (270, 289, "NC"),
    (290, 299, "SC"),
    (300, 319, "GA"),
    (320, 339, "FL"),
    (341, 342, "FL"),
    (344, 344, "FL"),
    (346, 347, "FL"),
    (349, 349, "FL"),
    (350, 352, "AL"),
    (354, 369, "AL"),
    (370, 385, "TN"),
    (386, 397, "MS"),
    (398, 399, "GA"),
    (400, 418, "KY"),
    (420, 427, "KY"),
    (430, 459, "OH"),
    (460, 479, "IN"),
    (480, 499, "MI"),
    (500, 516, "IA"),
    (520, 528, "IA"),
    (530, 532, "WI"),
    (534, 535, "WI"),
    (537, 549, "WI"),
    (550, 551, "MN"),
    (553, 567, "MN"),
    (569, 569, "DC"),
    (570, 577, "SD"),
    (580, 588, "ND"),
    (590, 599, "MT"),
    (600, 620, "IL"),
    (622, 629, "IL"),
    (630, 631, "MO"),
    (633, 641, "MO"),
    (644, 658, "MO"),
    (660, 662, "KS"),
    (664, 679, "KS"),
    (680, 681, "NE"),
    (683, 693, "NE"),
    (700, 701, "LA"),
    (703, 708, "LA"),
    (710, 714, "LA"),
    (716, 729, "AR"),
    (730, 731, "OK"),
    (733, 733, "TX"),
    (734, 741, "OK"),
    (743, 749, "OK"),
    (750, 770, "TX"),
    (772, 799, "TX"),
    (800, 816, "CO"),
    (820, 831, "WY"),
    (832, 838, "ID"),
    (840, 847, "UT"),
    (850, 853, "AZ"),
    (855, 857, "AZ"),
    (859, 860, "AZ"),
    (863, 865, "AZ"),
    (870, 875, "NM"),
    (877, 884, "NM"),
    (885, 885, "TX"),
    (889, 891, "NV"),
    (893, 895, "NV"),
    (897, 898, "NV"),
    (900, 908, "CA"),
    (910, 928, "CA"),
    (930, 961, "CA"),
    (967, 968, "HI"),
    (969, 969, "GU"),
    (970, 979, "OR"),
    (980, 986, "WA"),
    (988, 994, "WA"),
    (995, 999, "AK"),
]

# The timezone most of each state keeps (states split across zones use their larger part).
STATE_TIMEZONES = {
    "AL": "America/Chicago",
    "AK": "America/Anchorage",
    "AZ": "America/Phoenix",
    "AR": "America/Chicago",
    "CA": "America/Los_Angeles",
    "CO": "America/Denver",
    "CT": "America/New_York",
    "DE": "America/New_York",
    "DC": "America/New_York",
    "FL": "America/New_York",
    "GA": "America/New_York",
    "HI": "Pacific/Honolulu",
    "ID": "America/Boise",
    "IL": "America/Chicago",
    "IN": "America/Indiana/Indianapolis",
    "IA": "America/Chicago",
    "KS": "America/Chicago",
    "KY": "America/New_York",
    "LA": "America/Chicago",
    "ME": "America/New_York",
    "MD": "America/New_York",
    "MA": "America/New_York",
    "MI": "America/Detroit",
    "MN": "America/Chicago",
    "MS": "America/Chicago",
    "MO": "America/Chicago",
    "MT": "America/Denver",
    "NE": "America/Chicago",
    "NV": "America/Los_Angeles",
    "NH": "America/New_York",
    "NJ": "America/New_York",
    "NM": "America/Denver",
    "NY": "America/New_York",
    "NC": "America/New_York",
    "ND": "America/Chicago",
    "OH": "America/New_York",
    "OK": "America/Chicago",
    "OR": "America/Los_Angeles",
    "PA": "America/New_York",
    "RI": "America/New_York",
    "SC": "America/New_York",
    "SD": "America/Chicago",
    "TN": "America/Chicago",
    "TX": "America/Chicago",
    "UT": "America/Denver",
    "VT": "America/New_York",
    "VA": "America/New_York",
    "WA": "America/Los_Angeles",
    "WV": "America/New_York",
    "WI": "America/Chicago",
    "WY": "America/Denver",
    "PR": "America/Puerto_Rico",
    "VI": "America/St_Thomas",
    "GU": "Pacific/Guam",
}

STATE_NAMES = {
    "alabama": "AL",
    "alaska": "AK",
    "arizona": "AZ",
    "arkansas": "AR",
    "california": "CA",
    "colorado": "CO",
    "connecticut": "CT",
    "delaware": "DE",
    "florida": "FL",
    "georgia": "GA",
    "hawaii": "HI",
    "idaho": "ID",
    "illinois": "IL",
    "indiana": "IN",
    "iowa": "IA",
    "kansas": "KS",
    "kentucky": "KY",
    "louisiana": "LA",
    "maine": "ME",
    "maryland": "MD",
    "massachusetts": "MA",
    "michigan": "MI",
    "minnesota": "MN",
    "mississippi": "MS",
    "missouri": "MO",
    "montana": "MT",
    "nebraska": "NE",
    "nevada": "NV",
    "new hampshire": "NH",
    "new jersey": "NJ",
    "new mexico": "NM",
    "new york": "NY",
    "north carolina": "NC",
    "north dakota": "ND",
    "ohio": "OH",
    "oklahoma": "OK",
    "oregon": "OR",
    "pennsylvania": "PA",
    "rhode island": "RI",
    "south carolina": "SC",
    "south dakota": "SD",
    "tennessee": "TN",
    "texas": "TX",
    "utah": "UT",
    "vermont": "VT",
    "virginia": "VA",
    "washington": "WA",
    "west virginia": "WV",
    "wisconsin": "WI",
    "wyoming": "WY",
}
# "CA" -> "California": how a passage's state is named to the user
STATE_TITLES = {code: name.title() for name, code in STATE_NAMES.items() if len(name) > 2}

# Parts of a state people name instead of a town ("long island, pseg"): the state they place a
# message in (a utility's name shared across states is then the one serving it). Only names that
# lie in one state; "the valley" or "the panhandle" could be anywhere.
REGION_STATES = {
    "long island": "NY",
    "upstate new york": "NY",
    "north jersey": "NJ",
    "south jersey": "NJ",
    "the jersey shore": "NJ",
    "bay area": "CA",
    "east bay": "CA",
    "socal": "CA",
    "so cal": "CA",
    "norcal": "CA",
    "inland empire": "CA",
    "hill country": "TX",
    "dfw": "TX",
    "rio grande valley": "TX",
    "upper peninsula": "MI",
    "twin cities": "MN",
    "cape cod": "MA",
    "eastern shore": "MD",
    "outer banks": "NC",
    "front range": "CO",
    "big island": "HI",
    "the big island": "HI",
    "metro atlanta": "GA",
}

# Approximate centres of the areas some ZIP prefixes cover (used offline to place a ZIP).
_ZIP3_AREAS = {
    "940": ("Peninsula (San Mateo County)", 37.56, -122.32),
    "941": ("San Francisco", 37.7749, -122.4194),
    "943": ("Palo Alto", 37.44, -122.14),
    "945": ("East Bay", 37.90, -122.06),
    "946": ("Oakland", 37.8044, -122.2712),
    "947": ("Berkeley", 37.8715, -122.2730),
    "948": ("Richmond", 37.94, -122.35),
    "949": ("Marin County", 38.00, -122.54),
    "950": ("San Jose", 37.3382, -121.8863),
    "951": ("San Jose", 37.3382, -121.8863),
    "956": ("Sacramento area", 38.58, -121.49),
    "958": ("Sacramento", 38.58, -121.49),
    "900": ("Los Angeles", 34.05, -118.24),
    "917": ("Inland Empire", 34.06, -117.65),
    "919": ("San Diego County", 32.7157, -117.1611),
    "920": ("San Diego County", 33.12, -117.09),
    "921": ("San Diego", 32.7157, -117.1611),
    "926": ("Orange County", 33.68, -117.83),
    "100": ("New York", 40.71, -74.01),
    "112": ("Brooklyn", 40.68, -73.94),
    "021": ("Boston", 42.36, -71.06),
    "606": ("Chicago", 41.88, -87.63),
    "981": ("Seattle", 47.61, -122.33),
    "972": ("Portland", 45.52, -122.68),
    "787": ("Austin", 30.27, -97.74),
    "770": ("Houston", 29.76, -95.37),
    "752": ("Dallas", 32.78, -96.80),
    "850": ("Phoenix", 33.45, -112.07),
    "802": ("Denver", 39.74, -104.99),
    "303": ("Atlanta", 33.75, -84.39),
    "331": ("Miami", 25.76, -80.19),
    "200": ("Washington", 38.91, -77.04),
}

# Larger cities (and the ones the tariff catalog's utilities serve), approximate centres.
_CITIES = [
    ("San Francisco", "CA", 37.7749, -122.4194),
    ("Oakland", "CA", 37.8044, -122.2712),
    ("Berkeley", "CA", 37.8715, -122.2730),
    ("San Jose", "CA", 37.3382, -121.8863),
    ("Palo Alto", "CA", 37.4419, -122.1430),
    ("Mountain View", "CA", 37.3861, -122.0839),
    ("Sunnyvale", "CA", 37.3688, -122.0363),
    ("Santa Clara", "CA", 37.3541, -121.9552),
    ("Fremont", "CA", 37.5485, -121.9886),
    ("Hayward", "CA", 37.6688, -122.0808),
    ("Walnut Creek", "CA", 37.9101, -122.0652),
    ("Concord", "CA", 37.9780, -122.0311),
    ("San Mateo", "CA", 37.5630, -122.3255),
    ("Redwood City", "CA", 37.4852, -122.2364),
    ("Santa Rosa", "CA", 38.4405, -122.7144),
    ("Sacramento", "CA", 38.5816, -121.4944),
    ("Fresno", "CA", 36.7378, -119.7871),
    ("Bakersfield", "CA", 35.3733, -119.0187),
    ("Santa Cruz", "CA", 36.9741, -122.0308),
    ("Monterey", "CA", 36.6002, -121.8947),
    ("San Luis Obispo", "CA", 35.2828, -120.6596),
    ("Stockton", "CA", 37.9577, -121.2908),
    ("Modesto", "CA", 37.6391, -120.9969),
    ("Chico", "CA", 39.7285, -121.8375),
    ("Los Angeles", "CA", 34.0522, -118.2437),
    ("Long Beach", "CA", 33.7701, -118.1937),
    ("Pasadena", "CA", 34.1478, -118.1445),
    ("Irvine", "CA", 33.6846, -117.8265),
    ("Anaheim", "CA", 33.8366, -117.9143),
    ("Riverside", "CA", 33.9806, -117.3755),
    ("San Diego", "CA", 32.7157, -117.1611),
    ("Chula Vista", "CA", 32.6401, -117.0842),
    ("Oceanside", "CA", 33.1959, -117.3795),
    ("Escondido", "CA", 33.1192, -117.0864),
    ("Carlsbad", "CA", 33.1581, -117.3506),
    ("La Jolla", "CA", 32.8328, -117.2713),
    ("Santa Barbara", "CA", 34.4208, -119.6982),
    ("New York", "NY", 40.7128, -74.0060),
    ("Brooklyn", "NY", 40.6782, -73.9442),
    # the boroughs people name as their town ("Manhattan" alone is not the one in Kansas)
    ("Manhattan", "NY", 40.7831, -73.9712),
    ("Queens", "NY", 40.7282, -73.7949),
    ("Buffalo", "NY", 42.8864, -78.8784),
    ("Rochester", "NY", 43.1566, -77.6088),
    ("Boston", "MA", 42.3601, -71.0589),
    ("Cambridge", "MA", 42.3736, -71.1097),
    ("Providence", "RI", 41.8240, -71.4128),
    ("Hartford", "CT", 41.7658, -72.6734),
    ("Philadelphia", "PA", 39.9526, -75.1652),
    ("Pittsburgh", "PA", 40.4406, -79.9959),
    ("Newark", "NJ", 40.7357, -74.1724),
    ("Baltimore", "MD", 39.2904, -76.6122),
    ("Washington", "DC", 38.9072, -77.0369),
    ("Richmond", "VA", 37.5407, -77.4360),
    ("Charlotte", "NC", 35.2271, -80.8431),
    ("Raleigh", "NC", 35.7796, -78.6382),
    ("Atlanta", "GA", 33.7490, -84.3880),
    ("Miami", "FL", 25.7617, -80.1918),
    ("Orlando", "FL", 28.5383, -81.3792),
    ("Tampa", "FL", 27.9506, -82.4572),
    ("Jacksonville", "FL", 30.3322, -81.6557),
    ("Nashville", "TN", 36.1627, -86.7816),
    ("Memphis", "TN", 35.1495, -90.0490),
    ("New Orleans", "LA", 29.9511, -90.0715),
    ("Chicago", "IL", 41.8781, -87.6298),
    ("Detroit", "MI", 42.3314, -83.0458),
    ("Columbus", "OH", 39.9612, -82.9988),
    ("Cleveland", "OH", 41.4993, -81.6944),
    ("Cincinnati", "OH", 39.1031, -84.5120),
    ("Indianapolis", "IN", 39.7684, -86.1581),
    ("Milwaukee", "WI", 43.0389, -87.9065),
    ("Madison", "WI", 43.0731, -89.4012),
    ("Minneapolis", "MN", 44.9778, -93.2650),
    ("St. Louis", "MO", 38.6270, -90.1994),
    ("Kansas City", "MO", 39.0997, -94.5786),
    ("Omaha", "NE", 41.2565, -95.9345),
    ("Dallas", "TX", 32.7767, -96.7970),
    ("Houston", "TX", 29.7604, -95.3698),
    ("Austin", "TX", 30.2672, -97.7431),
    ("San Antonio", "TX", 29.4241, -98.4936),
    ("Fort Worth", "TX", 32.7555, -97.3308),
    ("El Paso", "TX", 31.7619, -106.4850),
    ("Oklahoma City", "OK", 35.4676, -97.5164),
    ("Denver", "CO", 39.7392, -104.9903),
    ("Boulder", "CO", 40.0150, -105.2705),
    ("Salt Lake City", "UT", 40.7608, -111.8910),
    ("Phoenix", "AZ", 33.4484, -112.0740),
    ("Tucson", "AZ", 32.2226, -110.9747),
    ("Albuquerque", "NM", 35.0844, -106.6504),
    ("Las Vegas", "NV", 36.1699, -115.1398),
    ("Reno", "NV", 39.5296, -119.8138),
    ("Boise", "ID", 43.6150, -116.2023),
    ("Portland", "OR", 45.5152, -122.6784),
    ("Seattle", "WA", 47.6062, -122.3321),
    ("Spokane", "WA", 47.6588, -117.4260),
    ("Honolulu", "HI", 21.3069, -157.8583),
    ("Anchorage", "AK", 61.2181, -149.9003),
]


def zip_state(zip_code: str) -> str | None:
    """The state of a ZIP code's prefix, or None when USPS never assigned that prefix."""
    if not re.fullmatch(r"\d{5}", zip_code):
        return None
    prefix = int(zip_code[:3])
    return next((state for first, last, state in _ZIP3_RANGES if first <= prefix <= last), None)


def is_real_zip(zip_code: str) -> bool:
    return zip_state(zip_code) is not None


def zip_place(zip_code: str) -> Place | None:
    """The ZIP's town, state, coordinates and time zone from the bundled ZIP dataset (`zipcodes`:
    every US ZIP the USPS lists, with its centroid); its prefix area when the dataset lacks it."""
    listed = _zip_record(zip_code)
    if listed is not None:
        return listed
    state = zip_state(zip_code)
    area = _ZIP3_AREAS.get(zip_code[:3])
    if state is None or area is None:
        return None
    name, lat, lon = area
    return Place(name=name, state=state, lat=lat, lon=lon, timezone=STATE_TIMEZONES[state])


@lru_cache(maxsize=1)
def _city_index() -> dict[str, list[Place]]:
    index: dict[str, list[Place]] = {}
    for name, state, lat, lon in _CITIES:
        place = Place(name=name, state=state, lat=lat, lon=lon, timezone=STATE_TIMEZONES[state])
        index.setdefault(name.lower(), []).append(place)
    return index


_CITY_ALIASES = {
    "vegas": "las vegas",
    "philly": "philadelphia",
    "nyc": "new york",
    "sf": "san francisco",
    "l.a.": "los angeles",
    "la": "los angeles",  # "we're in LA on LADWP"; "baton rouge, LA" is read as a town and its state first
    "nola": "new orleans",
    "the bay": "san francisco",
    "dc": "washington",
    "d.c.": "washington",
    "slc": "salt lake city",
    "salt lake": "salt lake city",
    "atl": "atlanta",
    "chi-town": "chicago",
    "kc": "kansas city",
    "indy": "indianapolis",
    "pdx": "portland, or",
    "mpls": "minneapolis",
    "stl": "st louis",
    "sacto": "sacramento",
    "abq": "albuquerque",
    "jax": "jacksonville",
    "cbus": "columbus, oh",
    "okc": "oklahoma city",
    "htown": "houston",
    "nyc area": "new york",
}


def _display(name: str) -> str:
    """The ZIP dataset writes "Saint Louis" and "Port Saint Lucie"; the towns themselves write St."""
    return re.sub(r"(^|\s)Saint\s", r"\1St. ", name)


def _zip_record(zip_code: str) -> Place | None:
    import zipcodes  # the maintained ZIP dataset (MIT): 42,000 ZIPs with town, coordinates, time zone

    if not re.fullmatch(r"\d{5}", zip_code):
        return None
    try:
        found = zipcodes.matching(zip_code)
    except (ValueError, TypeError):
        return None
    record = next(
        (item for item in found if item.get("lat") and item.get("long") and item.get("timezone")), None
    )
    if record is None:
        return None
    return Place(
        name=_display(str(record["city"]).title()),
        state=str(record["state"]),
        lat=float(record["lat"]),
        lon=float(record["long"]),
        timezone=str(record["timezone"]),
    )


# Towns named like ordinary words are only taken with their state ("Power, MT"), never alone
_TOWN_ABBREVIATIONS = {
    "st": "saint",
    "st.": "saint",
    "ft": "fort",
    "ft.": "fort",
    "mt": "mount",
    "mt.": "mount",
}
_TOWN_ALONE_AT_LEAST = 3  # ZIPs a town needs to be known by its name alone


def _name_and_state(text: str) -> tuple[str, str, str | None] | None:
    """ "Portland, OR" -> ("portland, or", "portland", "or"): the cleaned text, the place name and
    the state as written (a code or a state's name), shared by the city table and the ZIP dataset."""
    cleaned = re.sub(r"[^\w\s.,'-]", " ", text).strip().strip(".,").lower()
    cleaned = re.sub(r"\s+", " ", cleaned)
    match = re.fullmatch(r"(.+?)(?:,?\s+([a-z]{2}|" + "|".join(STATE_NAMES) + r"))?", cleaned)
    if not match:
        return None
    name, state_text = match.group(1).strip(" ,"), match.group(2)
    return cleaned, name, state_text


def _names_a_word(name: str) -> bool:
    """ "Deal", "Bolt", "Pilot": a town name with a word of the language in it (and with no
    word list at hand, every name does)."""
    from knowledge.encoder import common_words

    words = common_words()
    return not words or any(word in words for word in name.lower().split())


def find_town(text: str, *, asked: bool = False) -> Place | None:
    """Any US town in the ZIP dataset: 'durham nc', 'santa fe', 'ann arbor', 'st louis'. Without a
    state, only a name most of whose ZIPs lie in one state (three times the next) and that has at
    least three ZIPs: 'Newton' (a town in eight states) or 'Power, MT' need the state. Callers use it
    where the words already say it is a place ("we live in …", a ZIP beside it, our question).
    `asked`: a town a question is about, answered for once and never saved, with its state said in
    the answer: twice the next state's ZIPs is enough ("freeze tonight in duluth": Minnesota's 14
    ZIPs against Georgia's 5)."""
    parsed = _name_and_state(text)
    if parsed is None:
        return None
    cleaned, name, state_text = parsed
    state = STATE_NAMES.get(state_text, state_text.upper()) if state_text else None
    if state is not None and state not in STATE_TIMEZONES:
        name, state = cleaned, None  # "new york" read as "new" + "york"
    name = _CITY_ALIASES.get(name, name)
    words = [_TOWN_ABBREVIATIONS.get(word, word) for word in name.split()]
    return _town(" ".join(words).title(), state, lead=2 if asked else 3)


@lru_cache(maxsize=1)
def _towns_by_other_name() -> dict[str, list[dict]]:
    """The dataset's other names of a ZIP's town ("Ramsey" for Anoka's 55303): the towns that
    share a post office, which people name as their own."""
    import zipcodes

    index: dict[str, list[dict]] = {}
    for item in zipcodes.list_all():
        if item.get("lat") and item.get("long"):
            for other in item.get("acceptable_cities") or ():
                index.setdefault(str(other).title(), []).append(item)
    return index


def _zips_of_town(name: str, state: str | None) -> list[dict]:
    """A town's ZIPs (in `state` if given): those it names as their town, else those it shares a
    post office with."""
    import zipcodes

    found = [item for item in zipcodes.filter_by(city=name) if item.get("lat") and item.get("long")]
    if state is not None:
        found = [item for item in found if item["state"] == state]
    others = [
        item for item in _towns_by_other_name().get(name, []) if state is None or item["state"] == state
    ]
    return found or others


@lru_cache(maxsize=2048)
def _town(name: str, state: str | None, lead: int = 3) -> Place | None:
    """`lead`: how many times the next state's ZIPs the town's own state must have."""
    found = _zips_of_town(name, state)
    by_state: dict[str, list[dict]] = {}
    for item in found:
        by_state.setdefault(str(item["state"]), []).append(item)
    if state is not None:
        chosen = by_state.get(state)
    else:
        ranked = sorted(by_state.values(), key=len, reverse=True)
        second = len(ranked[1]) if len(ranked) > 1 else 0
        alone = ranked and len(ranked[0]) >= _TOWN_ALONE_AT_LEAST and len(ranked[0]) >= lead * second
        # "I'm in Bettendorf": a town with one or two ZIPs, in one state only, whose name is no
        # common word (a town called "Power" or "Deal" still needs its state)
        # ("Ocean Springs": two words of the language, but no phrase of it)
        alone = alone or (len(ranked) == 1 and (len(name.split()) > 1 or not _names_a_word(name)))
        chosen = ranked[0] if alone else None
    if not chosen:
        return None
    zones = [str(item["timezone"]) for item in chosen if item.get("timezone")]
    return Place(
        name=_display(name),
        state=str(chosen[0]["state"]),
        lat=round(sum(float(item["lat"]) for item in chosen) / len(chosen), 4),
        lon=round(sum(float(item["long"]) for item in chosen) / len(chosen), 4),
        timezone=max(set(zones), key=zones.count) if zones else STATE_TIMEZONES[str(chosen[0]["state"])],
    )


@lru_cache(maxsize=2048)
def is_us_town_name(name: str) -> bool:
    """ "springfield", "st cloud", "boise": a name some US town or city bears (in any state)."""
    import zipcodes

    parsed = _name_and_state(name)
    if parsed is None:
        return False
    words = [_TOWN_ABBREVIATIONS.get(word, word) for word in _CITY_ALIASES.get(parsed[1], parsed[1]).split()]
    return find_city(name) is not None or bool(zipcodes.filter_by(city=" ".join(words).title()))


def find_city(text: str) -> Place | None:
    """'Oakland', 'oakland, ca', 'Portland OR' -> the city (None if unknown or ambiguous without a state)."""
    parsed = _name_and_state(text)
    if parsed is None:
        return None
    cleaned, name, state_text = parsed
    state = None
    if state_text:
        state = STATE_NAMES.get(state_text, state_text.upper())
    name = _CITY_ALIASES.get(name, name)
    candidates = _city_index().get(name) or _city_index().get(name.replace("saint ", "st. "))
    if not candidates and state_text:  # "new york" parsed as name "new" + state "york"? try whole
        candidates = _city_index().get(cleaned)
        state = None
    if not candidates:
        return None
    if state:
        candidates = [place for place in candidates if place.state == state]
    return candidates[0] if len(candidates) == 1 else None


def state_of(text: str) -> str | None:
    """'California' / 'CA' -> 'CA' (a state alone is not a place precise enough to keep)."""
    cleaned = text.strip().strip(".!").lower()
    if cleaned in STATE_NAMES:
        return STATE_NAMES[cleaned]
    return cleaned.upper() if cleaned.upper() in STATE_TIMEZONES and len(cleaned) == 2 else None


def _no_geocoder(_query: str) -> Place | None:
    return None


def derived_place(
    changes: list[tuple[str, object]], geocode: Callable[[str], Place | None] = _no_geocoder
) -> tuple[list[tuple[str, object]], Place | None]:
    """The fields a stated ZIP or city brings with it (its town, coordinates and time zone), found
    by `geocode` first and then the built-in tables; ([], None) when neither places it. Shared by
    the chat (remember) and App Home, so a place is derived the same way wherever it is changed."""
    values = dict(changes)
    place: Place | None = None
    extra: list[tuple[str, object]] = []
    if "location.zip_code" in values:
        code = str(values["location.zip_code"])
        place = geocode(code) or zip_place(code)
        if place is not None and "location.city" not in values:
            extra.append(("location.city", place.name))
    elif "location.city" in values:
        name = str(values["location.city"])
        place = find_city(name) or find_town(name) or geocode(name)
    if place is not None:
        extra += place_fields(place)
    return extra, place


def place_fields(place: Place) -> list[tuple[str, object]]:
    """A place's coordinates and time zone as profile field changes."""
    fields: list[tuple[str, object]] = [("location.lat", place.lat), ("location.lon", place.lon)]
    if place.timezone:
        fields.append(("location.timezone", place.timezone))
    return fields


def located(profile: Any) -> Any:
    """The profile with coordinates and time zone filled from its ZIP code or city when it has
    none (a profile imported or edited without them): for this turn's tools, never saved."""
    location = getattr(profile, "location", None)
    if location is None or (location.lat is not None and location.lon is not None):
        return profile
    place = (zip_place(location.zip_code) if location.zip_code else None) or (
        (find_city(location.city) or find_town(location.city)) if location.city else None
    )
    if place is None and location.city and location.utility_provider:
        # "Aspen" is a town in more than one state; a utility of one state (Holy Cross Energy) says which
        utility = utility_named(location.utility_provider)
        if utility is not None and len(utility.states) == 1:
            place = find_town(f"{location.city}, {utility.states[0]}")
    if place is None:
        return profile
    update: dict[str, object] = {"lat": place.lat, "lon": place.lon}
    if not location.timezone and place.timezone:
        update["timezone"] = place.timezone
    return profile.model_copy(update={"location": location.model_copy(update=update)})


def distance_km(a: Place, b: Place) -> float:
    """Great-circle distance between two places (haversine, mean Earth radius)."""
    from math import asin, cos, radians, sin, sqrt

    dlat, dlon = radians(b.lat - a.lat), radians(b.lon - a.lon)
    h = sin(dlat / 2) ** 2 + cos(radians(a.lat)) * cos(radians(b.lat)) * sin(dlon / 2) ** 2
    return 2 * 6371.0 * asin(sqrt(h))


@lru_cache(maxsize=1024)
def town_zips(name: str, state: str) -> tuple[str, ...]:
    """The ZIP codes of a town (the bundled ZIP dataset), for what a ZIP knows and a town does not."""
    import zipcodes

    return tuple(str(item["zip_code"]) for item in zipcodes.filter_by(city=name.title(), state=state))
