"""US electric utilities the advisor recognizes by name (the offline parser's vocabulary).

Names follow the utilities' own usage, as listed in EIA Form EIA-861 (2023 data release); the
aliases are how customers say them. Compiled for this project without network access, so the
list is the larger investor-owned, municipal and cooperative utilities, not all ~3,000: a
utility missing here is still accepted when the user names it in answer to the utility question
(kept as said), but never guessed from free text. `catalog` marks utilities whose plans the
built-in tariff catalog prices.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel, ConfigDict

UTILITIES_SOURCE = "EIA Form EIA-861, 2023 data release (utility names); aliases written for this project"
UTILITIES_AS_OF = "2023"


class Utility(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    states: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    default_plan: str | None = None  # the plan most customers are on (catalog utilities only)


# name, states, aliases (lowercase, matched as whole words after normalizing '&' spacing)
_TABLE: list[Utility] = [
    Utility(
        name="PG&E",
        states=("CA",),
        aliases=(
            "pg&e",
            "pge",
            "pg and e",
            "pacific gas and electric",
            "pacific gas & electric",
            "pacific gas",
        ),
        default_plan="E-TOU-C",
    ),
    Utility(
        name="SDG&E",
        states=("CA",),
        aliases=("sdg&e", "sdge", "sdg and e", "san diego gas and electric", "san diego gas & electric"),
    ),
    Utility(
        name="Southern California Edison",
        states=("CA",),
        aliases=("sce", "socal edison", "southern california edison", "so cal edison", "edison"),
    ),
    Utility(
        name="LADWP",
        states=("CA",),
        aliases=("ladwp", "la dwp", "los angeles department of water and power", "dwp"),
    ),
    Utility(name="SMUD", states=("CA",), aliases=("smud", "sacramento municipal utility district")),
    Utility(name="Silicon Valley Power", states=("CA",), aliases=("silicon valley power",)),
    Utility(name="Anaheim Public Utilities", states=("CA",), aliases=("anaheim public utilities",)),
    Utility(name="Riverside Public Utilities", states=("CA",), aliases=("riverside public utilities",)),
    Utility(
        name="Imperial Irrigation District", states=("CA",), aliases=("imperial irrigation district", "iid")
    ),
    Utility(name="Pasadena Water and Power", states=("CA",), aliases=("pasadena water and power", "pwp")),
    Utility(name="Glendale Water and Power", states=("CA",), aliases=("glendale water and power",)),
    Utility(name="Burbank Water and Power", states=("CA",), aliases=("burbank water and power",)),
    Utility(
        name="Liberty Utilities",
        states=("CA", "NH", "MO", "KS", "OK", "AR"),
        aliases=("liberty utilities", "liberty"),
    ),
    Utility(
        name="Con Edison", states=("NY",), aliases=("con edison", "coned", "con ed", "consolidated edison")
    ),
    Utility(name="National Grid", states=("NY", "MA", "RI"), aliases=("national grid",)),
    Utility(
        name="NYSEG",
        states=("NY",),
        aliases=("nyseg", "new york state electric and gas", "new york state electric & gas"),
    ),
    Utility(
        name="RG&E",
        states=("NY",),
        aliases=("rg&e", "rochester gas and electric", "rochester gas & electric"),
    ),
    Utility(
        name="Central Hudson", states=("NY",), aliases=("central hudson", "central hudson gas and electric")
    ),
    Utility(
        name="Orange & Rockland",
        states=("NY", "NJ"),
        aliases=("orange & rockland", "orange and rockland", "o&r"),
    ),
    Utility(
        name="PSE&G",
        states=("NJ",),
        aliases=("pse&g", "pseg", "public service electric and gas", "public service electric & gas"),
    ),
    Utility(
        name="PSEG Long Island",
        states=("NY",),
        aliases=(
            "pseg long island",
            "pseg li",
            "pseg-li",
            "lipa",
            "long island power authority",
            "pseg",
        ),  # "pseg" alone is PSE&G (listed first) unless the message is in NY
    ),
    Utility(
        name="JCP&L",
        states=("NJ",),
        aliases=(
            "jcp&l",
            "jcpl",
            "jersey central power and light",
            "jersey central power & light",
            "jersey central",
        ),
    ),
    Utility(name="Atlantic City Electric", states=("NJ",), aliases=("atlantic city electric", "ace")),
    Utility(name="Rockland Electric", states=("NJ",), aliases=("rockland electric",)),
    Utility(
        name="Eversource",
        states=("MA", "CT", "NH"),
        aliases=("eversource", "eversource energy", "ever source", "eva source", "nstar", "cl&p", "psnh"),
    ),
    Utility(name="Unitil", states=("MA", "NH", "ME"), aliases=("unitil",)),
    Utility(name="United Illuminating", states=("CT",), aliases=("united illuminating", "ui")),
    Utility(name="Rhode Island Energy", states=("RI",), aliases=("rhode island energy",)),
    Utility(name="Central Maine Power", states=("ME",), aliases=("central maine power", "cmp")),
    Utility(name="Versant Power", states=("ME",), aliases=("versant power", "versant", "emera maine")),
    Utility(
        name="Green Mountain Power", states=("VT",), aliases=("green mountain power", "gmp", "green mountain")
    ),
    Utility(name="PECO", states=("PA",), aliases=("peco", "peco energy")),
    Utility(
        name="PPL Electric Utilities",
        states=("PA",),
        aliases=("ppl", "ppl electric", "ppl electric utilities"),
    ),
    Utility(name="Duquesne Light", states=("PA",), aliases=("duquesne light", "duquesne")),
    Utility(name="Met-Ed", states=("PA",), aliases=("met-ed", "met ed", "metropolitan edison")),
    Utility(name="Penelec", states=("PA",), aliases=("penelec", "pennsylvania electric")),
    Utility(name="Penn Power", states=("PA",), aliases=("penn power",)),
    Utility(name="West Penn Power", states=("PA",), aliases=("west penn power", "west penn")),
    Utility(
        name="BGE", states=("MD",), aliases=("bge", "baltimore gas and electric", "baltimore gas & electric")
    ),
    Utility(name="Pepco", states=("MD", "DC"), aliases=("pepco", "potomac electric power")),
    Utility(name="Delmarva Power", states=("DE", "MD"), aliases=("delmarva power", "delmarva")),
    Utility(name="Potomac Edison", states=("MD", "WV"), aliases=("potomac edison",)),
    Utility(
        name="Dominion Energy",
        states=("VA", "NC", "SC"),
        aliases=("dominion energy", "dominion", "dominion virginia power", "dominion energy virginia"),
    ),
    Utility(name="Appalachian Power", states=("VA", "WV"), aliases=("appalachian power", "apco")),
    Utility(name="Mon Power", states=("WV",), aliases=("mon power", "monongahela power")),
    Utility(
        name="Duke Energy",
        states=("NC", "SC", "FL", "IN", "OH", "KY"),
        aliases=(
            "duke energy",
            "duke",
            "duke energy carolinas",
            "duke energy progress",
            "duke energy florida",
        ),
    ),
    Utility(name="Santee Cooper", states=("SC",), aliases=("santee cooper",)),
    Utility(name="Georgia Power", states=("GA",), aliases=("georgia power",)),
    Utility(
        name="FPL",
        states=("FL",),
        aliases=("fpl", "florida power and light", "florida power & light", "gulf power"),
    ),
    Utility(name="TECO", states=("FL",), aliases=("teco", "tampa electric")),
    Utility(name="JEA", states=("FL",), aliases=("jea",)),
    Utility(name="OUC", states=("FL",), aliases=("ouc", "orlando utilities commission")),
    Utility(name="Alabama Power", states=("AL",), aliases=("alabama power",)),
    Utility(name="Mississippi Power", states=("MS",), aliases=("mississippi power",)),
    Utility(
        name="Entergy",
        states=("LA", "AR", "MS", "TX"),
        aliases=("entergy", "entergy louisiana", "entergy arkansas", "entergy mississippi", "entergy texas"),
    ),
    Utility(name="Cleco", states=("LA",), aliases=("cleco",)),
    Utility(name="TVA", states=("TN", "AL", "MS", "KY"), aliases=("tva", "tennessee valley authority")),
    Utility(name="Nashville Electric Service", states=("TN",), aliases=("nashville electric service", "nes")),
    Utility(
        name="MLGW",
        states=("TN",),
        aliases=("mlgw", "memphis light gas and water", "memphis light, gas and water"),
    ),
    Utility(name="EPB", states=("TN",), aliases=("epb", "epb chattanooga")),
    Utility(name="Knoxville Utilities Board", states=("TN",), aliases=("knoxville utilities board", "kub")),
    Utility(
        name="LG&E and KU",
        states=("KY",),
        aliases=("lg&e", "lge", "louisville gas and electric", "kentucky utilities", "lg&e and ku", "ku"),
    ),
    Utility(
        name="AEP",
        states=("OH", "TX", "IN", "MI", "KY", "OK", "LA", "AR", "VA", "WV", "TN"),
        aliases=(
            "aep",
            "american electric power",
            "aep ohio",
            "ohio power",
            "aep texas",
            "indiana michigan power",
            "i&m",
            "pso",
            "public service company of oklahoma",
            "swepco",
            "kentucky power",
        ),
    ),
    # FirstEnergy's companies (Ohio Edison, The Illuminating Company, Toledo Edison, Met-Ed, Penelec,
    # JCP&L, Mon Power, Potomac Edison…) as customers often name the holding company
    Utility(
        name="FirstEnergy", states=("OH", "PA", "NJ", "WV", "MD"), aliases=("firstenergy", "first energy")
    ),
    Utility(name="Ohio Edison", states=("OH",), aliases=("ohio edison",)),
    Utility(name="The Illuminating Company", states=("OH",), aliases=("illuminating company", "cei")),
    Utility(name="Toledo Edison", states=("OH",), aliases=("toledo edison",)),
    Utility(name="AES Ohio", states=("OH",), aliases=("aes ohio", "dp&l", "dayton power and light")),
    Utility(
        name="AES Indiana", states=("IN",), aliases=("aes indiana", "ipl", "indianapolis power and light")
    ),
    Utility(name="NIPSCO", states=("IN",), aliases=("nipsco", "northern indiana public service")),
    Utility(name="CenterPoint Energy", states=("TX", "IN"), aliases=("centerpoint", "centerpoint energy")),
    Utility(name="Oncor", states=("TX",), aliases=("oncor",)),
    # Texas retail electric providers (ERCOT areas): they set the price; Oncor, CenterPoint, AEP
    # Texas or TNMP deliver the power
    Utility(name="TXU Energy", states=("TX",), aliases=("txu", "txu energy")),
    Utility(name="Reliant Energy", states=("TX",), aliases=("reliant", "reliant energy")),
    Utility(name="Gexa Energy", states=("TX",), aliases=("gexa", "gexa energy")),
    Utility(name="Green Mountain Energy", states=("TX",), aliases=("green mountain energy",)),
    Utility(name="Direct Energy", states=("TX",), aliases=("direct energy",)),
    Utility(name="Champion Energy", states=("TX",), aliases=("champion energy",)),
    Utility(name="Rhythm Energy", states=("TX",), aliases=("rhythm energy",)),
    Utility(
        name="TNMP", states=("TX",), aliases=("tnmp", "texas-new mexico power", "texas new mexico power")
    ),
    Utility(name="Austin Energy", states=("TX",), aliases=("austin energy",)),
    Utility(
        name="Pedernales Electric Cooperative",
        states=("TX",),
        aliases=("pedernales", "pedernales electric", "pedernales co-op", "pedernales electric co-op", "pec"),
    ),
    Utility(name="CPS Energy", states=("TX",), aliases=("cps energy", "cps")),
    Utility(name="El Paso Electric", states=("TX", "NM"), aliases=("el paso electric", "epe")),
    Utility(
        name="Xcel Energy",
        states=("MN", "CO", "WI", "TX", "NM", "ND", "SD", "MI"),
        aliases=("xcel", "xcel energy", "northern states power", "public service company of colorado"),
    ),
    Utility(name="ComEd", states=("IL",), aliases=("comed", "com ed", "commonwealth edison")),
    Utility(name="Ameren", states=("IL", "MO"), aliases=("ameren", "ameren illinois", "ameren missouri")),
    Utility(name="DTE Energy", states=("MI",), aliases=("dte", "dte energy", "detroit edison")),
    Utility(name="Consumers Energy", states=("MI",), aliases=("consumers energy", "consumers")),
    Utility(name="We Energies", states=("WI", "MI"), aliases=("we energies", "wisconsin electric")),
    Utility(name="Alliant Energy", states=("WI", "IA"), aliases=("alliant", "alliant energy")),
    Utility(
        name="Madison Gas and Electric", states=("WI",), aliases=("madison gas and electric", "mge", "mg&e")
    ),
    Utility(name="Wisconsin Public Service", states=("WI",), aliases=("wisconsin public service", "wps")),
    Utility(name="Minnesota Power", states=("MN",), aliases=("minnesota power",)),
    Utility(name="Otter Tail Power", states=("MN", "ND", "SD"), aliases=("otter tail power", "otter tail")),
    Utility(
        name="MidAmerican Energy",
        states=("IA", "IL", "SD", "NE"),
        aliases=("midamerican", "midamerican energy"),
    ),
    Utility(name="Evergy", states=("KS", "MO"), aliases=("evergy", "westar", "kcp&l", "kcpl")),
    Utility(
        name="OG&E",
        states=("OK", "AR"),
        aliases=("og&e", "oge", "oklahoma gas and electric", "oklahoma gas & electric"),
    ),
    Utility(name="OPPD", states=("NE",), aliases=("oppd", "omaha public power district")),
    Utility(name="Lincoln Electric System", states=("NE",), aliases=("lincoln electric system", "les")),
    Utility(name="NPPD", states=("NE",), aliases=("nppd", "nebraska public power district")),
    Utility(
        name="Black Hills Energy",
        states=("SD", "WY", "CO", "MT"),
        aliases=("black hills energy", "black hills"),
    ),
    Utility(
        name="NorthWestern Energy", states=("MT", "SD", "NE"), aliases=("northwestern energy", "northwestern")
    ),
    Utility(name="Rocky Mountain Power", states=("UT", "WY", "ID"), aliases=("rocky mountain power", "rmp")),
    Utility(name="Pacific Power", states=("OR", "WA", "CA"), aliases=("pacific power", "pacificorp")),
    Utility(
        name="Portland General Electric",
        states=("OR",),
        aliases=("portland general electric", "portland general", "pge"),  # "pge" in Oregon
    ),
    Utility(name="Puget Sound Energy", states=("WA",), aliases=("puget sound energy", "pse")),
    Utility(name="Seattle City Light", states=("WA",), aliases=("seattle city light", "city light", "scl")),
    Utility(
        name="Snohomish County PUD",
        states=("WA",),
        aliases=("snohomish county pud", "snopud", "snohomish pud"),
    ),
    Utility(name="Tacoma Power", states=("WA",), aliases=("tacoma power",)),
    Utility(name="Chelan County PUD", states=("WA",), aliases=("chelan county pud", "chelan pud")),
    Utility(name="Clark Public Utilities", states=("WA",), aliases=("clark public utilities", "clark pud")),
    Utility(name="Avista", states=("WA", "ID"), aliases=("avista", "avista utilities")),
    Utility(name="Idaho Power", states=("ID", "OR"), aliases=("idaho power",)),
    Utility(name="NV Energy", states=("NV",), aliases=("nv energy", "nevada power", "sierra pacific power")),
    Utility(name="APS", states=("AZ",), aliases=("aps", "arizona public service")),
    Utility(name="SRP", states=("AZ",), aliases=("srp", "salt river project")),
    Utility(
        name="Tucson Electric Power",
        states=("AZ",),
        aliases=("tucson electric power", "tucson electric", "tep"),
    ),
    Utility(name="PNM", states=("NM",), aliases=("pnm", "public service company of new mexico")),
    Utility(name="Colorado Springs Utilities", states=("CO",), aliases=("colorado springs utilities", "csu")),
    Utility(name="Holy Cross Energy", states=("CO",), aliases=("holy cross energy",)),
    Utility(
        name="Hawaiian Electric",
        states=("HI",),
        # (HELCO and MECO were the Big Island's and Maui's companies, merged into Hawaiian Electric)
        aliases=(
            "hawaiian electric",
            "heco",
            "hawaiian electric company",
            "helco",
            "meco",
            "hawaii electric light",
        ),
    ),
    Utility(name="KIUC", states=("HI",), aliases=("kiuc", "kauai island utility cooperative")),
    Utility(name="Chugach Electric", states=("AK",), aliases=("chugach electric", "chugach")),
    Utility(
        name="Matanuska Electric Association",
        states=("AK",),
        aliases=("matanuska electric association", "mea"),
    ),
]

# Aliases that are also everyday words or too short to trust in free text: accepted only as a
# direct answer to "which utility serves your home?".
_ANSWER_ONLY = frozenset(
    {
        "edison",  # Southern California Edison as people say it; also a town in New Jersey
        "reliant",  # "we're reliant on propane"
        "ace",
        "ku",  # Kentucky Utilities as people say it; also the University of Kansas
        "ui",
        "nes",
        "les",
        "mea",
        "pse",
        "cps",
        "csu",
        "tep",
        "wps",
        "duke",
        "liberty",
        "consumers",
        "dominion",
        "northwestern",
        "chugach",
        "black hills",
        "versant",
        "cmp",
        "gmp",
        "green mountain",  # Green Mountain Power as people say it; also a town's and a mountain's name
        "cei",
        "pso",
        "iid",
        "pwp",
        "i&m",
        "o&r",
        "epe",
        "dwp",
        "city light",  # Seattle City Light as people say it ("its city light")
        "scl",
    }
)


_FILLER = frozenset(
    "it's its it is we have i have use we use with my our the electric energy power company utility".split()
)


# Words people shorten in utility names ("rocky mtn power", "duke enrgy" is a typo, not this)
_SHORT_WORDS = {
    "mtn": "mountain",
    "pwr": "power",
    "elec": "electric",
    "co-op": "cooperative",
    "coop": "cooperative",
}


def _normalize(text: str) -> str:
    text = text.lower().replace("’", "'")
    text = re.sub(r"\s*&\s*", "&", text)  # "PG & E" -> "pg&e"
    text = re.sub(r"\b(?:mtn|pwr|elec)\b\.?", lambda m: _SHORT_WORDS[m.group(0).rstrip(".")], text)
    return re.sub(r"\s+", " ", text)


def _alias_pattern(alias: str) -> str:
    return r"(?<![\w&])" + re.escape(_normalize(alias)).replace(r"\ ", r"\s+") + r"(?![\w&])(?:'s)?"


@lru_cache(maxsize=2)
def _patterns(answer: bool) -> list[tuple[re.Pattern[str], Utility, str]]:
    entries = []
    for utility in _TABLE:
        for alias in (utility.name.lower(), *utility.aliases):
            if not answer and alias in _ANSWER_ONLY:
                continue
            entries.append((alias, utility))
    entries.sort(key=lambda item: -len(item[0]))  # longest alias first: "pseg long island" before "pseg"
    return [(re.compile(_alias_pattern(alias)), utility, alias) for alias, utility in entries]


@lru_cache(maxsize=4096)  # asked per clause and per message of one reading: read once
def find_utility(
    text: str, *, answer: bool = False, about_utility: bool = False, state: str | None = None
) -> tuple[Utility, str] | None:
    """The utility named in `text` and the words that named it. `answer=True` (a reply to the
    utility question) also accepts short aliases that are ordinary words elsewhere, in a short
    answer — or anywhere when the text is about the utility ("our utility is dominion"). `state`:
    where the user is; an alias two utilities share ("pge") is the one serving that state."""
    normalized = _normalize(text)
    best: tuple[int, int, Utility, str] | None = None
    for pattern, utility, alias in _patterns(answer):
        match = pattern.search(normalized)
        if match and alias in _ANSWER_ONLY and not about_utility:
            rest = (normalized[: match.start()] + " " + normalized[match.end() :]).split()
            if len([word for word in rest if word not in _FILLER]) > 1:
                continue  # "the ace of spades" is not Atlantic City Electric
        if match is None or _word_sense(alias, normalized, match):
            continue
        elsewhere = int(state is not None and state not in utility.states)
        if best is None or (match.start(), elsewhere) < (best[0], best[1]):
            best = (match.start(), elsewhere, utility, match.group(0))
    return (best[2], best[3]) if best else None


# Aliases that are also words of a sentence, told apart by the words around them: the word-use
# after the alias, unless the words before it name a company ("we're with reliant on a flat plan")
_WORD_SENSES = {
    "reliant": (
        re.compile(r"^\s+(?:up)?on\b"),
        re.compile(r"\b(?:with|w/?|went\s+w(?:ith|/)?|from|by|through|via|use|using)\s*$"),
    ),
}


def _word_sense(alias: str, text: str, match: re.Match[str]) -> bool:
    """ "we're reliant on propane": the alias used as the word it also is."""
    senses = _WORD_SENSES.get(alias)
    if senses is None:
        return False
    after, company_before = senses
    return (
        after.match(text[match.end() :]) is not None and company_before.search(text[: match.start()]) is None
    )


@lru_cache(maxsize=1)
def utility_words() -> frozenset[str]:
    """Every word of every utility's names ("entergy", "evergy", "dominion"): names, never typing slips."""
    return frozenset(
        word
        for utility in _TABLE
        for name in (utility.name, *utility.aliases)
        for word in re.findall(r"[a-z]+", name.lower())
    )


