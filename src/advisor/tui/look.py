"""Colours that stay readable in both themes, and the theme choice remembered between runs.

WCAG 2.1 asks 4.5:1 contrast for normal text. Textual's light theme draws on #E0E0E0, where its own warning
orange (#ffa62b) reaches about 1.8:1; the light palette below is chosen to pass against that background, and
tests/test_tui_trust.py checks every pair with the WCAG formula.
"""

from __future__ import annotations

import os
from pathlib import Path

DARK = {"warn": "#ffa62b", "error": "#ff6b6b", "background": "#1e1e1e"}
LIGHT = {"warn": "#7a3e00", "error": "#a4002a", "background": "#e0e0e0"}
THEMES = ("textual-dark", "textual-light")


def palette(dark: bool) -> dict[str, str]:
    return DARK if dark else LIGHT


def contrast(fg: str, bg: str) -> float:
    """WCAG 2.1 contrast ratio of two #rrggbb colours."""
    def luminance(hex_colour: str) -> float:
        channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def settings_path() -> Path:
    """$ADVISOR_CONFIG_DIR, else $XDG_CONFIG_HOME/advisor, else ~/.config/advisor: settings.json."""
    base = os.environ.get("ADVISOR_CONFIG_DIR")
    if base:
        return Path(base) / "settings.json"
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(xdg) / "advisor" / "settings.json"


def load_theme() -> str | None:
    """The theme saved last time, or None (unreadable or odd settings are ignored: they are a convenience)."""
    try:
        text = settings_path().read_text(encoding="utf-8")
    except (OSError, ValueError, RuntimeError):
        return None
    import json  # only with a settings file: the first screen needs no JSON otherwise

    try:
        data = json.loads(text)
    except ValueError:
        return None
    theme = data.get("theme") if isinstance(data, dict) else None
    return theme if theme in THEMES else None


def save_theme(theme: str) -> None:
    """Remember the theme; a settings file that cannot be written costs nothing but the memory."""
    import json

    path = settings_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps({"theme": theme}) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except (OSError, RuntimeError):
        pass
