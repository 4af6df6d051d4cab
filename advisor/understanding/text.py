"""Reading a message's shape: Slack markup off, split into clauses, and for each clause whether it
is a question, a hypothetical, about someone else, negated or hedged.

Facts are only taken from clauses that are plain statements about the user (or their household):
"My neighbour has a heat pump" and "should I get a heat pump?" are not facts about the user.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache

from advisor.energy.utilities import utility_named
from knowledge.encoder import common_words

_SLACK_LINK = re.compile(r"<(?:https?|mailto):[^>|]*\|([^>]*)>|<(?:https?|mailto):([^>]*)>")
_SLACK_MENTION = re.compile(r"<[@#!][^>]*>")
_EMOJI = re.compile(r":[a-z0-9_+-]{2,40}:")
_MARKUP = re.compile(r"[*_~`]+")

# Sentence ends: . ! ? ; or a newline, but never the point inside "57.5" or "e.g.".
# ("we're in st. george w rocky mountain power": "St." and "Ft." begin a town's name, no sentence ends)
_SENTENCE = re.compile(
    r"(?<=[!?;\n])\s*|(?<=[^\d\s.]\.)(?<!\b[sS]t\.)(?<!\b[fF]t\.)\s+|(?<=\d\.)\s+(?=[A-Za-z])|\n+|\s+[—–]\s+|\s+-\s+"
)
# A request put last without its question mark: "anything we can do as renters", "any tips"
REQUEST_WITHOUT_MARK = (
    r"(?:(?:so|and|is\s+there)\s+)?(?:(?:anything|something)\s+(?:i|we|you)\s+(?:can|could|should)\s+do|"
    r"any\s+(?:tips|ideas|advice|way\s+to))\b"
)
# Clause joints inside a sentence: ", and", " and ", " but ", ", so". Kept coarse on purpose: a
# clause without its own subject inherits the previous one's ("...plan and drive a Model Y").
_JOINT = re.compile(
    r",?\s+(?:and|but|so|plus|also|though|while|\+|&)\s+(?=[a-z])|,\s+(?=(?:i|we|my|our|he|she|they|it|its|it'?s|when|what|how|why|where|which|who|should|can|could|would|is|are|do|does|will|"
    # ("…$380 last month, whys it so high": the question word with its "is" run in)
    r"whys|why'?s|whats|hows|how'?s|whens|when'?s|wheres|where'?s)\b)|"
    # "we're in 95814, thinking about a heat pump": the what-if starts its own clause (the ZIP is a fact)
    r",\s+(?=(?:thinking|considering|planning|wondering|hoping|looking\s+(?:at|into)|might|may|worth)\b)|"
    # "63116, not sure what plan": a doubt that names what it is about is its own clause (the ZIP is sure)
    r",\s+(?=(?:(?:honestly|tbh|and|but|lol|so)\s+)?(?:not\s+sure|idk|no\s+idea|dunno|don'?t\s+know|no\s+clue)\s+"
    r"(?:what|which|abt|about|the|my|our|if|who|how)\b)|"
    # "duke energy for sure, the plan i really dont know": a doubt about a thing of its own, its own clause
    r",\s+(?=(?:but\s+)?(?:the|our|my)\s+(?:[a-z-]+\s+){1,2}(?:i|we)\s+(?:really\s+|honestly\s+|just\s+)?"
    r"(?:don'?t|dont|do\s+not)\s+know\b)|"
    # "electric baseboard in a brooklyn co-op, anything we can do": the request put last is its own clause
    r",\s+(?=" + REQUEST_WITHOUT_MARK + r")|"
    # "just moved to spokane, avista is our utility i think": a doubt said at the end is the last
    # part's, not the town's before the comma
    # ("just moved to raleigh, duke energy i think but not sure": the same, with the doubt said twice)
    r",\s+(?=[^,]*?\b(?:i\s+think|i\s+believe|i\s+guess|probably)(?:\s+(?:but\s+)?(?:i'?m\s+|im\s+)?not\s+"
    r"(?:sure|100\s*%|positive|certain))?(?:[.!?]+[^,]*)?\W*$)|"
    # "xcel customer in denver, think we're on re-tou but not 100%": the doubt opens the part after
    r",\s+(?=(?:i\s+)?(?:think|believe|guess)\s+(?:we|i|it|its|it'?s|our|my)\b)|"
    # "sold the leaf last month, got a rivian": a new verb after the comma is the next statement
    r",\s+(?=(?:got|bought|leased|picked\s+up|put\s+in|installed|added|replaced|switched|moved|now\s+(?:have|drive|on|in|we|i))\b)|"
    # "ugh scratch that its 32 amps": what is withdrawn, then what is true
    r"(?<=\bthat)[,.!]?\s+(?=(?:it'?s|its|it\s+is|should\s+be|make\s+it|i\s+meant)\b)|"
    # "scratch that, charger is 48a", "no wait, undo that... it's national grid": the withdrawal,
    # then what is true, whatever its words
    r"(?:(?<=\bscratch\sthat)|(?<=\bundo\sthat)|(?<=\bcancel\sthat)|(?<=\bignore\sthat))(?:[,.!:;]+|…)\s*(?=\w)|"
    # "thats wrong its a model y not a 3", "that is incorrect, i live in montclair": what is wrong,
    # then what is true
    r"(?:(?<=\bwrong)|(?<=\bincorrect))[,.!:;]*\s+(?=(?:it'?s|its|it\s+is|we'?re|were|we\s+(?:have|are|use|got|drive)|"
    r"i\s+(?:live|have|drive|am)|i'?m|im|my|our|should\s+be|make\s+it|i\s+meant)\b)|"
    # "no wait 21211, the other one is my old place": what the other value was is a clause of its own
    r",\s+(?=the\s+(?:other|old|first|last|previous)\s+one\b)|"
    # "its the ioniq 5, the 6 was the one we test drove": what the other car was is its own clause
    r",\s+(?=the\s+[\w-]+\s+(?:was|were)\s+(?:the\s+one|my|our|his|her|their|a|an|just)\b)|"
    # "whens the cheapest time to run my dryer, xcel customer in 80203", "…, 4 people and we both work":
    # a self-description after a question's comma is a statement of its own
    r",\s+(?=(?:[\w&.-]+\s+){1,2}customers?\b|(?:\d{1,2}|two|three|four|five|six|seven|eight)\s+(?:people|ppl|of\s+us)\b)|"
    # "would a free nights plan be cheaper, there's 6 of us", "which is cheaper, ours is gas", "…, most
    # of our use is in the evening": what they say of their home after the question's comma
    # "when should i charge tonight, 94110": a ZIP said after the question's comma is where they are
    r",\s+(?=\d{5}\b(?:\s*[,.!]|\s+\w+\s*$|\s*$))|"
    r",\s+(?=there(?:'?s|\s+(?:are|is))\s+(?:\d{1,2}|two|three|four|five|six|seven|eight|just)\b|(?:ours|mine)\s+(?:is|are|'s)\b|"
    r"most\s+of\s+(?:our|my)\b)",
    re.I,
)

QUESTION_START = re.compile(
    # a greeting or filler before the question word: "yo whats the low tonight in boise"
    r"^\s*(?:(?:yo|hey|hi|hello|ok|okay|so|and|but|um+|uh+|also|quick\s+q(?:uestion)?|btw|roughly|approximately|please|pls|plz|"
    # ("ok fine lol what uses the most electricity": chat filler, however much of it)
    r"fine|lol|lmao|ha(?:ha)+|alright|aight|cool|well|hm+|bro|dude|ngl|tbh|oh|ah|gotcha|kk?|thanks|thx|ty|anyways?|"
    r"wait|sorry|"
    r"ballpark|honestly|just\s+curious|real\s+quick|curious)[,!.:]?\s+)*"
    r"(?:when|what|how|why|where|which|who|whats|what's|who'?s|whos|hows|how's|wheres|where's|whys|why's|am(?=\s+i\b)|"
    r"(?:does\s+)?(?:any\s?one|any\s?body)\s+know|is(?!\s+\d[\d.,]*\s*(?:$|[,.;!]))|are|r(?=\s+(?:there|u|you|they|we))|can|could|should(?!\s+be\b)|would|will|do|does|did|"
    r"tell\s+me|explain|give\s+me|plan(?!\s+(?:is|was|code|name)\b)|help|any(?=\s+(?!of\s+(?:us|them)\b)\w)|compare|"
    # an indirect question: "(I) want to know when to charge", "wondering if a heat pump is worth it"
    r"(?:(?:i|we)\s+)?(?:really\s+)?(?:want|need|would\s+like|'?d\s+like)\s+to\s+(?:know|find\s+out|figure\s+out)|"
    r"(?:(?:i'?m|we'?re|i\s+am|we\s+are)\s+)?(?:wondering|curious)|"
    # asked for someone: "husband asking if he can wait till midnight", "my wife asks when peak is"
    r"(?:(?:my|the)\s+)?[\w']+\s+(?:is\s+|was\s+|keeps\s+)?ask(?:ing|s|ed)\s+(?:me\s+|us\s+)?(?=(?:if|whether|when|how|what|why|which)\b))\b",
    re.I,
)
# "the heat pump goes in on the 14th", "being installed next tuesday": equipment still to come
_STILL_TO_COME = (
    r"\b(?:goes|going|gets|getting|being|will\s+be|to\s+be|is\s+scheduled\s+to|supposed\s+to)\s+"
    r"(?:in\b(?=\s+(?:on|next|this|in|tomorrow|tmrw|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"the\s+\d))|installed|put\s+in|hooked\s+up|wired\s+in)|(?:isn'?t|is\s+not|not)\s+(?:in|installed)\s+yet"
)
STILL_TO_COME = re.compile(_STILL_TO_COME, re.I)
_HYPOTHETICAL = re.compile(
    r"\b(?:if\s+(?:i|we|you)|what\s+if|if\s+(?:it|that|the\s+\w+)\s+(?:was|were)|suppose|imagine|would\s+(?:a|an|i|we|getting|switching|installing|adding|it\s+be\s+worth)|"
    r"thinking\s+(?:about|abt|bout|of)|considering|plan(?:ning)?\s+to|worth\s+(?:it|switching|getting|replacing|upgrading|converting|adding)|"
    r"(?:let'?s\s+)?say\s+(?:i|we)\s+(?:had|have|got)|hypothetically|haven'?t\s+decided|not\s+sold\s+yet|"
    r"we'?ll\s+(?:get|buy)|i'?ll\s+(?:get|buy)|someday|eventually|"
    r"want\s+to\s+(?:get|buy|install|add)|might|may\s+(?:get|buy)|look(?:ing|in'?)\s+(?:at|into)|someday|one\s+day|"
    r"hoping\s+to|going\s+to\s+(?:get|buy|install)|about\s+to\s+(?:get|buy)|wish|"
    # "im fixing to buy an equinox ev next month": about to, in the South
    r"fix(?:ing|in'?)\s+to\s+(?:get|buy|install|put|add|order|lease)|"
    # "my son is talking about buying me a chevy equinox ev for christmas": a gift still to come
    r"talk(?:ing|s|ed)?\s+(?:about|abt|of)\s+(?:buying|getting|leasing|putting|installing|adding)|"
    # "my wife wants a powerwall, im not convinced", "i say we should get a heat pump first"
    r"wants?\s+(?:a|an|one|us\s+to|to\s+get)|lean(?:ing)?\s+(?:towards?|toward)|borrow\w*|evaluat\w*|"
    # "my grandson keeps telling me to get one of those heat pumps": urged, not had
    r"(?:telling|tells|told|asking|asks|asked|bugging|nagging|pushing|wants)\s+(?:me|us)\s+to\s+(?:get|buy|install|put\s+in|switch|add)|"
    # "just compare EV-TOU-5 against the normal one": a plan weighed, not theirs
    # ("compare my options with peco": the options their own utility offers, compared)
    r"\bcompare\b(?!\s+(?:my|our|the)\s+(?:options|plans|rates|choices)\s+(?:with|at|from|on)\b)[^.?!;]{1,40}?\b(?:against|with|to|and)\b|"
    r"(?:getting|being|gets|will\s+be)\s+delivered|"
    # "buying a place near driggs that already has 12 kw", "were moving to a house in durham in the
    # spring": a home they do not live in yet; "the difference between a co-op and xcel": two weighed
    r"buy(?:ing)?\s+(?:a|the|this|that)\s+(?:place|house|home|condo|property|ranch|farm|cabin|townhouse)|"
    r"(?:we'?re|were|i'?m|im|we\s+are|i\s+am)\s+(?:\w+\s+)?moving\s+(?:to|into)\b|difference\s+between|"
    # "and for a 12kw" after an estimate: the next size asked about
    r"^\W*(?:(?:and|ok|okay|so|now)\s+)?(?:for\s+(?:a\s+|an\s+)?|with\s+(?:a|an)\s+)\d+(?:\.\d+)?\s*-?\s*kw\b(?!h)"
    r"(?!\s+(?:on|of)\s)|"
    + _STILL_TO_COME
    + r"|on\s+order|pre-?order\w*|reserv\w*|arriv(?:es|ing)\s+(?:in|next|on)|"
    r"(?:haven'?t|have\s+not|not\s+yet|didn'?t)\s+(?:picked\s+(?:it|her|him)\s+up|gotten|received|taken\s+delivery)|"
    r"(?:not|n'?t)\s+convinced|(?:we|i)\s+(?:should|could|ought\s+to)\s+(?:get|buy|install|add|switch|put\s+in|go)\b|"
    r"quotes?|quoted|bids?|proposal|estimate\s+for|est\.?\s+for|"
    # "estimate what 5 kw on our roof would make": a size asked about, not the one they have
    r"what\s(?:[^.?!;]|\.(?=\d)){1,60}?\bwould\s+(?:make|produce|generate|give|get|save|cost|do)|vs\.?|versus|test[-\s]?dr(?:iv|ov)\w*|rental\s+car|loaner|"
    r"(?:it|you|that|this|the\s+app|my\s+profile)\s+(?:says?|said|shows?|thinks?)\s+(?:that\s+)?(?:i|we)|"
    # "a neighbor tells me a heat pump would save us money": a claim reported, and what it would do
    r"(?:tells|told|says?|said|swears?|claims?)\s+(?:me|us)\b|would\s+(?:save|cut|lower|pay\s+(?:off|for))|"
    r"break[-\s]?even|pay\s*back|"
    # "we're swapping the wall connector for a 40A unit next month", "install is in 2 wks": not yet theirs
    r"next\s+(?:week|month|year|spring|summer|fall|autumn|winter)|in\s+(?:a|one|two|three|a\s+few|\d+)\s+(?:weeks?|wks?|months?|mos?))\b",
    re.I,
)
# "if that matters", "if it helps for the payback": why a fact is offered, not a condition on it
_IF_IT_MATTERS = re.compile(r"\bif\s+(?:that|it|this)\s+(?:matters|helps|changes\s+anything)\b.*$", re.I)
# Someone outside the household. A spouse, partner or kids share the home, so their car or their
# schedule is the household's and counts; a neighbour's heat pump does not.
_SOMEONE_ELSE = re.compile(
    # "dads leaf sits at our place on weekends but its his car"
    r"\b(?:it'?s|its)\s+(?:his|her|their)\s+(?:car|ev|truck)\b|"
    r"\b(?:dad|mom|brother|sister|neighbou?r|friend|boss|roommate|housemate)'?s\s+(?:leaf|tesla|car|ev|truck|bolt|rivian|model\s+\w)\b|"
    # "my roommate has a model 3": a roommate shares the home, not the car or the bill for it
    r"\b(?:my|our)\s+(?:roommates?|housemates?)\s+(?:just\s+)?(?:has|have|had|got|drives?|owns?|bought|leased?)\b|"
    # "my wife's parents in las cruces have a volt": a relative of a relative lives elsewhere
    r"\b(?:my|our)\s+\w+'?s\s+(?:parents?|moms?|mums?|dads?|mothers?|fathers?|brothers?|sisters?|grand\w+|"
    r"folks|family|cousins?|aunt|uncle)\b|"
    # "neighbor just put in a 10kw array and 2 powerwalls": the relation said bare, at the start
    r"^\W*(?:neighbou?rs?|friend|brother|sister|boss|coworker|co-worker|buddy|cousin)\s+(?:just\s+|finally\s+|recently\s+)?"
    r"(?:put|got|has|have|had|installed|bought|drives|owns|added|went)\b|"
    r"\b(?:(?:my|our|the)\s+(?:neighbou?rs?|friends?|brothers?|sisters?|moms?|mums?|dads?|mothers?|fathers?|parents?|"
    r"in-?laws?|cousins?|uncle|aunt|boss|co-?workers?|colleagues?|buddy|coworker|grandparents?|"
    # ("the grandson is bringing his tesla for the week": grandchildren visit, they do not live here)
    r"grandsons?|granddaughters?|grandkids?|grandchild(?:ren)?|grand\s*babies|nephews?|nieces?|"
    r"(?:son|daughter)s?-?in-?laws?|"
    # ("my landlord just put in a heat pump": in the home they live in)
    r"landlord(?!\s+(?:just\s+|finally\s+)?(?:put\s+in|installed|replaced|added|upgraded|switched|swapped)))|"
    r"(?:he|she|they)\s+(?:has|have|had|drives?|lives?|uses?|got|is|are|'s|'re|put|installed|added|bought|built)|"
    # "she's got a gas furnace, we have a heat pump": hers, not the user's
    r"(?:he|she)'?s\s+(?:got|on|in)\b|they'?(?:ve|re)\s+(?:got|on|in)\b|"
    r"(?:a|one)\s+(?:friend|neighbou?r|colleague)\s+of\s+mine|\w+\s+of\s+mine|borrow\w*|"
    r"(?:the|a|my|our)\s+(?:sales\s*(?:guy|man|person|rep)|salesman|installer|contractor|rep|tech|technician)\s+(?:said|says|told|claims?)|(?:a|my)\s+(?:friend|buddy|coworker|co-worker|colleague)\b|people\s+(?:who|with)|(?:someone|somebody)\s+(?:has|had|have|drives|owns|told|said|with)|next\s+door|"
    r"(?:the|a)\s+(?:guy|lady|woman|man|family|folks|people|couple)\s+(?:next|across|down|up|on)|"
    r"(?:the|our|my)\s+(?:previous|former|old|last)\s+(?:owners?|house|home|place|apartment|landlord|rental)|"
    # "my son's apartment", "our daughter's place": someone else's home
    r"(?:my|our)\s+\w+'s\s+(?:apartment|apt|house|home|place|condo|dorm|rental)|"
    r"(?:my|our)\s+(?:moms?|mums?|mamas?|mommas?|daddy|dads?|mothers?|fathers?|parents|folks|grandmas?|grandpas?|grannys?|"
    r"nanas?|papaws?|mamaws?|brothers?|sisters?)(?:'?s)?\b|"
    # "neighbor has 10kw and a battery", "bro just got a lightning": the person leads, no "my"
    # ("my bro in tulsa has 12kw solar": where they live said between)
    r"^\W*(?:my\s+|our\s+)?(?:neighbou?rs?|friends?|bro|brother|sister|sis|moms?|mums?|dads?|parents|in-?laws?|cousins?|boss|"
    r"co-?workers?)(?:\s+(?:in|from|down\s+in|up\s+in|out\s+in|over\s+in)\s+[a-z .]{2,25}?)?\s+(?:just\s+)?"
    r"(?:has|have|had|got|gets|drives?|uses?|says?|said|swears?)\b|"
    # "my duplex tenants …, both units have electric baseboard": the rental's units, not their home
    r"\b(?:both|all|the|my|our)\s+(?:units|apartments|rentals|rental\s+units)\s+(?:have|has|are|use|run)\b|"
    r"\b(?:my|our)\s+(?:[a-z-]+\s+)?tenants?\b|\bthe\s+tenants\b|"
    # "my restaurant off the strip", "my shop in tucson", "our commercial rate": a business, not home
    r"\b(?:my|our|the)\s+(?:restaurant|shop|store|business|office\s+building|church|warehouse|laundromat|salon|"
    r"bakery|cafe|clinic|daycare|commercial\s+(?:rate|building|account|property))\b|"
    r"\b(?:my|our)\s+rental\s+(?:on|in|at|over|down|property|unit|house|home)\b|"
    # "tenant downstairs bought a model 3": another household's, wherever it lives
    r"(?:the|my|our|a|\b)\s*tenants?\b(?:\s+(?:downstairs|upstairs|next\s+door|in\s+the\s+\w+))?\s+(?:just\s+)?"
    r"(?:bought|has|have|had|got|gets|drives?|owns?|wants?|uses?|pays?|works?|plugs?|charges?|lives?))\b|"
    # "church just got an e-transit van": a congregation's or a business's, said bare at the start
    r"^\W*(?:church|shop|store|restaurant|business|office|school|farm\s+shop)\s+(?:just\s+)?(?:got|has|bought|put|installed)\b",
    re.I,
)
# Someone inside the household: their car or schedule counts, but a profile keeps one EV, so a
# household member's car does not silently replace the user's own
HOUSEHOLD_MEMBER = re.compile(
    r"\b(?:wife|husband|partner|spouse|hubby|sons?|daughters?|kids?|teens?|roommates?|girlfriend|boyfriend|fiance|fiancee)"
    # "my wifes car", "husbands truck": the possessive typed without its apostrophe
    r"(?:'?s)?\b",
    re.I,
)
_SELF_DESCRIPTION = r"(?:[\w&.-]+\s+){1,2}customers?\b|(?:\d{1,2}|two|three|four|five|six|seven|eight)\s+(?:people|ppl|of\s+us)\b"
_SUBJECT_LEADS = re.compile(
    r"^\W*(?:(?:i|we|i'?m|im|we'?re|i'?ve|we'?ve|my|our|it'?s|its|it\s+is|that'?s|ours|mine)\b|"
    # "…, there's 6 of us", "…, most of our use is in the evening": their home, said after the question
    r"there(?:'?s|\s+(?:are|is))\s+(?:\d{1,2}|two|three|four|five|six|seven|eight|just)\b|most\s+of\s+(?:our|my)\b|"
    # "…, 94110": a ZIP said on its own is where they are
    r"\d{5}\b|" + _SELF_DESCRIPTION + ")",
    re.I,
)
# "we had solar at our old house in sacramento": a home they left is not this one
_PAST_HOME = re.compile(
    r"\b(?:our|my|the)\s+(?:old|previous|former|last)\s+(?:house|home|place|apartment|condo)\b|"
    # "i rent out a duplex in dearborn that has gas heat": the tenants' home, not theirs
    r"\brent(?:ing)?\s+out\b|\brental\s+(?:property|unit|house|place)\b|\bown\s+(?:a|two|three|\d)\s+rentals?\b|\bmy\s+tenants?\b|"
    # "my daughter in charlotte has a tesla": a relative who lives elsewhere
    r"\bmy\s+(?:daughter|son|kid|mom|dad|mother|father|parents|grandma|grandpa)\s+(?:in|at|up\s+in|down\s+in|out\s+in)\s+\w|"
    # "mama's down in dothan on alabama power": a parent who lives elsewhere, said the Southern way
    r"\b(?:my\s+)?(?:mama|momma|mom|daddy|dad|mother|father|grandma|grandpa|granny|nana|meemaw|papaw)(?:'s|s)?\s+"
    r"(?:is\s+|lives\s+)?(?:down|up|out|over)\s+(?:in|at|near)\s+\w|"
    # "the cabin near ennis is with vigilante electric": a second home is not the home we advise
    r"(?<!live\sin\s)(?<!live\sin\sa\s)\b(?:the|our|my|a)\s+(?:(?:little|small|old|family)\s+)?"
    r"(?:cabin|lake\s*house|beach\s*house|vacation\s+(?:home|house|place)|second\s+home|hunting\s+camp)\b",
    re.I,
)
# "forget the heat pump thing", "ignore what i said about the charger": what follows is withdrawn
WITHDRAWN = re.compile(
    # ("please forget that I said we have a heat pump", "nvm what i said about the heat pump")
    r"^\W*(?:(?:wait|no|nope|sorry|oops|actually|please|pls|plz|ok|okay|oh|and|also)\W+)*"
    r"(?:forget|ignore|disregard|scratch|take\s+back|undo|nvm|never\s*mind)\b",
    re.I,
)
FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|ive|we|we're|we've|my|our|me|us)\b", re.I)
NEGATION = re.compile(
    r"\b(?:don'?t|do\s+not|doesn'?t|does\s+not|no\s+longer|never|not|isn'?t|aren'?t|haven'?t|hasn'?t|"
    r"didn'?t|won'?t|without|sold|got\s+rid\s+of|removed|used\s+to\s+(?:have|own|drive|lease|be\s+on)|"
    # "we moved out of pge territory": the utility they left
    r"moved\s+(?:out\s+of|away\s+from)|"
    # "mge is wrong, we're alliant": the value said to be wrong is not theirs
    r"(?:is|was|are|were)\s+(?:wrong|incorrect|a\s+typo))\b",
    re.I,
)
# Only real doubt stops a fact: "I think it's PG&E" is how people state what they know, "not sure,
# maybe EV2-A" is not a fact.
_HEDGE = re.compile(
    # ("we drive a ioniq 5 maybe 1000 mi a month": "maybe" before miles, hours or monthly use rounds
    # a number no profile field holds; before a size, a price or a count it doubts the value)
    r"\b(?:i\s+guess|i\s+reckon|maybe(?!\s+(?:like\s+|about\s+|around\s+)?~?\d[\d,.]*\s*(?:miles?\b|mi\b|hours?\b|"
    r"hrs?\b|minutes?\b|mins?\b|kwh\s+(?:a|per|each|every)\s+(?:month|mo|day|year|yr)\b))|perhaps|not\s+sure|i'?m\s+not\s+certain|not\s+certain|might\s+be|"
    r"not\s+(?:100|a\s+hundred)(?=\s*(?:%|percent))|not\s+(?:totally|entirely|completely|positive|certain)(?:\s+sure)?|"
    r"(?:have|need|got)\s+to\s+(?:go\s+)?(?:check|look|double[-\s]?check|confirm)|don'?t\s+quote\s+me|"
    r"(?:lemme|let\s+me|gotta|i'?ll|will)\s+(?:double[-\s]?)?check|pretty\s+sure|fairly\s+sure|"
    # a soft hedge said after the value ("georgia power i think") doubts it; before it, it states it
    r"(?<=\w\s)(?:i\s+think|i\s+believe|probably)(?=\W*$)|"
    # … and anywhere in a clause asked back ("flat rate i think around 12 cents?")
    r"(?:i\s+think|i\s+believe|probably)(?=[^.!;?]*\?)|"
    # "either centerpoint or reliant": two values offered, neither said
    r"either(?=\s[^.?!;]{1,40}\bor\b)|"
    # "no clue why i typed aps": puzzled at a slip, not doubting a value
    r"could\s+be|possibly|(?:idk|no\s+idea|don'?t\s+know|dunno|no\s+clue)(?!\s+(?:why|how\s+(?:i|we|that|it)\b))|"
    r"can'?t\s+remember|don'?t\s+remember|"
    # "forgot which plan": doubt; "forgot my son is back from college", "forgot to mention": news
    # ("forgot the baby": someone left out of a count, news too)
    r"forgot(?!\s+(?:to\s+(?:mention|say|tell|add)|that|about|my|our|we|i|he|she|they|his|her|the\s+(?:dog|baby|kids?)))|"
    # "the battery's like 200 kwh right": asked to be confirmed, not stated
    r"(?<=\w\s)(?:right|correct|isn'?t\s+it)(?=\W*$))\b",
    re.I,
)
# "the solar is 6.5 kW, not 8": the "not" corrects an old value, it does not negate the statement.
_CORRECTION_TAIL = re.compile(
    r",?\s*(?:and\s+)?not\s+(?:the\s+|a\s+|an\s+)?[\w.&-]+(?:\s+[\w.&-]+){0,2}(?:\s*(?:kw|kwh|%|amps?|a|people|plan))?"
    # ("… 40 amp not 48, sorry": an apology after the old value changes nothing)
    r"\s*(?:anymore)?[.!]?(?:\s*[,.!]?\s*(?:sorry|my\s+bad|oops|typo|lol|haha|thx|thanks|ty)\b[.!]*)*\s*$",
    re.I,
)
# "that's not right, the charger is 32 amps": the "not" is about what we saved, not the new value
# "it's the ix not the i4": a "not" that names the old value inside the sentence
_NOT_THE_OLD = re.compile(r"(?<=\w)\s*,?\s+not\s+(?:the|a|an|my|our)\s+[\w.&-]+", re.I)
_CORRECTION_LEAD = re.compile(
    r"^\s*(?:(?:no|nope|nah)[,.!]?\s+)?(?:that'?s|thats|that\s+is|it'?s|its)\s+(?:not\s+(?:right|correct|it)|wrong)\b[\s,.!:-]*",
    re.I,
)
# "wait i mixed it up, …", "sorry i got confused, …", "my bad, …": an apology before what they put right
_MIXED_UP_LEAD = re.compile(
    r"^\W*(?:(?:wait|oops|sorry|ok|so|no|ah)\W+)*(?:i\s+(?:mixed|got)\s+(?:it|them|that|those|things)\s+"
    r"(?:mixed\s+)?up|i\s+got\s+(?:confused|it\s+wrong|that\s+wrong)|i\s+was\s+wrong|my\s+bad|my\s+mistake)\b[\s,.;:!-]*",
    re.I,
)
_SOFT_HEDGE = re.compile(r"\b(?:i\s+think|i\s+believe|probably|pretty\s+sure)\b", re.I)
# words around a doubt that add nothing ("not sure tbh", "honestly idk lol")
_FILLER = r"(?:tbh|honestly|tho|though|lol|really|exactly|haha|either|but|and|um|uh|so|ngl)"
_HEDGE_ONLY = re.compile(
    r"^\W*(?:"
    + _FILLER
    + r"\W+)*(?:"
    + _HEDGE.pattern
    + r"|i\s+think(?:\s+so)?|i\s+believe(?:\s+so)?|probably|"
    r"not\s+(?:100|a\s+hundred)\s*(?:%|percent)(?:\s+sure)?)(?:\W+" + _FILLER + r")*\W*$",
    re.I,
)
# Numbers people write as words ("five of us", "in two hours"); readers add their own phrases.
NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}

# Common typos people make in chat, read as meant (the stored message keeps what they typed).
_TYPOS = {
    "hwo": "how",
    "waht": "what",
    "wat": "what",
    "whats": "what's",
    "wht": "what",
    "tonite": "tonight",
    "tonigh": "tonight",
    "tmrw": "tomorrow",
    "tmr": "tomorrow",
    "tomorow": "tomorrow",
    "tommorow": "tomorrow",
    "chrage": "charge",
    "charg": "charge",
    "chargin": "charging",
    "shoud": "should",
    "shold": "should",
    "wen": "when",
    "whn": "when",
    "shuld": "should",
    "shoudl": "should",
    # vowels dropped, as thumbs type them
    "shld": "should",
    "shd": "should",
    "wld": "would",
    "cld": "could",
    "chrg": "charge",
    "chargeing": "charging",
    "cheeper": "cheaper",
    "hav": "have",
    "wer": "we're",
    "thats": "that's",
    "philly": "Philadelphia",
    "nyc": "New York",
    "cheper": "cheaper",
    "runing": "running",
    "dryr": "dryer",
    "nite": "night",
    "u": "you",
    "ur": "your",
    "pls": "please",
    "plz": "please",
    "elecricity": "electricity",
    "electicity": "electricity",
    "solor": "solar",
    "batery": "battery",
    "cheapist": "cheapest",
    "chepest": "cheapest",
    "im": "I'm",
    "dont": "don't",
    "thx": "thanks",
    "whens": "when's",
    "wheres": "where's",
    "hows": "how's",
    "dishwaher": "dishwasher",
    "dishwsher": "dishwasher",
    "diswasher": "dishwasher",
    "dishwahser": "dishwasher",
    "telsa": "Tesla",
    "tesal": "Tesla",
    "modl": "model",
}
_WORD = re.compile(r"[A-Za-z']+")
# Words the reader's patterns depend on: a one-letter slip in them ("hosue", "importnt") is read as
# the word: swapped letters from five letters up, one letter more, less or wrong from six, never a
# plural — so short and ordinary words are not "corrected" into others.
_DOMAIN_WORDS = (
    "house",
    "important",
    "electric",
    "electricity",
    "charger",
    "charging",
    "battery",
    "batteries",
    "solar",
    "panels",
    "heating",
    "cooling",
    "furnace",
    "baseboard",
    "priority",
    "retired",
    "schedule",
    "office",
    "evening",
    "evenings",
    "morning",
    "mornings",
    "tomorrow",
    "tonight",
    "utility",
    "powerwall",
    "heaters",
    "roommates",
    "environment",
    "comfort",
    "remember",
    "partner",
    "husband",
    "installed",
    "kilowatt",
    "dishwasher",
    "model",
)
# Real words next to those, never "corrected" into them ("charge" is not a typo of "charger").
_REAL_WORDS = frozenset(
    "charge charges charged heater heat heats panel cooler cooled office offices offer house housed houses hose "
    "horse mouse charter chargers batter heating heated evenly morn installs install partners remembered "
    "utilities cooking booking looking solar solace solid retire retiree retires schedules electrical "
    "priorities priority comforts comfy furnaces baseboards roommate kilowatts eating seating beating".split()
)


@lru_cache(maxsize=4096)
def _near_word(word: str) -> str:
    lowered = word.lower()
    if len(lowered) < 5 or lowered in _DOMAIN_WORDS or lowered in _REAL_WORDS or _a_real_word(lowered):
        return word
    close = difflib.get_close_matches(lowered, _DOMAIN_WORDS, n=1, cutoff=0.8)
    if (
        not close
        or lowered in (close[0] + "s", close[0] + "es")
        or close[0] in (lowered + "s", lowered + "es")
    ):
        return word  # a plural is not a typo
    swapped = sorted(close[0]) == sorted(lowered)  # two letters swapped: "hosue"
    return close[0] if swapped or (len(lowered) >= 6 and _one_edit(close[0], lowered)) else word


_SUFFIXES = ("ers", "er", "ing", "ed", "es", "s", "able", "ation", "ations")


def _a_real_word(word: str) -> bool:
    """A word of the encoder's vocabulary, or one of them with a common ending ("installer"):
    never a typo of a domain word."""
    words = common_words()
    return word in words or any(
        word.endswith(suffix) and len(word) - len(suffix) >= 4 and word[: -len(suffix)] in words
        for suffix in _SUFFIXES
    )


def _one_edit(a: str, b: str) -> bool:
    """One letter inserted, dropped or changed."""
    if abs(len(a) - len(b)) > 1:
        return False
    matcher = difflib.SequenceMatcher(None, a, b)
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal") <= 1


_SPOKEN_DIGITS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "nine": "9",
}
_SPOKEN_LETTERS = {"why": "y", "ex": "x", "es": "s", "three": "3"}


_UNITS = {
    "zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_DIGIT = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
_UNIT = "(?:" + "|".join(sorted(_UNITS, key=len, reverse=True)) + ")"
_TEN = "(?:" + "|".join(_TENS) + ")"
# a number said in words: "twenty five", "forty", "eleven"
_SPOKEN = rf"(?:{_TEN}(?:[\s-]+(?:one|two|three|four|five|six|seven|eight|nine))?|{_UNIT})"
# what makes a spoken number a quantity ("eleven kilowatts", "forty percent", "thirty miles")
_QUANTITY = (
    r"(?=\s*(?:%|percent|per\s+cent|kw\b|kwh|kilowatt|amps?\b|miles?\b|mi\b|cents?\b|degrees?\b|"
    r"people\b|hours?\b|gallons?\b|volts?\b|a\.?m\b|p\.?m\b|o'?clock))"
)


def _spoken_value(words: str) -> int:
    parts = re.split(r"[\s-]+", words.lower())
    if parts[0] in _TENS:
        return _TENS[parts[0]] + (_UNITS[parts[1]] if len(parts) > 1 else 0)
    return _UNITS[parts[0]]


def _spoken_numbers(text: str) -> str:
    """What voice typing writes for numbers, as digits where they are values: a ZIP read digit by
    digit ("two nine four zero one"), a decimal ("eight point two kilowatts"), a time ("four thirty
    am", "by six fifteen"), a quantity with its unit ("eleven kilowatts", "forty percent"). Words
    that are not values ("the electric one", "two of us") stay words."""
    text = re.sub(
        rf"\b{_DIGIT}(?:[\s-]+{_DIGIT}){{4}}\b",
        lambda m: "".join(str(_UNITS[w]) for w in re.split(r"[\s-]+", m.group(0).lower())),
        text,
        flags=re.I,
    )
    text = re.sub(
        rf"\b({_SPOKEN})\s+point\s+({_DIGIT}(?:\s+{_DIGIT})?)\b",
        lambda m: (
            f"{_spoken_value(m.group(1))}." + "".join(str(_UNITS[w]) for w in m.group(2).lower().split())
        ),
        text,
        flags=re.I,
    )
    text = re.sub(
        r"\b(?P<h>one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
        r"(?P<m>fifteen|thirty|forty[\s-]+five|oh\s+five|ten|twenty|forty|fifty)"
        r"(?=\s*(?:a\.?m\b|p\.?m\b|in\s+the\s+(?:morning|evening)|tonight|tomorrow|tmrw))",
        lambda m: (
            f"{_UNITS[m.group('h').lower()]}:{_spoken_value(m.group('m').replace('oh ', '').replace('oh', '')):02d}"
        ),
        text,
        flags=re.I,
    )
    # "by seven tomorrow morning", "leave at six": an hour after the word that sets a time
    text = re.sub(
        r"\b(by|at|before|until|til|till)\s+(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"
        r"(?!\s+(?:of|people|kids|hours?|days?|weeks?|months?|years?|miles?|cars?|evs?|minutes?|kw|kwh|point|time|stage|or)\b)",
        lambda m: f"{m.group(1)} {_UNITS[m.group(2).lower()]}",
        text,
        flags=re.I,
    )
    return re.sub(rf"\b({_SPOKEN}){_QUANTITY}", lambda m: str(_spoken_value(m.group(1))), text, flags=re.I)


def _spoken_names(text: str) -> str:
    """What voice typing makes of car and utility names: "tesla model why", "kia ev six", "ioniq
    five", "nissan leave", "bolt e u v", "pee gee and e" -> the names the tables know."""
    text = re.sub(
        r"\b(model)\s+(why|ex|es)\b(?=\W*(?:$|[,.!?]|\s+(?:and|to|at|by|is|on|with|tonight|tomorrow|tmrw|now)\b))",
        lambda m: f"{m.group(1)} {_SPOKEN_LETTERS[m.group(2).lower()]}",
        text,
        flags=re.I,
    )
    text = re.sub(
        r"\b(model|ev|ioniq|id\.?)\s+(one|two|three|four|five|six|seven|nine)\b",
        lambda m: f"{m.group(1)} {_SPOKEN_DIGITS[m.group(2).lower()]}",
        text,
        flags=re.I,
    )
    text = re.sub(r"\b(nissan)\s+leaves?\b", r"\1 leaf", text, flags=re.I)
    text = re.sub(r"\b(bolt)\s+e\s*u\s*v\b", r"\1 euv", text, flags=re.I)
    # "pee gee and e", "oh g and e", "s d g and e": utilities' initials as voice typing spells them
    return re.sub(
        r"\b(?P<lead>(?:s\s*d\s*)?(?:pee|p)|oh|o)\s*(?:gee|g)\s+(?:and|n|&)\s+(?:e|ee)\b",
        lambda m: {"pee": "PG&E", "p": "PG&E", "oh": "OG&E", "o": "OG&E"}.get(
            m.group("lead").lower(), "SDG&E"
        ),
        text,
        flags=re.I,
    )


def clean(text: str) -> str:
    """Text as a person reads it: links as their label, mentions/emoji/markup dropped, curly quotes
    straightened, whitespace collapsed."""
    text = _SLACK_LINK.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = _SLACK_MENTION.sub(" ", text)
    text = _EMOJI.sub(" ", text)
    text = _MARKUP.sub("", text)
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("−", "-")
    # "4 ppl", "we're 3 ppl": people. "PPL" in capitals, or lowercase where a utility stands ("ppl
    # customer", "we're with ppl"), is the utility (PPL Electric Utilities).
    text = re.sub(r"\b(\d+|two|three|four|five|six|seven|eight)\s+ppl\b", r"\1 people", text, flags=re.I)
    text = re.sub(
        r"(?<!\bwith\s)(?<!\bon\s)(?<!\bfrom\s)(?<!\bby\s)(?<!\bhave\s)(?<!\bits\s)(?<!\bit's\s)(?<!\bis\s)"
        r"\bppl\b(?!\s+(?:customers?|electric|utilit|territory|bills?|account|service|area|here))",
        "people",
        text,
    )
    text = _spoken_names(text)
    text = _spoken_numbers(text)
    # "about 5 and a half kw": 5.5, never 5 (a wrong size is worse than none)
    text = re.sub(r"\b(\d+)\s+and\s+a\s+half\b", r"\1.5", text, flags=re.I)
    text = _WORD.sub(lambda m: _TYPOS.get(m.group(0).lower(), m.group(0)), text)
    text = _WORD.sub(lambda m: _near_word(m.group(0)), text)
    # utility names with "and" in them must not be split into clauses: "pg and e", "gas and electric"
    text = re.sub(r"\b(pg|sdg|lg)\s+and\s+(e)\b", r"\1&\2", text, flags=re.I)
    # a name spelled letter by letter (voice typing): "M L G W" -> "MLGW", "p g and e" -> "pg&e"
    text = re.sub(
        r"\b([a-z](?:\s+[a-z])+)\s+and\s+([a-z])\b",
        lambda m: m.group(1).replace(" ", "") + "&" + m.group(2),
        text,
        flags=re.I,
    )
    text = re.sub(r"\b[a-z](?:\s+[a-z]){2,}\b", lambda m: m.group(0).replace(" ", ""), text, flags=re.I)
    text = re.sub(r"\bgas\s+and\s+electric\b", "gas & electric", text, flags=re.I)
    return re.sub(r"[ \t]+", " ", text).strip()


@dataclass(frozen=True)
class Clause:
    text: str
    question: bool
    hypothetical: bool
    someone_else: bool
    negated: bool
    hedged: bool
    household: bool = False  # names a household member ("my wife drives a Model Y")

    @property
    def about_user(self) -> bool:
        """A plain statement the user made about themself or their household."""
        return not (self.question or self.hypothetical or self.someone_else)


def sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE.split(text) if part and part.strip()]


