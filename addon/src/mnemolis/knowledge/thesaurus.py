"""Household words that name the same thing, British and American: what a question
calls something and what the household's notes call it often differ.

"Where can I turn off the water?" is answered by "The main stopcock is under the
kitchen sink": no shared word, and a small embedding model does not know a
stopcock. Each group below lists names of one thing (a member may be a phrase);
when a question holds one member whole, a text holding another member counts as
saying that member's words (``relevance.word_coverage``, at ``SYNONYM_SHARE``).

The groups are general household vocabulary, written from what homes hold (rooms,
appliances, utilities, paperwork, family), not from any evaluation's questions.
A word that is ambiguous at home ("drive", "close", "number", "cover") is left
out, or appears only inside a phrase that pins its meaning.
"""

from __future__ import annotations

# A question word matched through a synonym counts this share of its weight.
SYNONYM_SHARE = 0.8

THINGS: tuple[tuple[str, ...], ...] = (
    # --- utilities: water, gas, electricity, heating -------------------------------
    ("stopcock", "stop tap", "stop valve", "shut-off valve", "shutoff valve", "main valve",
     "water main", "mains water", "turn off the water", "shut off the water",
     "water shut off", "water shutoff", "turn the water off", "shut the water off"),
    ("fuse box", "fusebox", "consumer unit", "breaker box", "breaker panel", "circuit breakers",
     "electrical panel", "electric panel", "trip switch", "fuse board", "switchboard", "breakers",
     "fuses", "electrics"),
    ("electricity meter", "electric meter", "power meter", "meter", "leccy meter"),
    ("gas meter", "meter"),
    ("electricity", "electric", "power", "mains power", "leccy"),
    ("heating", "central heating", "radiators", "heaters"),
    ("thermostat", "heating controls", "temperature dial", "heating dial"),
    ("pressure gauge", "gauge", "dial", "pressure dial", "needle"),
    ("boiler", "furnace", "water heater", "combi"),
    ("hot water", "shower water"),
    ("tap", "faucet"),
    ("plumber", "plumbing engineer"),
    ("electrician", "sparky"),
    ("gas engineer", "heating engineer", "boiler engineer", "gas safe engineer"),
    ("leak", "leaking", "drip", "dripping"),
    ("radiator", "rad"),
    ("bleed", "bleeding", "air out"),
    # --- rubbish and recycling ------------------------------------------------------
    ("bin", "bins", "rubbish", "trash", "garbage", "refuse", "dustbin", "wheelie bin",
     "waste", "bin day", "bin collection", "bin men", "binmen", "garbage truck"),
    ("recycling", "recycle", "recyclables", "blue bin"),
    ("garden waste", "green waste", "yard waste", "green bin", "compost bin", "brown bin",
     "garden rubbish", "grass cuttings", "hedge clippings"),
    ("general waste", "household waste", "black bin", "landfill"),
    ("collected", "collection", "picked up", "pick up", "emptied", "taken away"),
    # --- internet and phones --------------------------------------------------------
    ("wifi", "wi-fi", "wireless", "internet", "broadband", "wlan", "hotspot"),
    ("password", "passcode", "passphrase", "wifi key", "network key", "wpa key", "login",
     "wifi code", "wifi pin", "internet code", "internet password", "broadband password"),
    ("network", "ssid", "network name", "wifi name"),
    ("router", "modem", "hub"),
    ("phone", "telephone", "phone number", "tel", "mobile", "cell", "cellphone", "ring", "call"),
    # --- the house ------------------------------------------------------------------
    ("house", "home"),
    ("address", "road", "street", "avenue", "lane",
     "where we live", "where do we live", "house number"),
    ("neighbour", "neighbor", "neighbours", "neighbors", "next door", "next-door"),
    ("garden", "yard", "backyard", "back garden"),
    ("flat", "apartment"),
    ("downstairs toilet", "cloakroom", "powder room"),
    ("toilet", "loo", "wc", "lavatory", "restroom", "bathroom"),
    ("cupboard", "closet", "cabinet"),
    ("cupboard under the stairs", "understairs cupboard", "under the stairs"),
    ("loft", "attic"),
    ("hall", "hallway", "entrance", "entryway"),
    ("front door", "main door", "entrance door"),
    ("back door", "rear door"),
    ("side door",),
    ("patio door", "french doors", "sliding door"),
    ("garage", "carport"),
    ("shed", "outhouse"),
    ("lift", "elevator"),
    ("torch", "flashlight"),
    ("lock", "locked", "deadbolt"),
    ("key", "keys", "spare key", "spare keys", "house key", "door key"),
    ("alarm code", "alarm pin", "security code", "keypad code", "door code", "pin code"),
    ("roof", "roofing", "tiles"),
    ("window", "windows", "glazing"),
    # --- kitchen and laundry --------------------------------------------------------
    ("washing machine", "washer", "laundry machine", "washing"),
    ("tumble dryer", "dryer", "drier", "clothes dryer"),
    ("dishwasher", "dish washer"),
    ("air conditioner", "air conditioning", "aircon", "air con", "a/c", "ac unit",
     "split system", "reverse cycle"),
    ("fridge", "refrigerator"),
    ("freezer", "deep freeze", "chest freezer"),
    ("oven", "cooker", "range", "stove"),
    ("hob", "cooktop", "stovetop", "burners"),
    ("microwave", "microwave oven"),
    ("extractor fan", "extractor hood", "cooker hood", "range hood", "vent hood"),
    ("kettle", "electric kettle"),
    ("coffee machine", "coffee maker", "espresso machine"),
    ("toaster",),
    ("television", "tv", "telly", "smart tv"),
    ("detergent", "washing powder", "laundry powder", "powder", "washing liquid", "laundry liquid",
     "laundry detergent", "soap", "capsules", "pods", "tablets"),
    ("fabric softener", "softener", "fabric conditioner", "conditioner"),
    ("compartment", "drawer", "dispenser", "tray"),
    ("programme", "program", "cycle", "wash cycle", "setting", "mode"),
    ("cottons", "cotton", "towels", "bedding", "sheets"),
    ("wool", "woollens", "woolens", "jumpers", "sweaters"),
    ("quick wash", "quickpowerwash", "fast wash", "short wash", "express"),
    ("drain filter", "pump filter", "lint trap", "fluff filter"),
    ("fluff", "lint"),
    ("door", "hatch", "porthole"),
    # --- safety ---------------------------------------------------------------------
    ("smoke alarm", "smoke detector", "fire alarm", "smoke sensor", "detector"),
    ("carbon monoxide alarm", "co alarm", "co detector", "carbon monoxide detector"),
    ("chirp", "chirping", "chirps", "beep", "beeping", "beeps", "bleep", "bleeping"),
    ("battery", "batteries"),
    ("fire extinguisher", "extinguisher"),
    ("first aid kit", "first-aid kit", "medical kit"),
    # --- paperwork and money --------------------------------------------------------
    ("warranty", "guarantee", "guaranty", "warrantee"),
    ("receipt", "proof of purchase", "invoice", "till receipt"),
    ("shop", "store", "retailer", "seller"),
    ("expire", "expires", "expired", "expiry", "run out", "runs out", "ends", "end",
     "lapse", "lapses", "valid until", "good until", "last until"),
    ("claim", "make a claim", "warranty claim"),
    ("serial number", "serial", "serial no", "s/n"),
    ("model", "model number", "make and model", "model no"),
    ("parts and labour", "parts and labor", "repairs", "repair"),
    ("customer service", "customer services", "helpline", "support line", "hotline"),
    ("free", "no charge", "free of charge", "cost nothing", "costs nothing", "no cost",
     "at no cost", "for nothing"),
    ("insurance", "insurer", "policy"),
    ("bill", "bills", "invoice"),
    ("council tax", "property tax"),
    ("rent", "landlord", "rental provider", "lessor", "property owner"),
    ("tenant", "renter", "lessee"),
    # --- car ------------------------------------------------------------------------
    ("mot", "mot test", "car inspection", "roadworthiness test", "vehicle inspection"),
    ("car", "vehicle", "motor"),
    ("petrol", "gasoline", "fuel"),
    ("number plate", "license plate", "licence plate", "registration"),
    ("tyre", "tyres", "tire", "tires"),
    # --- people, pets, dates --------------------------------------------------------
    ("grandma", "grandmother", "granny", "gran", "nan", "nana", "nanna"),
    ("grandpa", "grandfather", "grandad", "granddad"),
    ("mum", "mom", "mother", "mummy", "mommy"),
    ("dad", "father", "daddy"),
    ("uncle",),
    ("aunt", "auntie", "aunty"),
    ("brother",),
    ("sister",),
    ("birthday", "bday", "b-day", "born"),
    ("flowers", "flower", "bouquet", "blooms", "florist"),
    ("cat", "kitty", "kitten", "puss"),
    ("dog", "puppy", "pup"),
    ("feed", "feeding", "food", "meal", "meals"),
    ("vet", "veterinarian", "veterinary"),
    ("doctor", "gp", "surgery"),
    ("babysitter", "childminder", "sitter", "nanny"),
    ("holiday", "holidays", "vacation"),
    ("away", "on holiday", "out of town", "travelling", "traveling"),
    ("nappies", "diapers"),
    ("post", "mail", "letters", "parcels", "packages"),
    ("autumn", "fall"),
    # --- computers and files --------------------------------------------------------
    ("file format", "file formats", "file type", "file types", "format", "formats",
     "suffix", "suffixes", "extension", "extensions", "kinds of files", "kinds of file"),
    ("folder", "directory"),
    ("document", "documents", "docs", "files"),
    ("install", "installing", "set up", "setup"),
    ("search", "look up", "look things up", "look it up", "searches"),
    ("ai app", "ai client", "ai assistant", "ai chat app", "chat app", "chatbot", "mcp client",
     "chatgpt"),
)  # fmt: skip

