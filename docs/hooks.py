"""MkDocs hooks of the manual: the committed results and configs as pages and files of the site,
and the reference sections generated from the package's own declarations.

A page asks for a generated section with a marker line:

- `<!-- generated: bots -->`: every registered bot, the games it plays and its parameters
  (`registry.list_bots()`: each parameter's default and doc as its `params.setting` declares);
- `<!-- generated: settings MODULE:CLASS -->`: the keys of one config section, from the
  settings dataclass's `params.setting` declarations.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

from spiel_bounded import registry
from spiel_bounded.params import declared

ROOT = Path(__file__).resolve().parents[1]
SHARED = ("results", "configs")
"""Repository folders whose files the manual links to, served at the same paths."""
SKIPPED_SUFFIXES = (".lock",)
MARKER = re.compile(r"^<!-- generated: (\w+)(?: (\S+))? -->$", re.MULTILINE)


def on_files(files: Files, config: Any) -> Files:
    for folder in SHARED:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix not in SKIPPED_SUFFIXES:
                files.append(
                    File(
                        str(path.relative_to(ROOT)),
                        src_dir=str(ROOT),
                        dest_dir=config["site_dir"],
                        use_directory_urls=config["use_directory_urls"],
                    )
                )
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    return MARKER.sub(lambda match: generated(match.group(1), match.group(2)), markdown)


def generated(kind: str, argument: str | None) -> str:
    if kind == "bots":
        return bots_reference()
    if kind == "settings" and argument:
        module, _, name = argument.partition(":")
        return settings_table(getattr(importlib.import_module(module), name))
    raise ValueError(f"unknown generated section {kind!r} {argument or ''}")


def bots_reference() -> str:
    parts = []
    for spec in registry.list_bots():
        parts += [f"### `{spec.name}`", "", spec.description + ".", "", f"Plays: {spec.plays}.", ""]
        if spec.params:
            parts += ["| parameter | default | meaning |", "| --- | --- | --- |"]
            parts += [
                f"| `{name}` | {shown(param.default, param.required)} | {cell(param.doc)} |"
                for name, param in spec.params.items()
            ]
        else:
            parts.append("No parameters.")
        parts.append("")
    return "\n".join(parts)


def settings_table(settings_type: type) -> str:
    rows = ["| key | default | meaning |", "| --- | --- | --- |"]
    rows += [
        f"| `{name}` | {shown(param.default, param.required)} | {cell(param.doc)} |"
        for name, param in declared(settings_type).items()
    ]
    return "\n".join(rows)


def shown(value: Any, required: bool) -> str:
    if required:
        return "required"
    return f'`"{value}"`' if isinstance(value, str | Path) else f"`{value!r}`"


def cell(text: str) -> str:
    return text.replace("|", "\\|")