def is_word_alias(alias: str) -> bool:
    """ "ace", "edison", "reliant": a utility's short name that is also an ordinary word or a town."""
    return _normalize(alias) in _ANSWER_ONLY


def usual_plan(name: str | None) -> str | None:
    """The catalog's usual plan of the utility named (None when unknown or it has none)."""
    utility = utility_named(name) if name else None
    return utility.default_plan if utility is not None else None


def utility_named(name: str) -> Utility | None:
    """The table entry for a stored utility name (exact name or alias)."""
    found = find_utility(name, answer=True)
    return found[0] if found else None


def utilities_in(state: str) -> list[Utility]:
    return [utility for utility in _TABLE if state in utility.states]


# A utility the table does not know, recognised by the shape of its name: a proper name and the
# word utilities end in ("Singing River Electric", "Custer Public Power District", "Jackson EMC",
# "Kootenai Electric Co-op"), or a capitalised acronym said as their utility ("EWEB customer").
# Only where the words say it is theirs: after "on / with / from / by / through", before
# "customer / member / territory", or as the utility they name ("our co-op is …").
_HEADS = (
    r"electric(?:al)?(?:\s+(?:co-?op(?:erative)?|cooperative|membership\s+corp(?:oration)?|association|company|"
    r"department|system|power\s+association|utility|authority|board))?|"
    r"(?:rural\s+)?electric\s+co-?op(?:erative)?|e\.?m\.?c|r\.?e\.?m\.?c|r\.?e\.?c\.?c|r\.?e\.?c|r\.?e\.?a|p\.?u\.?d|"
    r"public\s+(?:power|utility)\s+district|power\s+(?:&|and)\s+light|light\s+(?:&|and)\s+power|"
    r"(?:municipal\s+)?utilities|power\s+(?:company|district|board|authority)|co-?op(?:erative)?|"
    r"energy(?:\s+co-?op(?:erative)?)?|power"
)
_SHAPED = re.compile(
    r"(?<![\w&-])(?P<name>(?:[a-z][\w'.-]*\s+){0,3}?[a-z][\w'.-]*)\s+(?P<head>" + _HEADS + r")(?![\w&-])",
    re.I,
)
_THEIRS_BEFORE = re.compile(
    # ("member of tri-county emc": a co-op's member is its customer)
    # ("37206 nashville electric": a ZIP and then their utility, as people list their facts)
    r"(?:^|[,;(:]|\b\d{5}|\b(?:on|with|w/|from|by|through|thru|via|is|it'?s|its|use|have|get|got|pay|called|named|member\s+of)|"
    r"\b(?:co-?op|utility|provider|power\s+company|electric\s+company)(?:\s+is)?)\s*$",
    re.I,
)
_THEIRS_AFTER = re.compile(
    r"^\s*(?:customers?|members?|territory|service\s+area|is\s+(?:my|our)\s+(?:utility|co-?op))\b", re.I
)
# words a name made of ordinary words starts with: no utility is called "more power" or "solar energy"
_NOT_A_NAME = frozenset(
    "a an the my our your their his her its this that these those some any no more less much most all every "
    "each other another same new old local rural city county state public private whole home house solar "
    "green clean renewable wind nuclear hydro coal gas electric electricity power energy utility utilities "
    "co-op coop cooperative cheap cheaper expensive extra free full half peak off-peak backup back-up battery "
    "grid save saving saved saves use using used need needs want wants get got have has had is are was were "
    "be been being on with from by through to for of in at as and or but so if then than like just only "
    "also too very really pretty kinda sort tesla sunrun sunpower generac enphase franklin lg vivint "
    "tva ercot pjm miso caiso nyiso spp tou ev phev hybrid kw kwh which what who whose where when how why "
    "we i you they he she it me us them not never always usually about everything else anything nothing "
    "something do does did make makes made run runs running produce produces generate generates buy sell "
    "sold pay paid cost costs switch switched call called named go went still even yet here there out up "
    "down off over under into onto per via thru w our".split()
)
_EQUIPMENT_NOUNS = frozenset(
    "water heater heaters furnace furnaces dryer dryers washer stove stoves oven ovens range car cars truck "
    "panels panel pump pumps pool tub boiler fridge freezer kitchen garage basement house heat heating cooling "
    "ac hvac car's dryer's stove's oven's range's house's heater's tank".split()
)
_NOT_ACRONYMS = frozenset(
    "EV EVS AC HVAC TOU SEER SEER2 EER HSPF AFUE PHEV BEV WFH HOA LED USA US DIY BTU NEM CARE FERA PSPS "
    "SGIP KW KWH ID OK LOL IDK TMRW ASAP BMW GMC VW EOD IRA IRS DOE EPA FAQ PM AM ADU RV UPS TV PC "
    "TVA ERCOT PJM MISO CAISO NYISO SPP NREL EIA HERS MPG MPGE SUV".split()
)
_ACRONYM = re.compile(
    r"(?:\b(?:on|with|w/|from|by|through|via|utility\s+is|provider\s+is|co-?op\s+is)\s+(?P<after>[A-Z]{2,6})\b"
    r"|\b(?P<before>[A-Z]{2,6})\s+(?=(?:customers?|members?|territory)\b))"
)