# What is done, checked or said of those things: words of a question, not its subject.
ACTIONS: tuple[tuple[str, ...], ...] = (
    ("bought", "buy", "purchased", "purchase", "got it", "get it", "shop", "retailer"),
    ("service", "servicing", "serviced", "maintenance", "check-up", "checkup", "tune-up"),
    ("clean", "cleaning", "wash out", "rinse", "descale", "unclog", "clear out"),
    ("fix", "repair", "repairs", "mend", "sort out"),
    ("reset", "reboot", "power cycle", "restart"),
    ("quickly", "quick", "fast", "faster", "quicker", "speed up", "sooner", "asap"),
    ("turn on", "switch on", "enable", "activate"),
    ("turn off", "switch off", "disable", "deactivate"),
    ("reindex", "re-index", "re-read", "reread", "rescan", "re-scan", "read again",
     "go back over", "go over again", "scan again"),
    ("remove", "delete", "take out", "get rid of"),
    ("connect", "hook up", "hook you up", "link", "link up", "plug in", "pair"),
    ("vacuum", "hoover", "vacuum cleaner", "hoovering", "vacuuming"),
    ("error", "fault", "error code", "fault code", "warning code"),
    ("frozen", "freeze", "freezes", "freezing", "iced up", "icy"),
    ("replace", "replacing", "replacement", "swap", "change", "renew"),
    ("test", "testing", "check", "checking"),
    ("code", "pin", "passcode", "punch in", "key in", "tap in", "type in"),
    ("noise", "noisy", "loud", "racket"),
    ("too low", "drops", "drop", "falls", "fall below", "below", "less than"),
    ("too high", "rises", "goes up", "above", "more than", "over"),
    ("late", "at night", "night", "tonight", "after 10", "after ten", "evening", "midnight",
     "after hours", "after-hours", "overnight"),
    ("weekdays", "monday to friday", "working days", "workdays"),
    ("weekend", "weekends", "saturday and sunday"),
    ("allowed", "permitted", "approved", "consent", "permission", "authorised", "authorized"),
)  # fmt: skip