_KEEP_TOGETHER = "\u2060"  # a word joiner: not whitespace, so no clause joint matches inside a name


def _names_kept_whole(sentence: str) -> str:
    """Vehicle names with a trim ("Leaf Plus", "Model 3 Long Range") and utility names ("Florida
    Power and Light") are one value, never two clauses: their spaces are joined before the sentence
    is split (and restored after)."""
    from advisor.energy.utilities import find_utility
    from advisor.energy.vehicles import find_vehicle  # the tables are vocabularies of the grammar

    for find in (find_vehicle, find_utility):  # "florida power and light" is one name too
        rest, out = sentence, []
        while (found := find(rest)) is not None:
            words = found[1]
            start = rest.lower().find(words.lower())
            if start < 0 or " " not in words:
                break
            out.append(rest[:start] + rest[start : start + len(words)].replace(" ", _KEEP_TOGETHER))
            rest = rest[start + len(words) :]
        sentence = "".join(out) + rest
    # "does heat and ac": one thing the equipment does, not two clauses
    return _BOTH_JOBS.sub(lambda m: m.group(0).replace(" ", _KEEP_TOGETHER), sentence)


_BOTH_JOBS = re.compile(
    r"\bheat(?:ing)?\s+(?:and|&)\s+(?:ac|a/c|cool(?:ing)?|air(?:\s+conditioning)?)\b|"
    # "some nights and weekends plan": one plan's name
    r"\bnights?\s+(?:and|&)\s+weekends?\b",
    re.I,
)


