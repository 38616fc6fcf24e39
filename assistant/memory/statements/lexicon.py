"""English word classes the sentence reader needs: closed classes, and common verbs.

Closed classes (pronouns, determiners, auxiliaries, prepositions) are the grammar itself.
`ACTION_VERBS` is a dictionary of the base forms of verbs people use to ask something of
an assistant; it decides only the case the structure leaves open (a sentence that starts
with a word followed by a bare noun or a preposition: "Switch to ...", "Call mom"): a verb
followed by an object pronoun or a determiner is read as one whatever the word.
"""

from __future__ import annotations

__all__ = [
    "ACTION_VERBS",
    "ADVERB_STARTS",
    "AUXILIARIES",
    "DETERMINERS",
    "IRREGULAR_PAST",
    "NEGATIVE_IMPERATIVE",
    "OBJECT_PRONOUNS",
    "PLEASE",
    "PREPOSITIONS",
    "SUBJECT_PRONOUNS",
    "SUBJECT_STARTS",
    "WH_WORDS",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


AUXILIARIES = _words(
    """am is are was were be been being do does did have has had can could will would shall
    should may might must isn't aren't wasn't weren't don't doesn't didn't haven't hasn't
    hadn't can't cannot couldn't won't wouldn't shouldn't mustn't i'm you're he's she's it's
    we're they're i've you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll
    he'll she'll we'll they'll 's 're 've 'd 'll 'm"""
)
WH_WORDS = _words("what who whom whose which where when why how what's who's where's how's")
SUBJECT_PRONOUNS = _words("i you he she it we they one someone everyone nobody somebody")
DETERMINERS = _words(
    """the a an my your his her its our their this that these those every each all some any
    no another other both either neither several many few much more most"""
)
OBJECT_PRONOUNS = _words(
    """me us him them it everything anything something nothing everyone anyone someone
    yourself myself"""
)
PREPOSITIONS = _words(
    """to into onto over off on up down out away back at for about from with in through
    across around along"""
)
ADVERB_STARTS = _words(
    """yesterday today tonight tomorrow now then recently lately sometimes usually often
    also still finally last next later earlier soon once twice since after before
    meanwhile otherwise however besides nowadays currently ago here there"""
)
CONJUNCTIONS = _words("and but or so because although though if unless while whereas as")
SUBJECT_STARTS = (
    SUBJECT_PRONOUNS | DETERMINERS | WH_WORDS | CONJUNCTIONS | ADVERB_STARTS | PREPOSITIONS
)
PLEASE = _words("please pls plz kindly")
NEGATIVE_IMPERATIVE = _words("don't dont never always")
IRREGULAR_PAST = _words(
    """went said told got made took came saw knew thought felt left met bought began brought
    built caught chose drank drove ate fell found flew forgot gave grew heard held kept
    knew lost meant paid put ran read rode rang rose sang sat slept spoke spent stood stole
    swam taught threw understood woke wore won wrote became broke did had was were been
    gone done seen known taken given written"""
)
ACTION_VERBS = _words(
    """tell show give list recite read share send switch open delete remove forget remember
    ignore call email text book buy find search look check write save store add update
    change set make let help explain describe summarise summarize repeat print display
    reveal dump export copy move go stop start keep pretend act answer reply respond
    translate remind note record log grant allow enable disable unlock bypass override
    access load fetch get bring put take try use run play say speak talk ask confirm
    approve accept treat trust consider assume imagine think continue proceed recall
    provide pull retrieve pick wake leave cancel schedule order pay transfer wire sign
    hand pass forward post publish upload download erase wipe clear reset restore grab
    disclose divulge leak expose unhide give list enumerate output return quote paste
    insert append replace edit modify rewrite swap log visit plan prepare draft compose
    create generate fill sort rank compare calculate count convert fix mark flag tag
    stay wait hold skip drop end finish begin invite message notify contact ping join"""
)
