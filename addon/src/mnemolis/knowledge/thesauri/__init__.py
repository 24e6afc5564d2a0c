"""Household words that name the same thing in the other languages, one module each.

Written as general vocabulary from the English thesaurus's groups (``thesaurus.py``)
and what homes in each language hold, by writers who had read neither the answering
code nor any evaluation's questions.
"""