# "my daughter has a leaf and solar panels in atlanta. is it worth it for her to add a battery": a
# grown child in a home of their own (placed elsewhere, or asked about for them), not the household
_CHILD = re.compile(
    # ("son just got a used kona, its at his apartment": the relation said bare, at the start)
    r"(?:\b(?:my|our)\s+|^\W*)(?:sons?|daughters?|kids?|child|children|grand(?:son|daughter|kid)s?)\b",
    re.I,
)
_CHILD_ELSEWHERE = re.compile(
    r"\b(?:in\s+(?!the\b|our\b|my\b|a\b|an\b|garage|driveway|college|school|high\b)[a-z]{3,}|lives?\b|moved\b|"
    r"(?:her|his|their)\s+(?:own\s+)?(?:place|house|home|apartment|apt|condo)|for\s+(?:her|him|them)\b)",
    re.I,
)


def _child_elsewhere(part: str, text: str) -> bool:
    child = _CHILD.search(part)
    if child is None:
        return False
    at = text.find(part)
    return _CHILD_ELSEWHERE.search(text[at + child.end() if at >= 0 else 0 :]) is not None


def clauses(text: str) -> list[Clause]:
    """Each clause with its flags; a clause without its own subject takes the previous one's
    (so "my neighbour has solar and a battery" keeps both out of the user's profile)."""
    found: list[Clause] = []
    previous_sentence: tuple[int, int] | None = None
    for sentence in sentences(text):
        parts = _parts(sentence)
        if previous_sentence is not None and parts and all(_HEDGE_ONLY.match(part) for part, _ in parts):
            # "i think we're on tou-d-prime? not sure. when is peak": the doubt is the sentence before's
            begin, end = previous_sentence
            # … unless a clause there doubts itself already ("columbus 43215, aep i think? not 100%
            # sure"): the doubt said again is that clause's, the ZIP stands
            if not any(c.hedged and re.search(r"\w", c.text) for c in found[begin:end]):
                # "94110, i think we're on e-tou-c? not sure": the doubt is the "i think" clause's
                soft = [c for c in found[begin:end] if _SOFT_HEDGE.search(c.text)]
                found[begin:end] = [
                    Clause(**{**c.__dict__, "hedged": True}) if not soft or c in soft else c
                    for c in found[begin:end]
                ]
                # "its got the large pack, 135 kwh? i think": the mark before the doubt is the doubt's,
                # not a question (a clause that opens like a question still asks)
                found[begin:end] = [
                    Clause(**{**c.__dict__, "question": False})
                    if c.question and not QUESTION_START.match(c.text) and not _choice_asked(c.text)
                    else c
                    for c in found[begin:end]
                ]
        # "We're on EV2-A, not sure": a doubt on its own qualifies the clause before it.
        # (past a bare "?" of its own: "we're on tou-dr2?? not 100% sure")
        worded = [index for index, (part, _) in enumerate(parts) if re.search(r"\w", part)]
        trailing_doubt = {
            max((w for w in worded if w < index), default=index - 1)
            for index, (part, _) in enumerate(parts)
            if index and _HEDGE_ONLY.match(part)
        }
        previous: Clause | None = None
        start = len(found)
        asking = sentence.rstrip().endswith("?")
        worded_parts = [part for part, _ in parts if re.search(r"\w", part)]
        if asking and worded_parts and _doubt_marked(worded_parts[-1]):
            asking = len(worded_parts) == 1  # "30306 and maybe 8 kw of solar?": the mark is the doubt's
        for index, (part, stated) in enumerate(parts):
            clause = _clause(part, previous, asking=asking and not stated)
            if not clause.someone_else and _child_elsewhere(part, text):
                clause = Clause(**{**clause.__dict__, "someone_else": True})
            if stated and clause.question and not QUESTION_START.match(part):
                clause = Clause(**{**clause.__dict__, "question": False})  # a stated list item
            if index in trailing_doubt:
                clause = Clause(**{**clause.__dict__, "hedged": True})
            alone = len(parts) == 1 and bool(found)  # a sentence of its own after what they said
            # "ductless vs ducted heat pump, our ducts are old": two things weighed, put first
            weighed_first = (
                not found
                and index == 0
                and bool(_WEIGHED.match(part))
                and not re.match(
                    r"\W*(?:i|we|my|our|they|he|she)\b", part, re.I
                )  # "we went with geothermal vs …"
            )
            if not clause.question and (
                weighed_first
                or _POLITE_REQUEST.search(part)
                or (_NOUN_REQUEST.match(part) and not _A_VERB.search(part))
                or (found or previous)
                and (
                    _choice_asked(part)
                    or _WORTH_IT.match(part)
                    or (alone and _WEIGHED.match(part))
                    or _ASKED_LAST.search(part)
                    or (alone and _short_choice(part))
                )
            ):
                # "... keep it or rip it out for central ac", "insulation problem or ductwork
                # problem": a choice put to us after what they said is a question without its word
                clause = Clause(**{**clause.__dict__, "question": True})
            found.append(clause)
            previous = clause
        if any(clause.hedged for clause in found[start:]):
            # "idk what car, it's a bolt i think": beside a doubt, "i think" is doubt too
            found[start:] = [
                Clause(**{**c.__dict__, "hedged": True}) if _SOFT_HEDGE.search(c.text) else c
                for c in found[start:]
            ]
        if re.search(r"\w", sentence):  # a bare "?" is no sentence a later doubt is about
            previous_sentence = (start, len(found))
    return found


