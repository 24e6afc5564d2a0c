"""The router's side of a question's language: what it says when nothing reads it, and
cutting a question in one breath at the language's "and"."""

from __future__ import annotations

import re

from ..assist.grammar import AND_WORDS
from ..language import ENGLISH, Language, code_of, detect

__all__ = [
    "ENGLISH",
    "ONLY_ENGLISH",
    "Language",
    "code_of",
    "detect",
    "reply",
    "reply_language",
    "split_and",
]

ONLY_ENGLISH = "Sorry, I could not understand that."
ENGLISH_CODE = "en"

# What Mnemolis itself says, in the languages whose questions it measures (HA's own
# test sentences, the households): a German question nothing answers is told so in German.
# ``nothing`` says no source answered, ``tried`` which sources failed and how,
# ``command`` that a command belongs to Home Assistant, ``late`` that the deadline passed.
# ``skipped`` … ``error`` say how a source failed; English says it in the API's own
# words, so it has none of them.
REPLIES: dict[str, dict[str, str]] = {
    "en": {
        "nothing": "No source could answer this question.",
        "tried": "Tried: {runs}.",
        "command": (
            "“{query}” is a command for Home Assistant ({intent}). Mnemolis answers "
            "questions and never switches or changes anything: say it to Home Assistant's "
            "Assist, or let your AI client use Home Assistant's own MCP server."
        ),
        "late": (
            "No answer within the {deadline} s deadline (routing.deadline): Mnemolis is "
            "busy with other questions. Ask again in a moment, or ask a shorter question."
        ),
    },
    "de": {
        "skipped": "nicht eingerichtet",
        "empty": "nichts gefunden",
        "timeout": "nicht rechtzeitig",
        "error": "Fehler",
        "nothing": "Keine Quelle konnte diese Frage beantworten.",
        "tried": "Versucht: {runs}.",
        "command": (
            "„{query}“ ist ein Befehl für Home Assistant ({intent}). Mnemolis beantwortet "
            "Fragen und schaltet oder ändert nie etwas: Sag es dem Assist von Home "
            "Assistant oder lass deinen KI-Client den MCP-Server von Home Assistant nutzen."
        ),
        "late": (
            "Keine Antwort innerhalb der Frist von {deadline} s (routing.deadline): "
            "Mnemolis ist mit anderen Fragen beschäftigt. Frag gleich noch einmal oder "
            "stelle eine kürzere Frage."
        ),
    },
    "fr": {
        "skipped": "non configurée",
        "empty": "rien trouvé",
        "timeout": "pas de réponse à temps",
        "error": "erreur",
        "nothing": "Aucune source n'a pu répondre à cette question.",
        "tried": "Essayé : {runs}.",
        "command": (
            "« {query} » est une commande pour Home Assistant ({intent}). Mnemolis répond "
            "aux questions et n'allume, n'éteint ni ne modifie jamais rien : dites-la à "
            "Assist de Home Assistant, ou laissez votre client d'IA utiliser le serveur MCP "
            "de Home Assistant."
        ),
        "late": (
            "Pas de réponse dans le délai de {deadline} s (routing.deadline) : Mnemolis "
            "est occupé par d'autres questions. Reposez-la dans un instant, ou posez une "
            "question plus courte."
        ),
    },
    "es": {
        "skipped": "no configurada",
        "empty": "nada encontrado",
        "timeout": "sin respuesta a tiempo",
        "error": "error",
        "nothing": "Ninguna fuente pudo responder a esta pregunta.",
        "tried": "Consultadas: {runs}.",
        "command": (
            "«{query}» es una orden para Home Assistant ({intent}). Mnemolis responde "
            "preguntas y nunca enciende, apaga ni cambia nada: díselo al Assist de Home "
            "Assistant o deja que tu cliente de IA use el servidor MCP de Home Assistant."
        ),
        "late": (
            "Sin respuesta dentro del plazo de {deadline} s (routing.deadline): Mnemolis "
            "está ocupado con otras preguntas. Vuelve a preguntar en un momento o haz una "
            "pregunta más corta."
        ),
    },
    "it": {
        "skipped": "non configurata",
        "empty": "niente trovato",
        "timeout": "nessuna risposta in tempo",
        "error": "errore",
        "nothing": "Nessuna fonte ha potuto rispondere a questa domanda.",
        "tried": "Consultate: {runs}.",
        "command": (
            "«{query}» è un comando per Home Assistant ({intent}). Mnemolis risponde alle "
            "domande e non accende, spegne né cambia mai nulla: dillo ad Assist di Home "
            "Assistant, o lascia che il tuo client di IA usi il server MCP di Home Assistant."
        ),
        "late": (
            "Nessuna risposta entro il limite di {deadline} s (routing.deadline): Mnemolis "
            "è occupato con altre domande. Richiedi tra un momento, o fai una domanda più "
            "breve."
        ),
    },
    "pt": {
        "skipped": "não configurada",
        "empty": "nada encontrado",
        "timeout": "sem resposta a tempo",
        "error": "erro",
        "nothing": "Nenhuma fonte conseguiu responder a esta pergunta.",
        "tried": "Consultadas: {runs}.",
        "command": (
            "«{query}» é um comando para o Home Assistant ({intent}). O Mnemolis responde a "
            "perguntas e nunca liga, desliga nem altera nada: diga-o ao Assist do Home "
            "Assistant, ou deixe o seu cliente de IA usar o servidor MCP do Home Assistant."
        ),
        "late": (
            "Sem resposta dentro do prazo de {deadline} s (routing.deadline): o Mnemolis "
            "está ocupado com outras perguntas. Pergunte de novo daqui a pouco, ou faça uma "
            "pergunta mais curta."
        ),
    },
    "nl": {
        "skipped": "niet ingesteld",
        "empty": "niets gevonden",
        "timeout": "niet op tijd",
        "error": "fout",
        "nothing": "Geen enkele bron kon deze vraag beantwoorden.",
        "tried": "Geprobeerd: {runs}.",
        "command": (
            "“{query}” is een opdracht voor Home Assistant ({intent}). Mnemolis "
            "beantwoordt vragen en schakelt of wijzigt nooit iets: zeg het tegen Assist van "
            "Home Assistant, of laat je AI-client de MCP-server van Home Assistant gebruiken."
        ),
        "late": (
            "Geen antwoord binnen de termijn van {deadline} s (routing.deadline): Mnemolis "
            "is bezig met andere vragen. Vraag het zo opnieuw, of stel een kortere vraag."
        ),
    },
}


def reply_language(tag: str | None, text: str = "") -> str:
    """The language of ``REPLIES`` to answer in: the request's (``de-AT`` → ``de``), else
    the one the question looks written in, else English."""
    if tag:
        code = tag.replace("_", "-").split("-")[0].lower()
        return code if code in REPLIES else ENGLISH_CODE
    for code in code_of(detect(text).code):
        if code in REPLIES:
            return code
    return ENGLISH_CODE


def reply(key: str, language: str | None, **values: object) -> str:
    """What Mnemolis says for ``key`` in ``language`` (a code of ``REPLIES``, or English)."""
    said = REPLIES.get(language or ENGLISH_CODE, REPLIES[ENGLISH_CODE])
    return said[key].format(**values)


def split_and(text: str, language: str | None) -> list[str]:
    """A question in one breath cut at commas and the language's "and" (the caller
    keeps the cut only when every piece reads as a question of its own)."""
    words = AND_WORDS.get(language or "", ())
    if not words:
        return [text]
    joined = "|".join(re.escape(w) for w in words)
    pieces = re.split(rf"\s*,\s*(?:(?:{joined})\s+)?|\s+(?:{joined})\s+", text, flags=re.I)
    return [p.strip(" ,") for p in pieces if p and p.strip(" ,")]