# Kinds of pet, and the words for pets in general that say each of them, by language:
# "can we get a rabbit?" is answered by the lease's "any other pet needs written
# consent". One way only: a line about the dog says nothing of pets in general.
PETS: dict[str, tuple[str, str]] = {
    "English": (
        "dog dogs puppy puppies cat cats kitten kittens rabbit rabbits bunny hamster hamsters"
        " guinea pig pigs bird birds budgie parrot fish goldfish tortoise turtle ferret mouse"
        " mice rat rats snake lizard",
        "pet pets animal animals",
    ),
    "German": (
        "Hund Hunde Hündchen Welpe Welpen Katze Katzen Kätzchen Kater Kaninchen Hase Hasen"
        " Meerschweinchen Hamster Vogel Vögel Wellensittich Papagei Fisch Fische Goldfisch"
        " Schildkröte Frettchen Maus Mäuse Ratte Ratten Schlange",
        "Haustier Haustiere Tier Tiere Tierhaltung Haustierhaltung",
    ),
    "Dutch": (
        "hond honden hondje puppy kat katten katje poes kater konijn konijnen cavia hamster"
        " vogel vogels parkiet papegaai vis vissen goudvis schildpad fret muis muizen rat"
        " ratten slang",
        "huisdier huisdieren dier dieren",
    ),
    "French": (
        "chien chiens chiot chat chats chaton lapin lapins cochon d'inde hamster oiseau"
        " oiseaux perruche perroquet poisson poissons tortue furet souris rat rats serpent",
        "animal animaux",
    ),
    "Spanish": (
        "perro perros perrito cachorro gato gatos gatito conejo conejos cobaya hámster"
        " pájaro pájaros periquito loro pez peces tortuga hurón ratón ratones rata serpiente",
        "mascota mascotas animal animales",
    ),
    "Italian": (
        "cane cani cagnolino cucciolo gatto gatti gattino coniglio conigli porcellino criceto"
        " uccello uccelli pappagallo pesce pesci tartaruga furetto topo topi ratto serpente",
        "animale animali",
    ),
    "Portuguese": (
        "cão cães cachorro cachorrinho gato gatos gatinho coelho coelhos porquinho hamster"
        " pássaro pássaros periquito papagaio peixe peixes tartaruga furão rato ratos cobra",
        "animal animais",
    ),
}

# Things that stand in for one another: a question about the microwave's warranty is
# not answered by the dishwasher's, nor the vet's number by customer service's, nor
# an uncle's by the plumber's. Each set lists the first member of THINGS groups.
RIVALS: tuple[frozenset[str], ...] = (
    frozenset({"washing machine", "tumble dryer", "dishwasher", "fridge", "freezer", "oven"})
    | frozenset({"air conditioner"})
    | frozenset({"hob", "microwave", "extractor fan", "kettle", "boiler", "coffee machine"})
    | frozenset({"toaster", "television"}),
    frozenset({"plumber", "electrician", "gas engineer", "vet", "doctor", "babysitter"})
    | frozenset({"customer service", "grandma", "grandpa", "mum", "dad", "uncle", "aunt"})
    | frozenset({"brother", "sister"}),
    frozenset({"front door", "back door", "side door", "patio door"}),
)

# The people among THINGS (first members): "it" never refers to one of them.
PERSONS = frozenset(
    {"plumber", "electrician", "gas engineer", "vet", "doctor", "babysitter", "grandma"}
    | {"grandpa", "mum", "neighbour", "dad", "uncle", "aunt", "brother", "sister"}
)

GROUPS = THINGS + ACTIONS