def _parts(sentence: str) -> list[tuple[str, bool]]:
    """The sentence's clauses, each with whether it is a statement set before a question by a comma
    ("smud customer in sacramento 95818, peak hours today?": the first part states, the last asks)."""
    segments = [sentence]
    listed_after_question = False
    if sentence.rstrip().endswith("?") and ", " in sentence:
        pieces = re.split(r",\s+", sentence)
        lead = [piece for piece in pieces[:-1]]
        if lead and not any(QUESTION_START.match(piece) for piece in lead):
            segments = [", ".join(lead) + ",", pieces[-1]]
    elif QUESTION_START.match(sentence) and ", " in sentence:
        # "when should i charge my ev, sdge 92101, model y, need 80% by 7": the question, then a
        # list of what they state (each item not itself a question)
        pieces = re.split(r",\s+", sentence)
        # ("whats the supply vs delivery thing on my bill, were in philly w peco": where they are,
        # said after the question, is a statement of its own)
        if (len(pieces) >= 3 or (len(pieces) == 2 and _HOME_SAID.match(pieces[1]))) and not any(
            QUESTION_START.match(piece) for piece in pieces[1:]
        ):
            segments, listed_after_question = pieces, True
    elif ", " in sentence and _CONFIRM_TAG.search(sentence):
        # "we have a 2018 leaf, no liquid cooling right": the tag asks to confirm the last part
        # only; what they said before the comma stands
        pieces = re.split(r",\s+", sentence)
        if FIRST_PERSON.search(pieces[0]) and not _HEDGE.search(", ".join(pieces[:-1])):
            return [part for piece in pieces for part in _parts(piece)]
    elif ", " in sentence and _PAST_HOME.search(sentence):
        # "actually our heat is gas, the heat pump was at the old house": the old house's clause is
        # its own, and the one before it stays theirs
        pieces = re.split(r",\s+", sentence)
        if any(FIRST_PERSON.search(piece) and not _PAST_HOME.search(piece) for piece in pieces):
            return [part for piece in pieces for part in _parts(piece)]
    parts: list[tuple[str, bool]] = []
    for number, segment in enumerate(segments):
        stated = (len(segments) > 1 and number == 0) or (listed_after_question and number > 0)
        joined = _names_kept_whole(segment)
        # "not pacific power, portland general": the one they are not with, then the one they are
        # "sold the leaf got a mach-e": what went, then what they got
        lead = _NOT_FIRST.match(joined) or _GONE_THEN_GOT.match(joined)
        pieces = [lead.group(1), joined[lead.end() :]] if lead else [joined]
        for part in (part for piece in pieces for part in _JOINT.split(piece)):
            if part.strip(" ,"):
                parts.append((part.strip(" ,").replace(_KEEP_TOGETHER, " "), stated))
    return parts


