"""The REST overview in docs/api.md lists every route the server registers."""

from __future__ import annotations

import tempfile
from pathlib import Path

from mnemolis.app import create_app
from mnemolis.rest import keys
from mnemolis.settings import load_settings

REPO = Path(__file__).resolve().parents[2]


def test_api_doc_lists_every_route() -> None:
    app = create_app(load_settings(environ={}, overrides={"data_dir": tempfile.mkdtemp()}))
    doc = (REPO / "docs/api.md").read_text(encoding="utf-8")
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in doc.splitlines()
        if line.startswith("| ")
    ]
    missing = []
    for ep in app[keys.ENDPOINT_LIST]:
        names = {f"`{ep.path}`", f"`{ep.path}/`", f"`{ep.path.rstrip('/') or '/'}`"}
        if not any(
            len(row) > 2 and ep.method in row[0] and any(n in row[1] for n in names) for row in rows
        ):
            missing.append(f"{ep.method} {ep.path}")
    assert not missing, f"docs/api.md does not list: {missing}"


def test_readme_links_resolve() -> None:
    import re

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#:]+)\)", readme):
        assert (REPO / target).exists(), f"README links to missing {target}"
