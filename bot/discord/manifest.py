"""The command tree as data (for the golden test and for deciding whether a sync is needed) and as text
(for `python -m bot check`). Built offline: nothing here talks to Discord."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from discord import app_commands

OPTION_TYPES = {1: "subcommand", 2: "group", 3: "string", 4: "integer", 5: "boolean", 6: "user", 7: "channel",
                8: "role", 9: "mentionable", 10: "number", 11: "attachment"}
_OPTION_KEYS = ("name", "description", "type", "required", "choices", "min_value", "max_value", "autocomplete",
                "channel_types", "min_length", "max_length")


def _option(raw: dict[str, Any]) -> dict[str, Any]:
    option = {key: raw[key] for key in _OPTION_KEYS if raw.get(key) is not None and raw[key] is not False
              and raw[key] != []}
    option["type"] = OPTION_TYPES.get(raw["type"], raw["type"])
    if raw.get("options"):
        option["options"] = [_option(o) for o in raw["options"]]
    return option


def command_manifest(tree: app_commands.CommandTree) -> list[dict[str, Any]]:
    """Each top-level command or group: name, description, who may see it, and its options (recursively)."""
    manifest = []
    for command in sorted(tree.get_commands(), key=lambda c: c.name):
        raw = command.to_dict(tree)
        entry = {"name": raw["name"], "description": raw["description"]}
        if raw.get("default_member_permissions") is not None:
            entry["default_member_permissions"] = raw["default_member_permissions"]
        entry["options"] = [_option(o) for o in raw.get("options", [])]
        manifest.append(entry)
    return manifest


def sync_payload(tree: app_commands.CommandTree) -> list[dict[str, Any]]:
    """Exactly what a global `tree.sync()` sends Discord (the tree has no translator): every field Discord receives,
    the manifest's and those it leaves out (contexts, integration types, nsfw, localizations)."""
    return [command.to_dict(tree) for command in tree.get_commands()]


def manifest_hash(tree: app_commands.CommandTree) -> str:
    """The hash of what a global sync sends Discord, in an order that does not depend on the order the commands were
    added: a sync is needed exactly when it changed."""
    payload = sorted(sync_payload(tree), key=lambda command: (command.get("type", 1), command["name"]))
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:12]


def _signature(option: dict[str, Any]) -> str:
    text = option["name"] + ("" if option.get("required") else "?") + f":{option['type']}"
    if "min_value" in option or "max_value" in option:
        text += f"[{option.get('min_value', '')}..{option.get('max_value', '')}]"
    if option.get("choices"):
        text += "{" + "|".join(str(c["value"]) for c in option["choices"]) + "}"
    return text


def describe_tree(tree: app_commands.CommandTree) -> list[str]:
    """One line per group and per subcommand with its options (`name?` marks an optional one)."""
    lines = []
    for entry in command_manifest(tree):
        lines.append(f"/{entry['name']} - {entry['description']}")
        for sub in entry["options"]:
            if sub["type"] == "subcommand":
                args = " ".join(_signature(o) for o in sub.get("options", []))
                lines.append(f"  {sub['name']} {args}".rstrip() + f" - {sub['description']}")
    return lines