_CONFIRM_TAG = re.compile(r"(?<=\w\s)(?:right|correct|isn'?t\s+it)\W*$", re.I)
_GONE_THEN_GOT = re.compile(
    r"^(\W*(?:(?:we|i)\s+)?(?:just\s+)?(?:sold|traded\s+in|totaled|totalled|returned|got\s+rid\s+of)\s+[^,.;!?]{1,40}?)"
    r"(?<!\band)\s+(?=(?:got|bought|leased|picked\s+up)\s+(?:a|an)\s)",
    re.I,
)
_NOT_FIRST = re.compile(r"^(\W*(?:(?:no|nope|nah)\W+)?not\s+[^,.;!?]{1,40}?),\s+(?=\w)", re.I)
_HOME_SAID = re.compile(
    r"^\W*(?:we'?re|were|we\s+are|i'?m|im|i\s+am|we\s+live|i\s+live)\s+(?:in|on|with|w/?)\b", re.I
)
_CHOICE_ASKED = re.compile(
    r"^\W*(?:(?:keep|repair|fix|replace|switch|stay|go|get|buy|wait|upgrade|rip|run|leave|use|install|"
    r"insulate|add|sell|lease|charge|heat|cool|paint|seal)\b[^.?!]{0,60}\bor\b|"
    # "cheaper to leave them on all day or turn em off": "is it" left out before a choice
    r"(?:(?:is\s+it|its|it'?s)\s+)?(?:cheaper|better|smarter|worse|more\s+efficient|less\s+wasteful)\s+to\b[^.?!]{0,80}\bor\b|"
    r"[^.?!]{0,40}\b(?:problem|issue|fault)\s+or\s+[^.?!]{0,30}\b(?:problem|issue|fault)\b|"
    r"[^.?!]{3,60}\bor\s+not\W*$)",
    re.I,
)


