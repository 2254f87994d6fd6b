"""`advisor init`: a commented answers template generated from the answers model itself.

Generated, not hand-written, so every field and its description stay in step with the model;
a test checks that the template loads as valid answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from advisor.base.i18n import zh
from advisor.inputs.answers import Answers
from advisor.inputs.questions import DEFAULT_DRAFT_ZH_BUDGET

EXAMPLE_VALUES: dict[str, dict[str, Any]] = {
    "model": {"params": "7B"},
    "training": {"tokens": "1T"},
    "cluster": {"gpu": "a100-80gb", "gpus": 64},
    "budget": {"price_per_gpu_hour": 2.0, "currency": "USD"},
}
"""Values written uncommented: the required fields plus a currency, so the template runs as is."""


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


ANSWERS_ZH = Path(__file__).resolve().parents[1] / "data" / "i18n" / "answers_zh.yaml"
"""Each field's description in Chinese, by path ('model.params'), and the header: what `advisor --lang zh init` writes
(a Chinese PM got a template commented in English; review 2026-12-07)."""


def descriptions_zh() -> dict[str, Any]:
    from advisor.base.safeload import parse_trusted_cached

    return dict(parse_trusted_cached(ANSWERS_ZH) or {})


def answers_template() -> str:
    chinese = zh()
    said = descriptions_zh() if chinese else {}
    words: dict[str, str] = said.get("fields", {})
    header = said.get("header") or ("advisor answers file. Required: model.params, cluster.gpu, cluster.gpus, budget.price_per_gpu_hour,\n"
                                    "and training.tokens or training.duration_hours / duration_days. Lines starting with # are defaults\n"
                                    "or optional fields: uncomment to change them. Run: advisor advise answers.yaml")
    lines = [f"# {line}" for line in str(header).splitlines()]
    for section, field in Answers.model_fields.items():
        sub = field.annotation
        if not isinstance(sub, type):  # an optional section (operations): the model inside it
            sub = next(a for a in getattr(sub, "__args__", ()) if isinstance(a, type) and issubclass(a, BaseModel))
        assert isinstance(sub, type) and issubclass(sub, BaseModel)
        given = EXAMPLE_VALUES.get(section, {})
        if section == "budget" and chinese:  # in Chinese the guided Q&A's price in yuan, as the currency comment says
            given = DEFAULT_DRAFT_ZH_BUDGET
        lines.append("")
        # A header with only commented keys under it would read as null, so comment it too.
        lines.append(f"{'' if given else '# '}{section}:  # {words.get(section, field.description)}")
        for name, f in sub.model_fields.items():
            desc = words.get(f"{section}.{name}") or (f.description or "").replace("\n", " ")
            if name in given:
                lines.append(f"  {name}: {_yaml_scalar(given[name])}  # {desc}")
            else:
                default = None if f.is_required() else f.get_default(call_default_factory=True)
                lines.append(f"  # {name}: {_yaml_scalar(default)}  # {desc}".replace(":   #", ":  #"))
    return "\n".join(lines) + "\n"
