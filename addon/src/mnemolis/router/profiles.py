"""What each source is for, in sentences: the meaning stage compares questions with these.

Each source has a one-line description and example requests. They describe the
kind of question a source answers; they are not copies of any test or eval
question. The meaning stage (meaning.py) embeds them with the local embedding
model when one is loaded, or compares words with them when none is.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Profile:
    """One source described for the meaning stage."""

    source: str
    description: str
    examples: tuple[str, ...]


PROFILES: tuple[Profile, ...] = (
    Profile(
        "ha",
        "The smart home right now: state of devices, rooms, lights, doors, windows, locks, "
        "heating, climate, indoor temperature, humidity, air quality, CO2, energy and power "
        "use, electricity, solar production, batteries, appliances, alarm and security, "
        "who is home, people and presence, sensors.",
        (
            "how is everything in the house",
            "give me a status report of the home",
            "how much energy is the house using",
            "what is our power consumption right now",
            "how much electricity did we use today",
            "how much power do the solar panels make",
            "is the air quality good indoors",
            "is the air stale or stuffy in the bedroom",
            "is the house secure",
            "is the alarm system armed",
            "is everything locked",
            "are any doors or windows open",
            "which batteries are running low",
            "do any devices need a battery change",
            "is the heating running",
            "what is the temperature indoors",
            "is someone at home",
            "where is everybody",
            "are any appliances running",
            "is the dishwasher finished",
            "is anything left switched on",
            "are the lights off upstairs",
        ),
    ),
    Profile(
        "forecast",
        "The weather outside and the forecast: rain, showers, pouring rain, drizzle, snow, "
        "hail, sun, sunshine, wind, storms, thunder, temperature outdoors, heat and cold, "
        "frost, freezing, clouds, fog, humidity outside, what to wear outside (jacket, "
        "gloves, sunglasses), umbrellas, today, tonight, tomorrow, the weekend and the "
        "coming days.",
        (
            "what will the weather be like tomorrow",
            "is it going to rain later",
            "will it be sunny this weekend",
            "do I need a jacket when I go out",
            "should I take an umbrella",
            "is it going to be cold tonight",
            "will there be frost in the morning",
            "how warm will it be outside on Saturday",
            "is a storm coming",
            "is it a good day to dry laundry outside",
            "will it be nice weather for a walk tomorrow",
            "what is the chance of showers",
            "how strong will the wind be",
            "will it stay dry all day",
            "is it going to be hot next week",
        ),
    ),
    Profile(
        "news",
        "News and current events from the user's news feeds: headlines, top stories, "
        "breaking news, politics, economy, world events, what the papers and sites report.",
        (
            "what are the headlines",
            "what is happening in the world",
            "give me a news briefing",
            "any breaking news",
            "what are the main stories today",
            "update me on the latest events",
            "what is new in my feeds",
            "what do the papers say about the government",
            "news about the economy",
            "latest reports about the war",
        ),
    ),
    Profile(
        "web",
        "Live information from the internet: prices, shopping, products, reviews, opening "
        "hours of shops and businesses, sports scores and results, travel, flights, tickets, "
        "events, local places and restaurants, anything recent or commercial.",
        (
            "search the internet for this",
            "how much does it cost to buy",
            "where can I buy a new one",
            "what is the price of it today",
            "when does the shop open",
            "what time does the store close",
            "is the restaurant open on Sunday",
            "what was the final score of the game",
            "who won the race",
            "how much are train tickets",
            "find cheap hotels",
            "what are the best reviewed headphones",
            "what concerts are on this weekend",
            "what is the share price of the company",
        ),
    ),
    Profile(
        "kiwix",
        "Encyclopedia knowledge (Wikipedia): definitions, what something is, how things work, "
        "science, history, geography, famous people, inventions, countries, languages, "
        "biology, medicine, astronomy, facts and explanations.",
        (
            "what is a galaxy",
            "who was Julius Caesar",
            "who invented the steam engine",
            "when did the Second World War start",
            "explain how electricity works",
            "what is the capital of Peru",
            "how many people live in India",
            "what does the word ubiquitous mean",
            "what causes earthquakes",
            "how does the heart pump blood",
            "what is the largest desert",
            "who discovered the electron",
            "what language do they speak in Belgium",
            "what is the history of the printing press",
            "define photosynthesis",
            "what are the symptoms of a disease",
        ),
    ),
    Profile(
        "uptime",
        "Uptime monitoring of the user's servers and self-hosted services: whether services, "
        "websites, the NAS, apps and servers are up, down, reachable, healthy, online or "
        "offline, outages and downtime.",
        (
            "is anything offline",
            "are all my services running",
            "is the server healthy",
            "are my self-hosted apps up",
            "did any service go down",
            "is my homelab ok",
            "are the monitors all green",
            "any outages today",
            "is the website reachable",
        ),
    ),
    Profile(
        "changes",
        "What happened and changed in the home over a period of time: the logbook, history, "
        "activity and events since a time, while the user was away, overnight, doors opened, "
        "who came and went.",
        (
            "what happened while I was away",
            "what changed since this morning",
            "show me the activity of the last hours",
            "what went on overnight",
            "when was the door opened today",
            "who came home this afternoon",
            "any events in the house since noon",
            "what did I miss",
            "summarise today's home activity",
        ),
    ),
    Profile(
        "rag",
        "The user's own documents: manuals, guides, notes, contracts, policies, invoices, "
        "recipes, PDFs, and the Mnemolis documentation; how to use, clean, repair, install "
        "or configure an appliance or the software.",
        (
            "what does the manual say",
            "how do I clean the filter of the appliance",
            "how do I reset the device",
            "how do I install and configure it",
            "what does my contract say about cancellation",
            "what is in my notes about the project",
            "find the invoice in my files",
            "what does the guide recommend",
            "which of my recipes uses eggs",
            "what does the warranty cover",
            "how do I set up the integration",
        ),
    ),
    Profile(
        "memory",
        "Things the user told the assistant to remember: personal facts, preferences, "
        "favourites, birthdays, family rules, where things were left, what the user said "
        "before.",
        (
            "what did I tell you about it",
            "do you remember what I said",
            "what is my favourite",
            "what are my preferences",
            "when is my brother's birthday",
            "where did I put the keys",
            "what rules did we agree on",
            "what do you know about me",
            "did I mention this before",
        ),
    ),
)

# Not a source: requests no source's data answers (small talk, creative writing). When
# the meaning stage finds a question closest to this, no source is picked by meaning.
NONE = "none"
SMALL_TALK = Profile(
    NONE,
    "Small talk and creative requests that need no data: jokes, tales, poems, songs, "
    "greetings, feelings, compliments, games, chatting, opinions.",
    (
        "tell me a bedtime tale",
        "write a limerick about a frog",
        "compose a short poem about the sea",
        "sing a lullaby",
        "how is your day going",
        "good morning to you",
        "let's play twenty questions",
        "cheer me up",
        "say something funny",
        "draft a thank you note for my aunt",
        "what is a good name for a goldfish",
        "I feel lonely",
        "thank you very much",
        "who made you",
        "do you like music",
    ),
)
PROFILES = (*PROFILES, SMALL_TALK)