# "… normal or broken", "legit or gimmick", "insulation or windows first": a short choice put last
_SHORT_CHOICE = re.compile(r"^\W*(?:[a-z]+\s+){0,2}[a-z]+\s+or\s+(?:[a-z]+\s+){0,2}[a-z]+\W*$", re.I)
# "geothermal vs air source", "heat pump vs furnace": two things weighed, put last, asks which
_WEIGHED = re.compile(
    r"^\W*(?:[\w'-]+\s+){0,3}[\w'-]+\s+(?:vs\.?|versus)\s+(?:[\w'-]+\s+){0,3}[\w'-]+\W*$", re.I
)
# "worth it with a pool and 2 kids home", "is it worth it": asks for a verdict without a question word
# "charge plan tonight pls", "pls show me the prices": a request said with its "please", no mark
_POLITE_REQUEST = re.compile(
    r"\b(?:plan|prices?|rates?|forecast|estimate|schedule|hours|numbers|breakdown|comparison)\b[^.?!,]{0,30}?"
    r"\b(?:pls|plz|please)\W*$|"
    r"^\W*(?:pls|plz|please)\s+(?:give|show|tell|send|make|do|check|run|figure|work\s+out|compare|price)\b",
    re.I,
)
# "weather for tomorrow in lincoln ne", "prices tmrw for 94110": a request said as its noun, no verb
_NOUN_REQUEST = re.compile(
    r"^\W*(?:(?:ok|so|and|hey)\W+)*(?:the\s+)?(?:weather|forecast|temps?|prices?|rates|peak\s+hours|cheap(?:est)?\s+hours)\s+"
    r"(?:for|in|on|at|today|tomorrow|tonight|this|next|saturday|sunday|monday|tuesday|wednesday|thursday|friday)\b",
    re.I,
)
# (… with no verb of its own: "weather in 94110 is nice today" says something)
_A_VERB = re.compile(
    r"\b(?:is|was|are|were|has|have|had|looks?|seems?|been|gets?|got|went|goes|feels?)\b", re.I
)
_WORTH_IT = re.compile(r"^\W*(?:(?:is|r|are)\s+(?:it|they|those)\s+)?worth\s+(?:it|the\s+money)\b", re.I)
# "…in a brooklyn co-op, anything we can do as renters", "any tips": a request put last, no mark
_ASKED_LAST = re.compile(r"(?:^|[,;:]\s*)" + REQUEST_WITHOUT_MARK + r"[^,.;!?]*$", re.I)