@lru_cache(maxsize=4096)
def utility_by_shape(text: str) -> tuple[str, str] | None:
    """A utility outside the table, named as theirs: ("Singing River Electric", "singing river
    electric"). The name is kept as said, capitalised; None when no such name is there."""
    for match in _SHAPED.finditer(text):
        named = _name_words(match.group("name").split())
        if not named or any(word.lower().removesuffix("'s") in _EQUIPMENT_NOUNS for word in named):
            continue  # "water heater's electric": what runs on electricity, not a utility's name
        start = match.end("name") - len(" ".join(named))
        said = text[start : match.end()]
        head = match.group("head")
        after = text[match.end() :]
        strong_after = _THEIRS_AFTER.match(after) is not None
        if not (_THEIRS_BEFORE.search(text[:start]) or strong_after):
            continue
        generic = re.fullmatch(r"energy|power|utilities|co-?op(?:erative)?", head, re.I) is not None
        # "xyz energy" / "abc power": a name of its own ("connexus") or typed as a name
        if (
            generic
            and not strong_after
            and not (_uncommon(named) or all(word[0].isupper() for word in named) or _town_named(named))
        ):
            continue
        if find_utility(said, answer=True) is None and not _names_a_vehicle(said):
            # "nashville electric": the first words of a utility the table knows by its whole name
            whole = [u.name for u in _TABLE if u.name.lower().startswith(said.lower() + " ")]
            return (whole[0] if len(whole) == 1 else _title(said)), said
    for match in _ACRONYM.finditer(text):
        acronym = match.group("after") or match.group("before")
        if acronym not in _NOT_ACRONYMS and len(acronym) >= 3 and find_utility(acronym, answer=True) is None:
            return acronym, acronym
    return None