def _short_choice(part: str) -> bool:
    if not _SHORT_CHOICE.match(part):
        return False
    sides = re.split(r"\s+or\s+", part.strip(" .!?"), maxsplit=1)
    return not any(utility_named(side) for side in sides)  # "pge or smud": which utility, not a question


def _choice_asked(part: str) -> bool:
    return bool(_CHOICE_ASKED.match(part)) and not FIRST_PERSON.search(part) and len(part.split()) <= 16


# "maybe we should switch?", "probably better to wait?": advice asked for behind the doubt
_ADVICE_ASKED = re.compile(
    r"\b(?:should|could|would|can|worth|better|cheaper|ok|okay|fine|right|correct|normal|enough|too|peak|off-?peak)\b|"
    r"\d\s*(?:-|to)\s*\d",
    re.I,
)


# "good solar day today or nah", "worth it or not": a yes-or-no question said without its mark
_TAG_QUESTION = re.compile(
    r"\b(?:or\s+(?:nah+|not|no|nope|naw|nay)|yes\s+or\s+no|y/n)\W*$|"
    # "now that we have a 2nd ev am i better off on tou-d-prime": weighed, asked mid-sentence
    r"\b(?:am\s+i|are\s+we|would\s+(?:i|we)\s+be|will\s+(?:i|we)\s+be)\s+better\s+off\b|"
    # "we're on tou-ri btw. payback on that": a figure asked for by its name alone
    r"^\W*(?:(?:and|so|ok)\s+)?(?:the\s+)?(?:payback|cost|savings?|numbers?|math|roi)\s+(?:on|for|of)\s+"
    r"(?:that|it|this|those|them)\W*$|"
    # "night setback w a heat pump good idea": a verdict asked for, put last
    r"\b(?:a\s+)?(?:good|bad|smart|dumb)\s+idea\W*$|"
    # "our charger is 7.6kw, enough for both evs overnight": whether it is enough, asked after a comma
    r",\s*(?:(?:is|would)\s+(?:that|it|this)\s+(?:be\s+)?)?(?:big\s+|fast\s+)?enough\s+(?:for|to)\b[^,.;!?]*$|"
    # "we pay 45 cents a kwh on oahu is that normal": a verdict asked of what they said, put last
    r"\b(?:is|was)\s+(?:that|this|it)\s+(?:normal|typical|right|high|low|bad|good|ok|okay|fair|a\s+lot|too\s+(?:much|high)|"
    r"expensive|cheap|average|reasonable|crazy|insane)\W*$|"
    # "mini split any good for a shop with no insulation"
    r"^\W*(?:(?:a|an|the|are|is)\s+)?[\w-]+(?:\s+[\w-]+){0,2}\s+any\s+good\b",
    re.I,
)