def _name_words(words: list[str]) -> list[str]:
    """The proper name right before a utility word: the last words that are no ordinary word of a
    sentence ("we're with singing river" -> ["singing", "river"])."""
    named: list[str] = []
    for word in reversed(words):
        if word.lower().strip(".") in _NOT_A_NAME or not re.fullmatch(r"[A-Za-z][A-Za-z.-]*", word):
            break
        named.insert(0, word)
    return named[-3:] if len(named) <= 3 else []


def _uncommon(words: list[str]) -> bool:
    from knowledge.encoder import common_words

    common = common_words()
    return bool(common) and any(word.lower() not in common for word in words)


def _town_named(words: list[str]) -> bool:
    """ "huntsville utilities", "lakeland electric": a town's own (municipal) utility."""
    from advisor.places import is_us_town_name

    return is_us_town_name(" ".join(words))


def _names_a_vehicle(said: str) -> bool:
    from advisor.energy.vehicles import vehicle_spec

    return vehicle_spec(said) is not None


def _title(said: str) -> str:
    """ "singing river electric" -> "Singing River Electric"; "jackson emc" -> "Jackson EMC"."""
    words = []
    for word in said.split():
        bare = word.replace(".", "")
        if bare.lower() in ("emc", "remc", "recc", "rec", "rea", "pud"):
            words.append(bare.upper())
        elif word.lower() in ("co-op", "coop"):
            words.append("Co-op")
        elif word.lower() in ("and", "of"):
            words.append(word.lower())
        else:
            # ("tri-county emc" -> "Tri-County EMC": each part of a hyphenated name)
            words.append(
                word if word[:1].isupper() else "-".join(part.capitalize() for part in word.split("-"))
            )
    return " ".join(words)