def _doubt_marked(part: str) -> bool:
    """ "i think the charger is 40 amps?", "and maybe 8 kw of solar?": the mark is the doubt's, no question."""
    return bool(_HEDGE.search(part) or _SOFT_HEDGE.search(part)) and not _ADVICE_ASKED.search(part)


def _clause(part: str, previous: Clause | None, *, asking: bool) -> Clause:
    """One clause's flags; `asking`: it sits in the question part of a sentence ending with "?"."""
    own_subject = bool(FIRST_PERSON.search(part) or _SOMEONE_ELSE.search(part) or _HOME_SAID.match(part))
    past_home = bool(_PAST_HOME.search(part))
    # ("wait i mixed it up, ev2-a is my sister's plan": the "i" of the apology is no subject)
    someone_else = (
        bool(_SOMEONE_ELSE.search(part)) and not _first_person_leads(_MIXED_UP_LEAD.sub("", part))
    ) or past_home
    if not own_subject and previous is not None and not past_home:
        someone_else = previous.someone_else
    doubt_marked = asking and _doubt_marked(part)
    question = bool(QUESTION_START.match(part) or _TAG_QUESTION.search(part)) or (
        not doubt_marked
        and (
            # "compare e-tou-c and e-elec for my usage", "difference between EV-TOU-5 and TOU-DR1?"
            (previous is not None and previous.question and not _SUBJECT_LEADS.match(part))
            or (asking and not own_subject)
            or (asking and previous is None)
        )
    )
    # ("we're on avista if that matters for payback": an aside on why it is said, no what-if)
    hypothetical = bool(_HYPOTHETICAL.search(_IF_IT_MATTERS.sub("", part))) or (
        previous is not None and previous.hypothetical and not own_subject
    )
    withdrawn = _CORRECTION_LEAD.sub("", part)
    return Clause(
        text=part,
        question=question,
        hypothetical=hypothetical,
        someone_else=someone_else,
        negated=bool(NEGATION.search(_NOT_THE_OLD.sub("", _without_old_value(withdrawn))))
        or bool(WITHDRAWN.match(part)),
        hedged=bool(_HEDGE.search(part)) or doubt_marked,
        household=bool(HOUSEHOLD_MEMBER.search(part)),
    )


# "we're not retired": a subject and verb alone before "not" negate; "it's 6.5 kw, not 8" corrects
_BARE_SUBJECT = re.compile(
    r"^\W*(?:(?:i|we|it|they|he|she|that|this)(?:'?re|'?m|'?s|\s+(?:am|are|is|was|were|do|does|did|have|has))?|"
    r"i'?m|im|we'?re|its|it'?s|thats|that'?s)\W*$",
    re.I,
)


def _without_old_value(text: str) -> str:
    """The clause without a trailing "not <old value>" that corrects what we had."""
    tail = _CORRECTION_TAIL.search(text)
    if tail is None or _BARE_SUBJECT.match(text[: tail.start()]):
        return text
    return text[: tail.start()] + text[tail.end() :]


def _first_person_leads(part: str) -> bool:
    """'I have a heat pump like my neighbour' is about me; 'my neighbour has one' is not."""
    first = FIRST_PERSON.search(part)
    other = _SOMEONE_ELSE.search(part)
    if first is None or other is None:
        return first is not None
    if first.group(0).lower() in ("my", "our") and other.start() == first.start():
        return False  # "my neighbour ..." starts with "my" but is about the neighbour
    return first.start() < other.start()
