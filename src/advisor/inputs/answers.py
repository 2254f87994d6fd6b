"""The answers model: what the user tells advisor, validated strictly in one place.

Field names are a public contract (other tools and the TUI read them). Every field carries a
description; ``advisor schema`` prints them and the TUI shows them as help text.
"""

import math
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic_core import InitErrorDetails, PydanticCustomError
from pydantic import (
    AfterValidator,
    ValidationInfo,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from advisor.knowledge.catalog import GpuSpec, gpu_catalog, resolve_gpu
from advisor.knowledge.strategies import STRATEGIES as STRATEGIES  # re-exported: many modules read it from here
from advisor.base.errors import AnswerError
from advisor.base.limits import BYTES_PER_COUNT, MAX_COUNT, MAX_SEARCH_COUNTS, SEARCH_MEMORY_BYTES
from advisor.base.text import plain
from advisor.inputs.hfconfig import ConfigError, known_models, model_fields, model_key, model_preset, read_config
from advisor.base.safeload import load_mapping, parse_mapping
from advisor.base.i18n import N_, _, zh
from advisor.base.units import (
    CURRENCY_MARKS,
    as_written,
    MAX_QUANTITY_CHARS,
    count,
    duration_pattern,
    money_pattern,
    price_pattern,
    parse_duration,
    parse_money,
    parse_quantity,
    readable_figure,
    plural,
    quantity_pattern,
    split_money,
    strip_per_hour,
)


def _got(value: Any) -> str:
    """A rejected value as the person wrote it: -8 typed into a question reaches the check as -8.0 (parse_quantity) and
    was quoted back as 'got -8.0' (user try 2026-12-06)."""
    return repr(as_written(value)) if isinstance(value, float) else repr(value)


def _too_large(value: Any) -> str:
    """A number past what any field takes (MAX_NUMBER, MAX_COUNT), without a limit of its own: 'at most 1,000,000
    trillion' beside the parameters' real bound of 100 trillion, and 'at most 10,000,000' GPUs beside the search's
    800,000, named limits a field does not have (user try 2026-12-07). The field's own range is said for values below."""
    try:
        shown = readable_figure(float(value))
    except (OverflowError, ValueError, TypeError):
        shown = repr(value)
    return _("is far too large for any real training run (got {value})", value=shown)


def _quantity(value: Any) -> float:
    number = parse_quantity(value)
    if number < 1:
        raise ValueError(_("must be at least 1 (got {value}); write counts in full or with a suffix, e.g. 7B, 1T, 70亿", value=repr(value)))
    if number > MAX_NUMBER:
        raise ValueError(_too_large(value))
    return number


def _positive_number(value: Any) -> float:
    if isinstance(value, str) and len(value) > 64:
        raise ValueError(_("expected a number, got {n} characters of text", n=count(len(value))))
    if isinstance(value, str):
        value = parse_quantity(value)  # "1,600", "1.6k": numbers as people type them
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(_("expected a number, got {what}", what=_describe(value)))
    if isinstance(value, int) and value > MAX_NUMBER:
        raise ValueError(_too_large(value))
    if not math.isfinite(value):
        raise ValueError(_("must be a finite number (NaN and infinity are not allowed)"))
    if value <= 0:
        raise ValueError(_("must be greater than zero (got {value})", value=_got(value)))
    if value > MAX_NUMBER:
        raise ValueError(_too_large(value))
    return float(value)


MAX_NUMBER = 1e18
"""Larger prices, bandwidths and memories describe no real job and overflow the cost arithmetic."""


def _count(value: Any) -> int:
    if isinstance(value, str) and len(value) > 64:
        raise ValueError(_("expected a whole number, got {n} characters of text", n=count(len(value))))
    if isinstance(value, str):
        try:
            value = parse_quantity(value)  # "1,024", "2k", "4张"
        except ValueError:  # a count's own examples, not a parameter count's '7B or 70亿' (user try 9)
            raise ValueError(_("cannot read {value} as a count; write a whole number such as 64, 1,024, 2k or 4张",
                               value=repr(value))) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(_("expected a whole number, got {what}", what=_describe(value)))
    if isinstance(value, int) and value > MAX_COUNT:
        raise ValueError(_too_large(value))
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        raise ValueError(_("expected a whole number, got {what}", what=repr(value)))
    if value <= 0:
        raise ValueError(_("must be a positive whole number (got {value})", value=_got(value)))
    if value > MAX_COUNT:
        raise ValueError(_too_large(value))
    return int(value)


_CONTEXT_SIZE = re.compile(r"\s*(\d{1,4})\s*([kKmM])\s*")


def _seq_len(value: Any) -> int:
    """A sequence length: '32k' and '128K' are the binary sizes context windows are named by (Llama 3.1's '128K context'
    is max_position_embeddings 131,072 in its config.json), so a power of two before k or M counts 1,024s or 1,048,576s;
    anything else reads as any count ('2,000', '3k' = 3,000)."""
    if isinstance(value, str):
        m = _CONTEXT_SIZE.fullmatch(value)
        if m and int(m.group(1)) > 0 and int(m.group(1)) & (int(m.group(1)) - 1) == 0:
            return _count(int(m.group(1)) * (1024 if m.group(2) in "kK" else 1024 * 1024))
    return _count(value)


def _strict_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(_("expected true or false, got {what}", what=_describe(value)))
    return value


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return _("a boolean ({value})", value=str(value).lower())
    if isinstance(value, str):
        return _("the text {value}", value=repr(value))
    if value is None:
        return _("nothing (null)")
    if isinstance(value, (list, tuple)):
        return _("a list")
    if isinstance(value, dict):
        return _("a mapping")
    return repr(value)


def _money(value: Any) -> float:
    """An amount: 500000, '500,000', '500k', '50万', '¥10', '10元' (the currency mark is checked by the section)."""
    if isinstance(value, str):
        value, _currency_mark = parse_money(value)
    return _positive_number(value)


def _price(value: Any) -> float:
    """A price per GPU-hour: an amount, with its unit of time or without ('20元/小时', '$2.5/h'). Zero is refused with
    what to give instead: a team on its own GPUs typed 0 and learnt only that it must be above zero (user try 12)."""
    amount = strip_per_hour(value)
    try:
        return _money(amount)
    except ValueError as exc:
        if _at_most_zero(amount):
            raise ValueError(_("{error}; for GPUs you own, give what one GPU-hour costs you (depreciation, power and hosting "
                               "over the hours it runs)", error=str(exc))) from None
        raise


def _at_most_zero(value: Any) -> bool:
    """A number, or an amount as typed ('¥0'), that is zero or below."""
    try:
        n = parse_money(value)[0] if isinstance(value, str) else value
    except ValueError:
        return False
    return isinstance(n, (int, float)) and not isinstance(n, bool) and math.isfinite(n) and n <= 0


def _days(value: Any) -> float:
    return _positive_number(parse_duration(value, "days") if isinstance(value, str) else value)


def _hours(value: Any) -> float:
    return _positive_number(parse_duration(value, "hours") if isinstance(value, str) else value)


def _percent(value: Any) -> float:
    """A share in percent, 0 to 100 ('15', '15%')."""
    if isinstance(value, str) and value.strip().endswith("%"):
        value = value.strip()[:-1]
    if isinstance(value, str) and len(value) <= 64:
        try:
            value = float(value)
        except ValueError:
            raise ValueError(_("expected a percentage such as 15 or 15%, got {what}", what=_describe(value))) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(_("expected a percentage such as 15 or 15%, got {what}", what=_describe(value)))
    if not 0 <= value <= 100:
        raise ValueError(_("must be between 0 and 100 percent (got {value})", value=_figure(float(value))))
    return float(value)


def _field_error(loc: tuple[Any, ...], message: str, value: Any) -> ValidationError:
    """A validation error at ``loc`` below the model raising it: a check across fields (a candidate's max_gpus against
    today's gpus) still names the one field to fix, 'cluster.candidates[1].max_gpus'."""
    return ValidationError.from_exception_data("Answers", [InitErrorDetails(
        type=PydanticCustomError("value_error", "Value error, " + message.replace("{", "(").replace("}", ")")), loc=loc, input=value)])


KEY_SYNONYMS: dict[str, str] = {
    "gpu_count": "gpus", "num_gpus": "gpus", "n_gpus": "gpus", "gpu_num": "gpus", "number_of_gpus": "gpus", "ngpus": "gpus",
    "gpu_type": "gpu", "gpu_model": "gpu", "num_params": "params", "parameters": "params", "model_size": "params",
    "seq_length": "seq_len", "sequence_length": "seq_len", "max_seq_len": "seq_len", "context_length": "seq_len",
    "deadline": "deadline_days", "budget": "limit", "price": "price_per_gpu_hour", "gpu_hour_price": "price_per_gpu_hour",
    "num_epochs": "epochs", "num_examples": "examples", "samples": "examples",
}
"""Keys people write for a field, by meaning where spelling is too far for difflib to offer it ('gpu_count' got no
did-you-mean where 'deadlin_days' did; user try 14): offered only where the section has that field."""


def _close_matches(word: str, possibilities: Any, n: int = 3, cutoff: float = 0.6) -> list[str]:
    """difflib.get_close_matches, with difflib imported only when a problem needs a suggestion (not at start-up)."""
    import difflib

    return difflib.get_close_matches(word, possibilities, n=n, cutoff=cutoff)


def _catalog_gpu(value: Any) -> str:
    """A catalog id for what was typed, or a one-line refusal with the nearest name."""
    known = list(gpu_catalog())
    gid = resolve_gpu(value)
    if gid is None:
        close = _close_matches(value.strip().lower(), known, n=1, cutoff=0.5)
        hint = _("; did you mean '{name}'?", name=close[0]) if close else _("; known: {names}", names=", ".join(known))
        raise ValueError(_("unknown GPU '{value}'{hint}", value=value, hint=hint))
    return gid


def _currency(value: Any) -> str:
    if isinstance(value, str) and value.strip().lower() in CURRENCY_MARKS:
        return CURRENCY_MARKS[value.strip().lower()]  # ¥, 元, 人民币, RMB -> CNY; $ -> USD
    if not isinstance(value, str) or not value.isascii() or not value.isalpha() or not 1 <= len(value) <= 8:
        shown = repr(value[:20]) if isinstance(value, str) else _describe(value)
        raise ValueError(_("must be 1 to 8 letters such as USD, CNY or EUR, or ¥ / 元 / 人民币 (got {value})", value=shown))
    return value


def _within(low: float, high: float) -> AfterValidator:
    """A plausible range for one quantity. These are validation bounds, not facts: each sits far outside anything
    published, so a typo (1e-12 for a price, 5e-324 days) gets a one-line refusal instead of an absurd answer or a
    division by zero in the estimate (issue 19)."""

    def check(value: float) -> float:
        if not low <= value <= high:
            raise ValueError(_("must be between {low} and {high} (got {value}); a value outside that describes no real training run",
                               low=_figure(low), high=_figure(high), value=_figure(value)))
        return value

    return AfterValidator(check)


def _figure(value: float) -> str:
    """0.001, 36,500, 100 trillion: a bound or a value as a person reads it (units.readable_figure: no 1e14)."""
    return readable_figure(value)


# Validation bounds (issue 19). Largest published figures, for scale: 1.6T parameters (Switch-C, arXiv:2101.03961
# Table 9), 36T training tokens (Qwen3, arXiv:2505.09388 section 3). The bounds below sit well outside them.
PARAMS_RANGE = _within(1e6, 1e14)  # 1M .. 100T parameters
MAX_TOKENS = 1e15  # 1,000T tokens: the most `tokens` takes, and the most examples x tokens_per_example x epochs may make
TOKENS_RANGE = _within(1e6, MAX_TOKENS)  # 1M (one default global batch) ..
DAYS_RANGE = _within(0.001, 36_500)  # 86 seconds .. a century
HOURS_RANGE = _within(0.01, 876_000)  # 36 seconds .. a century
PRICE_RANGE = _within(0.001, 1e9)  # a tenth of a cent (or fen) per GPU-hour ..
BANDWIDTH_RANGE = _within(0.1, 1e6)  # GB/s or Gbit/s: 0.1 .. a million
MEMORY_RANGE = _within(1, 1e6)  # GB
TFLOPS_RANGE = _within(0.1, 1e6)
LOADER_RANGE = _within(1, 1e15)  # tokens/s
RUNS_RANGE = _within(0.01, 1e6)  # runs a month: one in eight years ..

def _number_or_text(kind: str, pattern: str, examples: list[Any]) -> WithJsonSchema:
    """The JSON Schema of a field that takes a number or the text people write for one: what `advisor schema` prints
    must accept what advisor itself writes (`advisor init`'s 7B, the guided Q&A's $3.5 and 50万), so a file's
    validity never depends on which tool checks it (issue 23). The ranges are left to the validators' messages."""
    return WithJsonSchema({"anyOf": [{"type": kind}, {"type": "string", "pattern": pattern, "maxLength": MAX_QUANTITY_CHARS}],
                           "examples": examples})


Quantity = Annotated[float, BeforeValidator(_quantity), _number_or_text("number", quantity_pattern(), [7e9, "7B", "70亿", "1.3 billion"])]
PositiveNumber = Annotated[float, BeforeValidator(_positive_number), _number_or_text("number", quantity_pattern(), [1600, "1,600", "1.6k"])]
Count = Annotated[int, BeforeValidator(_count), _number_or_text("integer", quantity_pattern(), [64, "1,024", "2k"])]
SeqLen = Annotated[int, BeforeValidator(_seq_len), _number_or_text("integer", quantity_pattern(), [8192, "8,192", "32k"])]
Money = Annotated[float, BeforeValidator(_money), _number_or_text("number", money_pattern(), [2.5, "$3.5", "¥10", "2,000,000", "50万"])]
Price = Annotated[float, BeforeValidator(_price), _number_or_text("number", price_pattern(), [2.5, "$3.5", "¥10", "10元/小时"])]
Days = Annotated[float, BeforeValidator(_days), _number_or_text("number", duration_pattern(), [3, "3d", "3 days", "3天", "72h"])]
Hours = Annotated[float, BeforeValidator(_hours), _number_or_text("number", duration_pattern(), [72, "72h", "3d", "72小时"])]
StrictBool = Annotated[bool, BeforeValidator(_strict_bool)]

# STRATEGIES (every candidate strategy id, in order of engineering simplicity) comes from the registry, strategies.py;
# the Literal below must list the same ids (tests/test_strategies.py checks it: pydantic needs them spelled out).

Percent = Annotated[float, BeforeValidator(_percent)]

Strategy = Literal[
    "ddp", "ddp-powersgd", "horovod", "fsdp", "fsdp-hybrid", "deepspeed-zero1", "deepspeed-zero2", "deepspeed-zero3", "deepspeed-zeropp",
    "deepspeed-zero3-offload", "megatron-3d"
]


class _Section(BaseModel):
    # defer_build: a section's own validator is built the first time a section is validated on its own (a default
    # section, a test); Answers, built at import, holds every section's schema within its own. Building each section's
    # validator and serializer as well, at import, cost ~8 ms of every run for nothing (issue 20).
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True, defer_build=True)


HEAD_WIDTH_RATIO = 4.0
"""How far heads x head_dim may sit from the hidden size before the answers ask to check it: published models reach 2x
(Qwen3-30B-A3B 4,096 at 2,048) and 2.9x (DeepSeek-V3's latent attention priced at 20,480 against 7,168)."""

DEFAULT_EXPERTS = 8
"""Routed experts assumed for a mixture of experts that does not say: Mixtral 8x7B's 8 (arXiv:2401.04088 Sec 2.1)."""


class ModelSection(_Section):
    """What is being trained."""

    config: str | None = Field(
        default=None, max_length=4096,
        description="Path to the model's Hugging Face config.json (Llama, Qwen, Mistral, Mixtral, Gemma, GPT-OSS, DeepSeek "
        "families), read from disk: params, layers, hidden size, heads, key-value heads, head size, sliding window, "
        "vocabulary, tied embeddings and experts come from it; a value given here as well wins (sliding_window: null "
        "turns the config's window off). A relative path is read from the working directory, else beside the answers file.",
    )
    name: str | None = Field(
        default=None, max_length=80,
        description="A known model by name (qwen2.5-7b/14b/32b/72b, qwen3-30b-a3b, llama-3.1-8b/70b/405b, mixtral-8x7b, deepseek-v3; "
        "'-Instruct' and an 'org/' prefix are ignored): its published shape, as its config.json gives it. A model's name "
        "written as params ('params: Qwen2.5-72B') is read the same way.")
    params: Annotated[Quantity, PARAMS_RANGE] = Field(description="Total parameter count, e.g. 7B, 1.3b, 70e9, or a known model's name "
                                                      "(see name). Drives memory and compute.")
    layers: Count | None = Field(default=None, description="Transformer layers. If omitted, taken from the nearest published shape (Megatron-LM 2021 Table 1).")
    hidden_size: Count | None = Field(default=None, description="Hidden size h. If omitted, solved from params and layers.")
    attention_heads: Count | None = Field(default=None, description="Attention heads. If omitted, hidden_size / 128 (head size of the published shapes).")
    kv_heads: Count | None = Field(default=None, description="Key-value heads (grouped-query attention, e.g. 8 for Llama 3). If omitted, as many as attention heads.")
    head_dim: Count | None = Field(
        default=None,
        description="Width of one attention head, where the model sets its own (config.json 'head_dim': Qwen3-30B-A3B 128 at "
        "hidden 2048, GPT-OSS 64). Attention work runs over heads x head_dim. If omitted, hidden_size / attention_heads.",
    )
    sliding_window: Count | None = Field(
        default=None,
        description="Tokens a sliding-window attention layer looks back, where the model has such layers (config.json "
        "'sliding_window': GPT-OSS 128, Gemma 3 1024, Mistral 7B v0.1 4096). Those layers' attention work stops growing "
        "with the sequence past the window. If omitted, every layer attends to the whole sequence.",
    )
    sliding_window_layers_pct: Percent | None = Field(
        default=None,
        description="Share of layers, in percent, that use the sliding window (GPT-OSS alternates: 50; Gemma 3 five in "
        "six: 83). Default 100 where sliding_window is given.",
    )
    seq_len: SeqLen = Field(default=2048, description="Training sequence length in tokens (default 2048, as in Megatron-LM 2021 and llm-foundry "
                            "benchmarks); '32k' is 32,768, as context windows are named.")
    vocab_size: Count = Field(default=32000, description="Vocabulary size (default 32,000, LLaMA's; arXiv:2302.13971).")
    active_params: Annotated[Quantity, PARAMS_RANGE] | None = Field(default=None, description="Mixture-of-experts only: parameters active per token; compute uses this, memory uses params.")
    experts_per_token: Count = Field(
        default=2,
        description="Mixture-of-experts only: routed experts per token (top-k) for the all-to-all traffic; default 2 "
        "(GShard and Mixtral route each token to 2; Llama 4 to 1 plus a shared expert).",
    )
    experts: Count | None = Field(
        default=None,
        description="Mixture-of-experts only: routed experts per MoE layer (Mixtral 8x7B: 8; DeepSeek-V3: 256). Expert "
        "parallelism splits them, so its degree must divide this. Default for a mixture of experts: 8, Mixtral 8x7B's "
        "(arXiv:2401.04088).",
    )

    @model_validator(mode="before")
    @classmethod
    def _from_config(cls, data: Any) -> Any:
        """Fill what the answers leave out from model.config, or from a known model named in name or written as params
        (user try 12: 'Qwen2.5-72B' was priced at a generic 57-layer shape); an unreadable file or an unknown name is left
        for the field to report."""
        if isinstance(data, dict) and data.get("config") is None:
            as_params = model_key(data.get("params"))
            named = model_key(data.get("name")) or as_params
            if named is not None:
                given = {k: v for k, v in data.items() if not (k == "params" and as_params)}  # a name as params is no count
                return {**model_preset(named), **given, "name": named}
        if not isinstance(data, dict) or not isinstance(data.get("config"), str):
            return data
        try:
            derived = model_fields(read_config(data["config"]), data["config"])
        except ConfigError:
            return data
        if "sliding_window" in data and data["sliding_window"] is None:
            derived.pop("sliding_window_layers_pct", None)  # 'sliding_window: null' turns the config's window off, share and all
        return {**derived, **data}

    @field_validator("params", mode="before")
    @classmethod
    def _a_number_or_a_known_name(cls, value: Any) -> Any:
        """A word that is neither a number nor a known model ('Qwen2-72B'): the refusal names the models advisor knows,
        as well as how numbers are written."""
        if isinstance(value, str) and len(value) <= 80 and re.search(r"[A-Za-z]{3,}", value) and model_key(value) is None:
            try:
                parse_quantity(value)  # '7 billion' reads
            except ValueError:
                raise ValueError(_("cannot read '{text}' as a number or a model advisor knows; write a number such as 7B or 70亿, or "
                                   "one of: {names}", text=value, names=", ".join(known_models()))) from None
        return value

    @field_validator("name")
    @classmethod
    def _known_name(cls, value: str | None) -> str | None:
        if value is None:
            return None
        key = model_key(value)
        if key is None:
            close = _close_matches(value.strip().lower(), list(known_models()), n=1, cutoff=0.6)
            raise ValueError(_("'{name}' is not a model advisor knows; known: {names}{hint}", name=value[:80], names=", ".join(known_models()),
                               hint=_(" (did you mean {name}?)", name=close[0]) if close else ""))
        return key

    @field_validator("config")
    @classmethod
    def _readable_config(cls, value: str | None) -> str | None:
        if value is not None:
            model_fields(read_config(value), value)  # raises ConfigError (a ValueError) with the reason
        return value

    @model_validator(mode="after")
    def _active_not_more_than_total(self) -> "ModelSection":
        if self.active_params is not None and self.active_params > self.params:
            raise ValueError(_("active_params cannot exceed params"))
        if self.sliding_window_layers_pct is not None and self.sliding_window is None:
            raise ValueError(_("give sliding_window (the window's length in tokens) with sliding_window_layers_pct"))
        if self.sliding_window_layers_pct is not None and 0 < self.sliding_window_layers_pct < 1:
            raise ValueError(_("sliding_window_layers_pct is a percent: {value} is under one layer in a hundred; for half the "
                               "layers write 50", value=_figure(self.sliding_window_layers_pct)))
        if self.head_dim is not None and self.hidden_size is not None:
            heads = self.attention_heads or max(1, round(self.hidden_size / 128))
            width = heads * self.head_dim
            if not self.hidden_size / HEAD_WIDTH_RATIO <= width <= HEAD_WIDTH_RATIO * self.hidden_size:
                raise ValueError(_("attention_heads x head_dim = {width} against hidden_size {hidden}: more than {r}x apart (Qwen3 is "
                                   "2x, DeepSeek-V3's latent attention 2.9x); check head_dim", width=f"{width:,}",
                                   hidden=f"{self.hidden_size:,}", r=f"{HEAD_WIDTH_RATIO:g}"))
        if self.experts is not None and self.experts <= self.experts_per_token:
            raise ValueError(_("experts ({experts}) must be more than experts_per_token ({k})", experts=self.experts, k=self.experts_per_token))
        moe = self.active_params is not None and self.active_params < self.params
        if moe and self.experts is None and self.experts_per_token >= DEFAULT_EXPERTS:
            raise ValueError(_("give experts: with {k} experts per token the default of {d} experts cannot hold", k=self.experts_per_token,
                               d=DEFAULT_EXPERTS))
        return self

    @property
    def moe_experts(self) -> int:
        """Routed experts of a mixture of experts (DEFAULT_EXPERTS where not given); 0 for a dense model."""
        if self.active_params is None or self.active_params >= self.params:
            return 0
        return self.experts or DEFAULT_EXPERTS


class MeasuredSection(_Section):
    """A short smoke test the team has run: the estimate refits its efficiency to it."""

    tokens_per_sec: PositiveNumber | None = Field(default=None, description="Measured throughput of the whole job, tokens/s (all GPUs together).")
    step_seconds: PositiveNumber | None = Field(default=None, description="Measured seconds per optimizer step (at the answers' global batch).")
    gpus: Count = Field(description="GPUs the measurement ran on.")
    strategy: Strategy | None = Field(default=None, description="Strategy it ran with; default: training.current_strategy.")

    @model_validator(mode="after")
    def _one_measure(self) -> "MeasuredSection":
        if (self.tokens_per_sec is None) == (self.step_seconds is None):
            raise ValueError(_("give tokens_per_sec or step_seconds (one of them)"))
        return self


POST_TRAINING_METHODS: tuple[str, ...] = ("dpo", "grpo", "ppo")
"""Post-training stages: the policy is updated like a fine-tune, around a frozen reference (and for grpo/ppo, rollouts)."""

GENERATION_RANGE = _within(1, 131_072)
"""Tokens in a prompt or a generated answer: 131,072 is the 128K context of Llama 3.1 (arXiv:2407.21783 Sec 3.4), the
longest of the open models advisor's shapes follow; a validation bound, not a fact, far past DeepSeek-R1's 32,768-token
answers (arXiv:2501.12948 Sec 2.2.4)."""

TRL_DEFAULT_PROMPT_TOKENS = 512
"""TRL's max_prompt_length default before TRL 1.0 (GRPOConfig and DPOConfig, huggingface/trl 0.x trl/trainer/*_config.py);
TRL 1.16 caps only the whole sequence (DPOConfig max_length=1,024) or the answer."""

TRL_DEFAULT_GENERATION_TOKENS = {"dpo": 512, "grpo": 512, "ppo": 512}
"""grpo/ppo: GRPOConfig max_completion_length=512 (trl 1.16.0 trl/trainer/grpo_config.py); dpo: DPOConfig max_length=1,024
(trl 1.16.0 dpo_config.py) less the 512-token prompt."""

TRL_DEFAULT_GENERATIONS = 8
"""GRPOConfig num_generations=8, answers sampled per prompt (huggingface/trl grpo_config.py)."""


class PostTrainingSection(_Section):
    """A DPO, GRPO or PPO stage: what the policy learns from, and which models sit beside it."""

    pairs: Quantity | None = Field(default=None, description="dpo: preference pairs (prompt, chosen answer, rejected answer) in the data set, e.g. 60k, 6万.")
    prompts: Quantity | None = Field(default=None, description="grpo/ppo: prompts in the data set; each is answered responses_per_prompt times per epoch.")
    responses_per_prompt: Count | None = Field(
        default=None,
        description="grpo: answers generated per prompt and compared as a group (TRL GRPOConfig num_generations, default 8; at "
        "least 2); ppo: default 1.")
    prompt_tokens: Annotated[Count, GENERATION_RANGE] = Field(
        default=TRL_DEFAULT_PROMPT_TOKENS, description="Average tokens per prompt (default 512, TRL 0.x's max_prompt_length).")
    generation_tokens: Annotated[Count, GENERATION_RANGE] | None = Field(
        default=None,
        description="Average tokens per answer: generated by the policy for grpo/ppo (default 512, TRL GRPOConfig "
        "max_completion_length); each of the chosen and rejected answers for dpo (default 512: DPOConfig max_length 1,024 "
        "less the prompt).")
    epochs: Annotated[PositiveNumber, RUNS_RANGE] = Field(default=1.0, description="Passes over the pairs or prompts (default 1).")
    reference: Literal["policy", "precomputed", "none"] | None = Field(
        default=None,
        description="The frozen reference the policy is held close to: policy (a frozen copy of the starting policy, run "
        "forward on every sample; with LoRA the base with adapters switched off, no second copy), precomputed (dpo only: "
        "its log-probabilities computed once before training, TRL DPOConfig precompute_ref_log_probs) or none (no KL "
        "term: grpo with beta 0). Default: policy for dpo and ppo; none for grpo (TRL GRPOConfig beta=0.0).")
    reward_model_params: Annotated[Quantity, PARAMS_RANGE] | None = Field(
        default=None,
        description="Parameters of the reward model that scores each answer: required for ppo, optional for grpo (default: "
        "a reward function, such as DeepSeek-R1's rule-based accuracy and format rewards, arXiv:2501.12948 Sec 2.2.2).")
    generation_gpus: Count | None = Field(
        default=None,
        description="GPUs given to a separate generation engine (TRL vllm_mode='server'; OpenRLHF's vLLM engines); the "
        "others train. Default: none, vLLM colocated on the training GPUs (TRL vllm_mode='colocate').")
    reference_gpus: Count | None = Field(
        default=None, description="GPUs of their own for the frozen reference (OpenRLHF's Ray placement); default: on the policy's GPUs.")
    reward_gpus: Count | None = Field(
        default=None, description="GPUs of their own for the reward model; default: on the policy's GPUs.")
    critic_gpus: Count | None = Field(
        default=None, description="ppo: GPUs of their own for the value model (critic); default: on the policy's GPUs.")
    adapter: Literal["full", "lora"] = Field(
        default="full",
        description="How the policy is updated: full (every weight, TRL's default) or lora (low-rank adapters on a frozen "
        "base, TRL's peft_config).")

    @property
    def engine_method(self) -> str:
        return "lora" if self.adapter == "lora" else "finetune"

    def responses(self, method: str) -> int:
        return self.responses_per_prompt or (TRL_DEFAULT_GENERATIONS if method == "grpo" else 1)

    def answer_tokens(self, method: str) -> int:
        return self.generation_tokens or TRL_DEFAULT_GENERATION_TOKENS[method]

    def reference_kind(self, method: str) -> str:
        return self.reference or ("none" if method == "grpo" else "policy")

    @property
    def sequence_tokens(self) -> int:
        return self.prompt_tokens + (self.generation_tokens or TRL_DEFAULT_GENERATION_TOKENS["dpo"])

    def sequences(self, method: str) -> float:
        """Sequences the policy is trained on over the stage: chosen and rejected per pair (dpo), each answer (grpo/ppo)."""
        if method == "dpo":
            return 2.0 * (self.pairs or 0.0) * self.epochs
        return float(self.prompts or 0.0) * self.responses(method) * self.epochs

    def policy_tokens(self, method: str) -> float:
        return self.sequences(method) * (self.prompt_tokens + self.answer_tokens(method))


def check_post_training(method: str, post: PostTrainingSection | None, tokens: float | None, examples: float | None,
                        baseline: float | None) -> None:
    """The post-training inputs that go with the method: one line naming the field to fix."""
    if method not in POST_TRAINING_METHODS:
        if post is not None:
            raise _field_error(("post_training",), _("applies to method dpo, grpo or ppo (method is {method})", method=method), None)
        return
    if post is None:
        need = "pairs" if method == "dpo" else "prompts"
        raise _field_error(("post_training",), _("is required for method {method}: give at least post_training.{need}", method=method,
                                                 need=need), None)
    for key, value in (("tokens", tokens), ("examples", examples)):
        if value is not None:
            raise _field_error((key,), _("a {method} stage is sized by post_training.pairs or prompts, not {key}", method=method, key=key), value)
    if method == "dpo":
        if post.pairs is None:
            raise _field_error(("post_training", "pairs"), _("is required for method dpo (preference pairs in the data set)"), None)
        for key in ("prompts", "responses_per_prompt", "reward_model_params"):
            if getattr(post, key) is not None:
                raise _field_error(("post_training", key), _("applies to grpo or ppo, not dpo (dpo learns from given pairs)"), getattr(post, key))
        if post.reference == "none":
            raise _field_error(("post_training", "reference"), _("dpo needs a reference: give policy or precomputed"), post.reference)
        return
    if post.prompts is None:
        raise _field_error(("post_training", "prompts"), _("is required for method {method} (prompts the policy answers)", method=method), None)
    if post.pairs is not None:
        raise _field_error(("post_training", "pairs"), _("applies to dpo; {method} learns from its own answers to prompts", method=method), post.pairs)
    if post.reference == "precomputed":
        raise _field_error(("post_training", "reference"), _("precomputed applies to dpo only: {method} scores new answers every step, so "
                                                             "its reference runs during training", method=method), post.reference)
    if method == "grpo" and post.responses_per_prompt is not None and post.responses_per_prompt < 2:
        raise _field_error(("post_training", "responses_per_prompt"), _(
            "grpo compares answers within a group of at least 2 (TRL GRPOConfig num_generations); got {n}", n=post.responses_per_prompt),
            post.responses_per_prompt)
    if method == "ppo" and post.reward_model_params is None:
        raise _field_error(("post_training", "reward_model_params"), _("is required for method ppo (the reward model that scores answers)"), None)


class EarlierStage(_Section):
    """One stage run before the answers' own on the same cluster (a supervised fine-tune before DPO)."""

    method: Literal["pretrain", "finetune", "lora", "qlora", "dpo", "grpo", "ppo"] = Field(
        description="The stage's method (see training.method); pretrain: continued pre-training of the model on new tokens.")
    name: str | None = Field(default=None, min_length=1, max_length=60, pattern=r"^[\w .+()/,:@-]+$",
                             description="A label for the memo, e.g. 'SFT on support chats' (default: the method's name).")
    tokens: Annotated[Quantity, TOKENS_RANGE] | None = Field(default=None, description="Training tokens of the stage (or examples x tokens_per_example).")
    examples: Quantity | None = Field(default=None, description="Fine-tuning examples of the stage.")
    tokens_per_example: Count | None = Field(default=None, description="Average tokens per example; needed with examples.")
    epochs: PositiveNumber | None = Field(default=None, description="Passes over the examples (default 1).")
    lora_rank: Count | None = Field(default=None, description="LoRA/QLoRA adapter rank (defaults as training.lora_rank).")
    post_training: PostTrainingSection | None = Field(default=None, description="dpo/grpo/ppo stages: as training.post_training.")

    def training(self, precision: str = "bf16") -> "TrainingSection":
        """The stage as a training section of its own (validated as one), to price with the same model."""
        fields = self.model_dump(exclude={"name"}, exclude_none=True)
        return TrainingSection.model_validate({**fields, "current_strategy": "none", "precision": precision})

    @model_validator(mode="after")
    def _valid_stage(self) -> "EarlierStage":
        stage = self.training()
        if stage.data_tokens is None:
            raise ValueError(_("give tokens, or examples with tokens_per_example, for a {method} stage", method=self.method))
        return self


STORAGE_RANGE = BANDWIDTH_RANGE
REQUESTS_RANGE = _within(0.001, 1e9)  # one request in 17 minutes .. a billion a second: validation bounds, not facts


class EvaluationSection(_Section):
    """Evaluation runs over the stage: answers generated on a held-out prompt set."""

    runs: Count = Field(description="Evaluation runs over the whole pipeline (e.g. one per saved checkpoint: 5).")
    prompts: Count = Field(description="Prompts answered per run (e.g. 2,000).")
    answer_tokens: Annotated[Count, GENERATION_RANGE] = Field(description="Average tokens per generated answer (e.g. 512).")


class ServingSection(_Section):
    """The trained model in production."""

    requests_per_sec: Annotated[PositiveNumber, REQUESTS_RANGE] = Field(description="Peak requests per second to serve (e.g. 20).")
    tokens_per_request: Annotated[Count, GENERATION_RANGE] = Field(description="Average tokens generated per request (e.g. 300).")


class OperationsSection(_Section):
    """What the run needs around the training itself: checkpoints, evaluation, serving."""

    storage_gbps: Annotated[PositiveNumber, STORAGE_RANGE] | None = Field(
        default=None, description="Write bandwidth of the checkpoint storage for the whole job, GB/s (e.g. 2). Needed for save "
        "times.")
    checkpoint_every_hours: Annotated[Hours, HOURS_RANGE] | None = Field(
        default=None, description="Hours between checkpoint saves. Default: Young's optimum sqrt(2 x save time x mean time between "
        "interruptions) (Young 1974, Commun. ACM 17(9)), with advisor's interruption rate; needs storage_gbps.")
    keep_checkpoints: Count = Field(default=1, description="Full checkpoints (with optimizer state) kept to resume from (default 1, the latest); "
                                    "the final weights are kept as well.")
    evaluation: EvaluationSection | None = Field(default=None, description="Optional evaluation runs: {runs, prompts, answer_tokens}.")
    serving: ServingSection | None = Field(default=None, description="Optional: serve the trained model at {requests_per_sec, tokens_per_request}.")


class TrainingSection(_Section):
    """How much training, and how it is run."""

    method: Literal["pretrain", "finetune", "lora", "qlora", "dpo", "grpo", "ppo"] = Field(
        default="pretrain",
        description="What kind of job: pretrain (default), finetune (every weight trained), lora (a frozen bf16 base plus "
        "low-rank adapters, arXiv:2106.09685), qlora (LoRA on a 4-bit NF4 base, arXiv:2305.14314), or a post-training "
        "stage described in post_training: dpo (preference pairs, arXiv:2305.18290), grpo (groups of generated answers "
        "scored by a reward, arXiv:2402.03300) or ppo (generated answers scored by a reward model, arXiv:2203.02155).",
    )
    post_training: PostTrainingSection | None = Field(
        default=None,
        description="Method dpo, grpo or ppo: the pairs or prompts, responses per prompt, lengths, reference and reward "
        "models, and whether the policy is trained with LoRA or in full.",
    )
    stages_before: tuple[EarlierStage, ...] | None = Field(
        default=None, max_length=8,
        description="Stages run before this one on the same cluster, in order (e.g. a LoRA supervised fine-tune before DPO): "
        "each {method, examples, tokens_per_example, epochs} or {method: dpo/grpo, post_training}. The summary and memo "
        "price each stage and the pipeline in total.",
    )
    tokens: Annotated[Quantity, TOKENS_RANGE] | None = Field(default=None, description="Training tokens for the whole run, e.g. 1T, 300B. Give this, examples x tokens_per_example, or a known duration.")
    examples: Quantity | None = Field(default=None, description="Fine-tuning examples in the data set (200k, 20万); tokens = examples x tokens_per_example x epochs.")
    tokens_per_example: Count | None = Field(default=None, description="Average tokens per example, prompt and answer together (e.g. 512); needed with examples.")
    epochs: PositiveNumber | None = Field(default=None, description="Passes over the examples (default 1).")
    lora_rank: Count | None = Field(
        default=None,
        description="LoRA/QLoRA adapter rank r. Default: 8 for lora (PEFT LoraConfig's default r), 64 for qlora (the QLoRA "
        "reference trainer's default, artidoro/qlora qlora.py).",
    )
    lora_targets: Literal["qv", "attention", "all-linear"] | None = Field(
        default=None,
        description="Which weight matrices get adapters: qv (query and value: the LoRA paper's choice and PEFT's default for LLaMA), "
        "attention (q, k, v, o) or all-linear (attention and MLP, the QLoRA paper's choice). Default: qv for lora, all-linear for qlora.",
    )
    duration_hours: Annotated[Hours, HOURS_RANGE] | None = Field(default=None, description="Known wall-clock hours of one run on this cluster today (the baseline).")
    duration_days: Annotated[Days, DAYS_RANGE] | None = Field(default=None, description="Known wall-clock days of one run on this cluster today (the baseline, seed K1: '3 days').")
    current_strategy: Literal[Strategy, "none"] = Field(  # one Literal: a union named its branch in errors
        default="none",
        description="What the team runs today; a known duration is taken to be measured with it. 'none' (the default): not "
        "training yet (a new project): the advice is a plan, not a switch. Left out beside a known duration or a measured "
        "step, it is ddp.",
    )
    deadline_days: Annotated[Days, DAYS_RANGE] | None = Field(default=None, description="Calendar days the run must finish in (2, 2d, 48h, 2天).")
    runs_per_month: Annotated[PositiveNumber, RUNS_RANGE] | None = Field(
        default=None,
        description="Runs a month the roadmap needs; the monthly bill is runs x cost per run. Default: as many as today's "
        "setup completes back to back in 30 days (a cluster kept busy); where today's setup cannot run, the fastest option "
        "that can on today's GPUs.",
    )
    precision: Literal["bf16", "fp16", "fp32", "fp8"] = Field(
        default="bf16",
        description="Training precision: bf16 (default), fp16, fp32, or fp8 (FP8 matrix multiplications over bf16 weights, e.g. "
        "torchao Float8 or Transformer Engine; Hopper, Ada and Blackwell GPUs only).",
    )
    global_batch_tokens: Quantity | None = Field(
        default=None,
        description="Tokens per optimizer step, kept as given (rounded to whole sequences). Default: grows with the model as "
        "published runs do — 1M below 5B (Megatron-LM 2021), 4M up to 200B (LLaMA, Llama 2), 16M above (Llama 3 405B).",
    )
    micro_batch_size: Count | None = Field(default=None, description="Sequences per GPU per forward pass; default: the largest that fits. Gradient accumulation makes up the rest of the batch.")
    measured: MeasuredSection | None = Field(
        default=None,
        description="A measured smoke test: {tokens_per_sec or step_seconds, gpus, strategy}. The estimate refits its efficiency "
        "so that plan runs as measured, and the memo shows the estimate before and after.",
    )
    activation_recompute: Literal["auto", "none", "selective", "full"] = Field(
        default="auto", description="Activation recomputation: auto (least that fits), none, selective (FlashAttention-style) or full."
    )

    @model_validator(mode="before")
    @classmethod
    def _ddp_under_a_known_run(cls, data: Any) -> Any:
        """A known duration or a measured step without the framework it ran with is taken as DDP's, as the seed's team ran
        it (seed:K1: 'DDP ... 3 days'); without one, a file that does not say what the team runs plans a new project, as
        the guided Q&A does (a minimal LoRA file read 'No change needed: keep PyTorch DDP' with a 'Today' column for a
        team that never said it trains; user try 2026-12-07)."""
        if isinstance(data, dict) and data.get("current_strategy") is None and any(
                data.get(k) is not None for k in ("duration_hours", "duration_days", "measured")):
            return {**data, "current_strategy": "ddp"}
        return data

    @model_validator(mode="after")
    def _one_duration(self) -> "TrainingSection":
        if self.duration_hours is not None and self.duration_days is not None:
            raise ValueError(_("give duration_hours or duration_days, not both"))
        if self.examples is not None and self.tokens_per_example is None:
            raise ValueError(_("tokens_per_example is required with examples (tokens = examples x tokens_per_example x epochs)"))
        if self.examples is None and (self.tokens_per_example is not None or self.epochs is not None):
            key = "tokens_per_example" if self.tokens_per_example is not None else "epochs"
            raise ValueError(_("{key} needs examples (tokens = examples x tokens_per_example x epochs)", key=key))
        if self.examples is not None and self.tokens is not None:
            raise ValueError(_("give tokens or examples, not both"))
        if self.examples is not None and self.tokens_per_example is not None:
            made = self.examples * self.tokens_per_example * (self.epochs or 1.0)
            if made > MAX_TOKENS:
                raise ValueError(_("examples x tokens_per_example x epochs is {made} tokens; at most {most} describes a real training "
                                   "run", made=_figure(made), most=_figure(MAX_TOKENS)))
        if self.current_strategy == "none" and self.baseline_hours is not None:
            key = "duration_hours" if self.duration_hours is not None else "duration_days"
            raise ValueError(_("{key} is a known run of today's framework, but current_strategy is none (not training yet): name the "
                               "framework it runs with, or give tokens instead", key=key))
        if self.current_strategy == "none" and self.measured is not None and self.measured.strategy is None:
            raise ValueError(_("measured.strategy is required when current_strategy is none (not training yet)"))
        if self.engine_method not in ("lora", "qlora"):
            for key in ("lora_rank", "lora_targets"):
                if getattr(self, key) is not None:
                    raise ValueError(_("{key} applies to method lora or qlora (method is {method})", key=key, method=self.method))
        check_post_training(self.method, self.post_training, self.tokens, self.examples, self.baseline_hours)
        return self

    _batch_of: str | None = PrivateAttr(default=None)
    """The method whose default batch the job takes where none is given: its own, except where advisor prices a lighter
    method in place of the one asked (decision.advice.with_method), which keeps the asked one's — the same data at the same
    batch, so the methods differ in how they train and nothing else. Not an answer: not in the file or its schema."""

    @property
    def batch_method(self) -> str:
        return self._batch_of or self.engine_method

    @property
    def engine_method(self) -> str:
        """The method the policy update runs as: a post-training stage updates its policy as a LoRA or a full fine-tune."""
        return self.post_training.engine_method if self.method in POST_TRAINING_METHODS and self.post_training else self.method

    @property
    def sequence_tokens(self) -> int | None:
        """Tokens per trained sequence of a post-training stage (prompt + response); None otherwise (model.seq_len)."""
        return self.post_training.sequence_tokens if self.method in POST_TRAINING_METHODS and self.post_training else None

    @property
    def greenfield(self) -> bool:
        """Not training yet: there is no setup today to switch from."""
        return self.current_strategy == "none"

    @property
    def data_tokens(self) -> float | None:
        """Training tokens: as given, examples x tokens per example x epochs, or the policy's trained tokens of a
        post-training stage (post_training.policy_tokens)."""
        if self.method in POST_TRAINING_METHODS and self.post_training is not None:
            return self.post_training.policy_tokens(self.method)
        if self.tokens is not None:
            return self.tokens
        if self.examples is not None and self.tokens_per_example is not None:
            return self.examples * self.tokens_per_example * (self.epochs or 1.0)
        return None

    @property
    def baseline_hours(self) -> float | None:
        if self.duration_hours is not None:
            return self.duration_hours
        if self.duration_days is not None:
            return self.duration_days * 24.0
        return None


class CustomGpu(_Section):
    """A GPU that is not in the catalog: give at least memory and peak."""

    name: str = Field(default="custom GPU", min_length=1, max_length=60, pattern=r"^[\w .+()/,:@-]+$",
                      description="Display name: letters, digits, spaces and - _ . + ( ) / , : @ (it is printed in the memo), up to 60 characters.")
    memory_gb: Annotated[PositiveNumber, MEMORY_RANGE] = Field(description="Device memory, GB.")
    peak_tflops: Annotated[PositiveNumber, TFLOPS_RANGE] = Field(description="Dense BF16/FP16 tensor peak, TFLOP/s.")
    generation: Literal["volta", "ampere", "ada", "hopper", "blackwell", "cdna3", "davinci"] = Field(default="ampere", description="Architecture family (selects the efficiency band).")
    intra_node: Literal["nvlink", "pcie", "xgmi", "hccs"] = Field(default="pcie", description="GPU-to-GPU link inside a node.")
    nvlink_gbs: Annotated[PositiveNumber, BANDWIDTH_RANGE] | None = Field(default=None, description="GPU-to-GPU bandwidth, unidirectional GB/s.")
    pcie_gbs: Annotated[PositiveNumber, BANDWIDTH_RANGE] = Field(default=31, description="Host link bandwidth, GB/s (default PCIe 4 x16, 31 GB/s).")


class CandidateGpu(_Section):
    """Another GPU type the run could use, with its price and how many can be had (issue 22): the search compares it
    with today's type (cluster.gpu at budget.price_per_gpu_hour) on the same objective."""

    gpu: str = Field(description="Catalog id (see `advisor gpus`), e.g. h100-80gb.")
    price_per_gpu_hour: Annotated[Price, PRICE_RANGE] = Field(description="On-demand price of one of these GPUs for one hour, in budget.currency.")
    max_gpus: Count | None = Field(default=None, description="Most of these GPUs the team could get for a run (at least cluster.gpus; "
                                   "default: cluster.max_gpus, the same ceiling as today's type).")
    spot_price_per_gpu_hour: Annotated[Price, PRICE_RANGE] | None = Field(
        default=None, description="Spot / preemptible price per GPU-hour, if that capacity can be had (at most the on-demand price).")
    spot_interruptions_pct_per_month: Percent | None = Field(
        default=None,
        description="Needed with spot_price_per_gpu_hour: percent of spot instances reclaimed in a month, as the provider "
        "publishes it (AWS Spot Instance Advisor's 'frequency of interruption': <5, 5-10, 10-15, 15-20, >20). No default: "
        "it differs by GPU type, region and month.",
    )

    @field_validator("gpu", mode="before")
    @classmethod
    def _known_gpu(cls, value: Any) -> Any:
        if not isinstance(value, str):
            raise ValueError(_("expected a catalog id such as 'h100-80gb', got {what}", what=_describe(value)))
        return _catalog_gpu(value)

    @field_validator("spot_price_per_gpu_hour")
    @classmethod
    def _spot_below_on_demand(cls, value: float | None, info: ValidationInfo) -> float | None:
        on_demand = info.data.get("price_per_gpu_hour")
        if value is not None and on_demand is not None and value > on_demand:
            raise ValueError(_("the spot price ({spot}) is above the on-demand price_per_gpu_hour ({price}); spot capacity is the cheaper "
                               "one", spot=_figure(value), price=_figure(on_demand)))
        return value

    @field_validator("spot_interruptions_pct_per_month")
    @classmethod
    def _rate_with_spot(cls, value: float | None, info: ValidationInfo) -> float | None:
        if "spot_price_per_gpu_hour" not in info.data:
            return value  # the price's own error is the one to read
        spot = info.data.get("spot_price_per_gpu_hour")
        if spot is not None and value is None:
            raise ValueError(_("is required with spot_price_per_gpu_hour: the percent of spot instances reclaimed in a month, as the "
                               "provider publishes it (AWS Spot Instance Advisor: <5, 5-10, 10-15, 15-20, >20)"))
        if spot is None and value is not None:
            raise ValueError(_("applies only with spot_price_per_gpu_hour"))
        return value


class ClusterSection(_Section):
    """The hardware the run gets."""

    gpu: str | CustomGpu = Field(description="Catalog id (see `advisor gpus`), or a mapping with memory_gb and peak_tflops.")
    gpus: Count = Field(description="Total GPUs for the run.")
    max_gpus: Count | None = Field(
        default=None,
        description="Most GPUs the team could get for a run (rent or borrow). Default: up to 4x gpus, searched only when "
        "today's count cannot meet the deadline.",
    )
    candidates: tuple[CandidateGpu, ...] | None = Field(
        default=None, max_length=8,
        description="Other GPU types to compare with today's (cluster.gpu at budget.price_per_gpu_hour): each {gpu, "
        "price_per_gpu_hour, max_gpus}, optionally with spot_price_per_gpu_hour and spot_interruptions_pct_per_month. The "
        "search runs over GPU type x count x strategy. Today's type may be listed once to give its spot price.",
    )
    spot_interruptions_pct_per_month: Percent | None = Field(
        default=None,
        description="Set when these GPUs are spot / preemptible capacity: percent of instances reclaimed in a month, as the "
        "provider publishes it. Each reclaim costs a restart, priced like a hardware interruption (Llama 3's hours lost per "
        "interruption, arXiv:2407.21783).",
    )
    gpus_per_node: Count = Field(default=8, description="GPUs in one node (default 8).")
    intra_node: Literal["nvlink", "pcie", "xgmi", "hccs"] | None = Field(default=None, description="GPU link inside a node; default: the GPU's own (NVLink on SXM parts).")
    inter_node_gbps: Annotated[PositiveNumber, BANDWIDTH_RANGE] | None = Field(
        default=None,
        description="Network bandwidth per node, Gbit/s (all its NICs together). Default: the GPU's usual fabric — 8 x 200 Gb/s "
        "HDR = 1,600 per A100 node, 8 x 400 Gb/s NDR = 3,200 per H100/H200 node (Llama 2 and 3 papers), else one 200 Gb/s port.",
    )
    cpu_memory_gb_per_node: Annotated[PositiveNumber, MEMORY_RANGE] | None = Field(default=None, description="Host RAM per node, GB. Needed to judge CPU offload.")
    multi_tenant: StrictBool = Field(default=False, description="Is the cluster shared with other teams' jobs?")
    data_pipeline_tokens_per_sec: Annotated[PositiveNumber, LOADER_RANGE] | None = Field(default=None, description="Measured data-loader throughput for the whole job, tokens/s.")

    @field_validator("gpu", mode="before")
    @classmethod
    def _known_gpu(cls, value: Any) -> Any:
        if isinstance(value, str):
            return _catalog_gpu(value)
        elif not isinstance(value, dict):
            raise ValueError(_("expected a catalog id such as 'a100-80gb' or a mapping with memory_gb and peak_tflops, got {what}", what=_describe(value)))
        return value

    @model_validator(mode="after")
    def _shape(self) -> "ClusterSection":
        for loc, most in ((("gpus",), self.gpus), (("max_gpus",), self.max_gpus),
                          *((("candidates", i, "max_gpus"), c.max_gpus) for i, c in enumerate(self.candidates or ()))):
            if most is not None and -(-most // self.gpus_per_node) > MAX_SEARCH_COUNTS:
                raise _field_error(loc, _search_limit_text(most, self.gpus_per_node), most)
        if self.max_gpus is not None and self.max_gpus < self.gpus:
            raise ValueError(_("max_gpus ({most}) is below gpus ({gpus}), today's count; give at least {gpus}", most=self.max_gpus,
                               gpus=self.gpus))
        seen: dict[str, int] = {}
        for i, c in enumerate(self.candidates or ()):
            if c.gpu in seen:
                raise _field_error(("candidates", i, "gpu"), _("{gpu} is listed twice (also candidates[{j}]); give each GPU type once",
                                                               gpu=c.gpu, j=seen[c.gpu]), c.gpu)
            seen[c.gpu] = i
            if c.max_gpus is not None and c.max_gpus < self.gpus:
                raise _field_error(("candidates", i, "max_gpus"), _("max_gpus ({most}) is below gpus ({gpus}), today's count; give at "
                                                                    "least {gpus}", most=c.max_gpus, gpus=self.gpus), c.max_gpus)
            if c.gpu == self.gpu and self.max_gpus is not None and c.max_gpus is not None and c.max_gpus != self.max_gpus:
                raise _field_error(("candidates", i, "max_gpus"), _("{gpu} is today's GPU type, whose most is cluster.max_gpus ({most}); "
                                                                    "give the same", gpu=c.gpu, most=self.max_gpus), c.max_gpus)
        if self.gpus > self.gpus_per_node and self.gpus % self.gpus_per_node:
            raise ValueError(_("gpus ({gpus}) spans several nodes but is not a multiple of gpus_per_node ({per_node}); use {lower} or {upper}",
                               gpus=self.gpus, per_node=self.gpus_per_node, lower=self.gpus - self.gpus % self.gpus_per_node,
                               upper=self.gpus + self.gpus_per_node - self.gpus % self.gpus_per_node))
        return self

    @property
    def spec(self) -> GpuSpec:
        """The GPU's figures, whether from the catalog or given inline."""
        if isinstance(self.gpu, str):
            return gpu_catalog()[self.gpu]
        g = self.gpu
        return GpuSpec(
            id="custom", name=g.name, generation=g.generation, memory_gb=g.memory_gb, peak_tflops=g.peak_tflops,
            intra_node=g.intra_node, nvlink_gbs=g.nvlink_gbs, pcie_gbs=g.pcie_gbs, source="given in the answers",
        )

    @property
    def network_gbps(self) -> float:
        """The network per node as given, or the GPU's usual fabric: its NICs per GPU times the node's GPUs where the
        catalog gives one NIC per GPU (GB200: a 72-GPU NVLink node keeps 400 Gb/s per GPU, not one tray's 3,200)."""
        if self.inter_node_gbps is not None:
            return self.inter_node_gbps
        per_gpu = self.spec.network_gbps_per_gpu
        return per_gpu * self.gpus_per_node if per_gpu else self.spec.default_network_gbps

    @property
    def network_source(self) -> Literal["given", "usual", "assumed"]:
        """Where network_gbps comes from: the answers, the GPU type's usual fabric on record, or assumed."""
        return "given" if self.inter_node_gbps else "usual" if self.spec.usual_network else "assumed"

    @property
    def nodes(self) -> int:
        return max(1, -(-self.gpus // self.gpus_per_node))


def _search_limit_text(gpus: int, per_node: int) -> str:
    """Why a count is refused: the search prices every whole-node count up to it, each in memory (base/limits.py)."""
    return _("{gpus} GPUs is more than the search can price: it prices every count of whole {per}-GPU nodes up to the most GPUs, "
             "{counts} counts here, and holds at most {most} (about {kb} KB each, so as to stay within {mib} MiB of memory); give at "
             "most {top} GPUs", gpus=count(gpus), per=per_node, counts=count(-(-gpus // per_node)), most=count(MAX_SEARCH_COUNTS),
             kb=f"{BYTES_PER_COUNT / 1000:.1f}", mib=SEARCH_MEMORY_BYTES // (1024 * 1024), top=count(MAX_SEARCH_COUNTS * per_node))


class BudgetSection(_Section):
    """What the run may cost."""

    price_per_gpu_hour: Annotated[Price, PRICE_RANGE] = Field(description="Price of one GPU for one hour, in `currency` (2.5, ¥10, 10元).")
    currency: Annotated[str, BeforeValidator(_currency)] = Field(
        default_factory=lambda: "CNY" if zh() else "USD",
        description="Currency code: 1 to 8 letters, e.g. USD, CNY, EUR (¥, 元 and 人民币 mean CNY). Default: CNY in Chinese, else USD.")
    limit: Money | None = Field(default=None, description="Most the whole run may cost (500000, 500k, 50万).")
    monthly_limit: Money | None = Field(default=None, description="Monthly GPU bill ceiling (seed K1: 500,000 CNY a month; 50万).")

    @model_validator(mode="before")
    @classmethod
    def _currency_marks(cls, data: Any) -> Any:
        """'¥10' or '50万元' name the currency: it must agree with `currency`, and sets it when not given."""
        if not isinstance(data, dict):
            return data
        marks: dict[str, str] = {}
        for key in ("price_per_gpu_hour", "limit", "monthly_limit"):
            try:
                _amount, mark = split_money(strip_per_hour(data.get(key)))
            except ValueError:
                continue  # the field's own validator reports it
            if mark:
                marks[key] = mark
        if not marks:
            return data
        codes = set(marks.values())
        if len(codes) > 1:
            raise ValueError(_("the amounts name different currencies ({marks}); use one", marks=", ".join(f"{k}: {v}" for k, v in marks.items())))
        code = codes.pop()
        given = data.get("currency")
        if given is None:
            return {**data, "currency": code}
        try:
            given_code = _currency(given)
        except ValueError:
            return data
        if given_code.upper() != code:
            key = next(iter(marks))
            raise ValueError(_("{key} is written in {code} but currency is {given}; make them agree", key=key, code=code, given=given_code))
        return data


class TeamSection(_Section):
    """Who will run it."""

    experience: Literal["none", "some", "expert"] = Field(default="some", description="Distributed-training experience: none, some or expert.")


def _one_line(value: Any) -> Any:
    """Free text kept in the answers, as it may reach a terminal or the memo: escape sequences and control characters
    removed (base.text.plain), whatever the file held."""
    return plain(value) if isinstance(value, str) else value


def _lines(value: Any) -> Any:
    return plain(value, newlines=True) if isinstance(value, str) else value


class Turn(_Section):
    """One question asked after the plan (`advisor ask`, the Ask box) and the answer given."""

    question: Annotated[str, BeforeValidator(_one_line)] = Field(min_length=1, max_length=500, description="The question as asked.")
    answer: Annotated[str, BeforeValidator(_lines)] = Field(max_length=20000, description="The answer as given, with the figures it rested on.")


class ProjectSection(_Section):
    """Where the product is."""

    stage: Literal["mvp", "stable", "frontier"] = Field(default="mvp", description="mvp (fast iteration), stable (mid-size production), frontier (very large models).")
    checklist_done: tuple[Annotated[str, BeforeValidator(_one_line), Field(max_length=2000)], ...] | None = Field(
        default=None, max_length=200, description="Pre-launch checklist items already done (ticked in the guided Q&A); the memo shows them as [x].")
    conversation: tuple[Turn, ...] | None = Field(
        default=None, max_length=200, description="Questions asked after the plan (`advisor ask`, the Ask box) and their answers, kept "
        "with the answers; the memo shows them as an appendix when asked to (`advisor ask ANSWERS --format md`).")


class Answers(_Section):
    """Everything advisor needs to know. Only model.params, cluster.gpu, cluster.gpus and budget.price_per_gpu_hour are required."""

    model_config = ConfigDict(defer_build=False)

    model: ModelSection = Field(description="What is being trained.")
    training: TrainingSection = Field(default_factory=TrainingSection, description="How much training, and how it is run.")
    cluster: ClusterSection = Field(description="The hardware the run gets.")
    budget: BudgetSection = Field(description="Price and limits.")
    team: TeamSection = Field(default_factory=TeamSection, description="Who will run it.")
    project: ProjectSection = Field(default_factory=ProjectSection, description="Where the product is.")
    operations: OperationsSection | None = Field(
        default=None, description="Checkpoints, evaluation runs and serving: {storage_gbps, checkpoint_every_hours, keep_checkpoints, "
        "evaluation, serving}.")

    @model_validator(mode="before")
    @classmethod
    def _candidates_in_budget_currency(cls, data: Any) -> Any:
        """A candidate's price is in budget.currency: one written in another ('€3' with USD) is refused naming it, not
        compared as if it were dollars (issue 36). The budget's currency is the one BudgetSection settles on: as given,
        else the mark its amounts carry, else the language's default."""
        if not isinstance(data, dict) or not isinstance(data.get("cluster"), dict) or not isinstance(data.get("budget"), dict):
            return data
        candidates = data["cluster"].get("candidates")
        if not isinstance(candidates, (list, tuple)):
            return data
        budget = data["budget"]
        try:
            marks = {m for m in (split_money(strip_per_hour(budget.get(k)))[1] for k in ("price_per_gpu_hour", "limit", "monthly_limit")) if m}
            currency = _currency(budget["currency"]).upper() if budget.get("currency") is not None else \
                (marks.pop() if len(marks) == 1 else None if marks else ("CNY" if zh() else "USD"))
        except ValueError:
            return data  # the budget's own error is the one to read
        if currency is None:
            return data
        for i, c in enumerate(candidates):
            for key in ("price_per_gpu_hour", "spot_price_per_gpu_hour"):
                try:
                    mark = split_money(strip_per_hour(c.get(key)))[1] if isinstance(c, dict) else None
                except ValueError:
                    continue  # the field's own validator reports it
                if mark and mark != currency:
                    raise _field_error(("cluster", "candidates", i, key), _(
                        "{value} is written in {code} but budget.currency is {given}; give the price in {given} (advisor does not "
                        "convert currencies)", value=repr(c.get(key)), code=mark, given=currency), c.get(key))
        return data

    @model_validator(mode="after")
    def _tokens_or_duration(self) -> "Answers":
        if self.training.data_tokens is None and self.training.baseline_hours is None:
            raise ValueError(_("training: give tokens (e.g. 1T), examples with tokens_per_example, or a known duration_hours / duration_days"))
        if self.training.precision == "fp8" and not self.cluster.spec.has_fp8:
            raise ValueError(_("training.precision: fp8 needs FP8 tensor cores (Hopper, Ada, Blackwell or CDNA3: H100, H800, H200, H20, "
                               "L4, L40S, B200, MI300X...); the {gpu} ({generation}) has none: use bf16",
                               gpu=self.cluster.spec.name, generation=self.cluster.spec.generation))
        self._reward_model_fits()
        for i, c in enumerate(self.cluster.candidates or ()):
            if c.gpu == self.cluster.gpu and c.price_per_gpu_hour != self.budget.price_per_gpu_hour:
                raise _field_error(("cluster", "candidates", i, "price_per_gpu_hour"), _(
                    "{gpu} is today's GPU type, priced at budget.price_per_gpu_hour ({price}); give the same here (list it only for its "
                    "spot price)", gpu=c.gpu, price=_figure(self.budget.price_per_gpu_hour)), c.price_per_gpu_hour)
        return self


    def _reward_model_fits(self) -> None:
        """A reward model whose bf16 weights exceed the whole cluster's memory cannot score a single answer."""
        posts: list[tuple[tuple[str | int, ...], PostTrainingSection | None]] = [
            (("training", "post_training", "reward_model_params"), self.training.post_training)]
        posts += [(("training", "stages_before", i, "post_training", "reward_model_params"), s.post_training)
                  for i, s in enumerate(self.training.stages_before or ())]
        post = self.training.post_training
        if post is not None:
            given = {k: getattr(post, k) for k in ("generation_gpus", "reference_gpus", "reward_gpus", "critic_gpus") if getattr(post, k)}
            if given and sum(given.values()) >= self.cluster.gpus:
                key = next(reversed(given))
                raise _field_error(("training", "post_training", key), _(
                    "the GPUs given to separate roles ({n}) leave none of the {gpus} for the policy", n=sum(given.values()),
                    gpus=self.cluster.gpus), given[key])
        memory_gb = self.cluster.spec.capacity_gb * self.cluster.gpus
        for loc, post in posts:
            if post is None or post.reward_model_params is None:
                continue
            need_gb = REWARD_BYTES_PER_PARAM * post.reward_model_params / 1e9
            if need_gb > memory_gb:
                raise _field_error(loc, _("a reward model of {n} parameters needs {need} GB in bf16, more than the {gpus} × {mem} GB of "
                                          "the cluster together", n=_figure(post.reward_model_params), need=count(need_gb),
                                          gpus=self.cluster.gpus, mem=_figure(self.cluster.spec.capacity_gb)), post.reward_model_params)


REWARD_BYTES_PER_PARAM = 2.0
"""A frozen reward model is held in bf16: 2 bytes per parameter (weights only, no gradients or optimizer states)."""


# ---------------------------------------------------------------- loading and error wording


def load_answers(path: str | Path) -> Answers:
    """Read and validate an answers file (YAML or JSON; '-' reads stdin)."""
    name, data = load_answers_mapping(path)
    return answers_from_mapping(data, name)


def load_answers_mapping(path: str | Path) -> tuple[str, dict[str, Any]]:
    """An answers file as its mapping, a relative model.config found beside the file where it is not in the working
    directory: 'config: qwen3.json' next to the answers read from elsewhere (user try 10: 'gemma3.json: no such file')."""
    name, data = load_mapping(path)
    model = data.get("model")
    if str(path) != "-" and isinstance(model, dict) and isinstance(model.get("config"), str) and model["config"].strip():
        cfg = Path(model["config"]).expanduser()
        beside = Path(path).expanduser().parent / cfg
        if not cfg.is_absolute() and not cfg.exists() and beside.exists():
            data = {**data, "model": {**model, "config": str(beside)}}
    return name, data


def answers_from_text(text: str, name: str = "<answers>") -> Answers:
    return answers_from_mapping(parse_mapping(text, name), name)


def answers_from_mapping(data: dict[str, Any], name: str = "<answers>") -> Answers:
    """Validate a mapping; on failure raise AnswerError with one line naming the field."""
    try:
        return Answers.model_validate(data)
    except ValidationError as exc:
        raise AnswerError(f"{name}: {describe_validation_error(exc, Answers)}") from None


def describe_validation_error(exc: ValidationError, root: type[BaseModel]) -> str:
    """First problem in plain words: 'cluster.gpus: must be a positive whole number (got -8)'."""
    errors = [dict(e) for e in exc.errors(include_url=False)]
    first, candidates = _pick(errors)
    missing: set[tuple[Any, ...]] = set()
    for e in errors:
        loc: Any = e["loc"]
        if e["type"] == "missing":
            missing.add(tuple(field_path(loc)))
    text = _one(first, root, missing)
    if first["type"] == "extra_forbidden":
        # the key a typo was meant to be is missing for that very reason: one problem, not two ('cluster.gpu_count: ...
        # did you mean 'gpus'? (and 1 more problem, at cluster.gpus)', user try 15)
        loc = field_path(first["loc"])
        meant = _meant_key(loc, root, missing)
        if meant is not None:
            same = (*loc[:-1], meant)
            candidates = [e for e in candidates if not (e["type"] == "missing" and tuple(field_path(e["loc"])) == same)]
    more = len(candidates) - 1
    if more <= 0:
        return text
    # where the others are, so a fix can take them all at once ('(and 1 more problem)' did not say budget was missing)
    others = list(dict.fromkeys(dotted(field_path(e["loc"])) or "?" for e in candidates if e is not first))
    others = [o for o in others if o != dotted(field_path(first["loc"]))] or others
    shown = ", ".join(others[:4]) + (", …" if len(others) > 4 else "")
    return text + plural(more, N_(" (and 1 more problem, at {where})"), N_(" (and {n} more problems, at {where})"), where=shown)


def _useful(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The errors about the input as given: a union (gpu: str | CustomGpu) reports one error per branch, and only the
    branch the input chose is kept."""
    def useful(err: dict[str, Any]) -> bool:
        branch = _union_branch(err["loc"])
        if branch == "str" and isinstance(err.get("input"), dict):
            return False
        if branch == "CustomGpu" and err["type"] in ("model_type", "model_attributes_type"):
            return False
        return True

    return [e for e in errors if useful(e)] or errors


def _pick(errors: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The most useful error first (a typo'd key explains the 'missing' error it causes), and the errors it was picked from."""
    candidates = _useful(errors)
    for err in candidates:
        if err["type"] == "extra_forbidden":
            return err, candidates
    return candidates[0], candidates


def _union_branch(loc: tuple[Any, ...]) -> str | None:
    """Which branch of cluster.gpu (a catalog id or a CustomGpu) an error is about, if any."""
    return str(loc[2]) if len(loc) > 2 and loc[:2] == ("cluster", "gpu") and loc[2] in ("str", "CustomGpu") else None


def field_path(loc: tuple[Any, ...] | list[Any]) -> list[Any]:
    """An error's location as the answers file names it: pydantic's union-branch and validator tags removed (only
    where they are tags — a key the user called 'str' stays in the path)."""
    loc = [p for p in loc if p != "function-after[_shape()]"]
    if _union_branch(tuple(loc)):
        del loc[2]
    return loc


def dotted(loc: list[Any]) -> str:
    """A field path as the answers file names it: 'cluster.candidates[1].max_gpus'."""
    out = ""
    for p in loc:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _meant_key(loc: list[Any], root: type[BaseModel], missing: set[tuple[Any, ...]] | frozenset[tuple[Any, ...]] = frozenset()) -> str | None:
    """The known key an unknown one at ``loc`` was meant to be: the closest spelling, a missing one first ('gpsu' beside
    'gpu' is the missing 'gpus'), else the key it means ('gpu_count' is 'gpus': KEY_SYNONYMS); None where none is close."""
    parent, key = loc[:-1], str(loc[-1])
    options = _fields_at(root, parent)
    close = _close_matches(key, options, n=3, cutoff=0.6)
    close = sorted(close, key=lambda name: (*parent, name) not in missing)[:1]  # stable: the closest missing one first
    if not close and KEY_SYNONYMS.get(key.lower()) in options:
        close = [KEY_SYNONYMS[key.lower()]]  # 'gpu_count' is 'gpus' by meaning, not by spelling (user try 14)
    return close[0] if close else None


def _one(err: dict[str, Any], root: type[BaseModel], missing: set[tuple[Any, ...]] | frozenset[tuple[Any, ...]] = frozenset()) -> str:
    """One error in words; ``missing``: the fields the same input lacks, so a typo is matched to the key it was meant to be
    ('gpsu' beside 'gpu' is the missing 'gpus', not the 'gpu' already given; user try 2026-12-06)."""
    loc = field_path(err["loc"])
    path = dotted(loc)
    kind = err["type"]
    if kind == "extra_forbidden":
        parent, key = loc[:-1], str(loc[-1])
        options = _fields_at(root, parent)
        meant = _meant_key(loc, root, missing)
        close = [meant] if meant else []
        where = dotted(parent) or _("top level")
        home = _section_holding(root, parent, key) if not close else None
        if home:
            hint = _("; it belongs under {section}: {section}.{key}", section=home, key=key)
        elif close:
            hint = _("; did you mean '{name}'?", name=close[0])
        else:
            hint = _("; known keys: {names}", names=", ".join(options)) if options else ""
        return _("{path}: unknown key '{key}' in {where}{hint}", path=path, key=key, where=where, hint=hint)
    if kind == "missing":
        desc = _description_at(root, loc)
        return _("{path}: is required", path=path) + (f" ({desc})" if desc and not zh() else "")
    msg = err["msg"]
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
    if kind == "literal_error":
        choices = re.findall(r"'([^']*)'", str((err.get("ctx") or {}).get("expected", "")))
        given = err.get("input")
        close = _close_matches(given, choices, n=1, cutoff=0.6) if isinstance(given, str) else []
        hint = _("; did you mean '{name}'?", name=close[0]) if close else ""
        msg = _("must be one of {names} (got {value}){hint}", names=", ".join(choices), value=repr(given), hint=hint) if choices \
            else _("{msg} (got {value})", msg=msg, value=repr(given))
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        msg = _("expected a mapping of keys, got {what}", what=_describe(err.get("input")))
    elif kind in ("tuple_type", "list_type"):
        msg = _("expected a list, got {what}", what=_describe(err.get("input")))
    elif kind == "string_type":
        msg = _("expected text, got {what}", what=_describe(err.get("input")))
    elif kind in ("tuple_type", "list_type"):
        msg = _("expected a list, got {what}", what=_describe(err.get("input")))
    elif kind == "string_too_short":
        least = (err.get("ctx") or {}).get("min_length", 1)
        msg = _("must not be empty") if least == 1 else _("must be at least {n} characters long", n=least)
    elif kind == "string_too_long":
        msg = _("must be at most {n} characters long", n=count((err.get("ctx") or {}).get("max_length", 0)))
    elif kind == "too_long":
        msg = _("holds at most {n} items", n=count((err.get("ctx") or {}).get("max_length", 0)))
    elif kind == "string_pattern_mismatch":
        desc = _description_at(root, loc)
        msg = _("{what} is not allowed", what=_describe(err.get("input"))) + (f"; {desc}" if desc else "")
    return f"{path}: {msg}" if path else msg


def _section_holding(root: type[BaseModel], parent: list[Any], key: str) -> str | None:
    """The other top-level section that has ``key`` (team.multi_tenant belongs under cluster), if the key is one."""
    if len(parent) != 1:
        return None
    for section in root.model_fields:
        if section != parent[0] and key in _fields_at(root, [section]):
            return section
    return None


def _submodel(model: type[BaseModel], name: str) -> type[BaseModel] | None:
    field = model.model_fields.get(name)
    if field is None:
        return None
    return _model_in(field.annotation)


def _model_in(ann: Any) -> type[BaseModel] | None:
    """The model a field holds: itself, in an optional, or the items of a list (cluster.candidates)."""
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return ann
    for cand in getattr(ann, "__args__", ()):
        found = _model_in(cand)
        if found is not None:
            return found
    return None


def _fields_at(root: type[BaseModel], parent: list[Any]) -> list[str]:
    model: type[BaseModel] | None = root
    for part in parent:
        if isinstance(part, int):
            continue  # an entry of a list: the list's item model
        model = _submodel(model, str(part)) if model else None
    return list(model.model_fields) if model else []


def _description_at(root: type[BaseModel], loc: list[Any]) -> str:
    model: type[BaseModel] | None = root
    for part in loc[:-1]:
        if not isinstance(part, int):
            model = _submodel(model, str(part)) if model else None
    if model and str(loc[-1]) in model.model_fields:
        return model.model_fields[str(loc[-1])].description or ""
    return ""


def answers_schema() -> dict[str, Any]:
    """JSON Schema of the answers file (what `advisor schema` prints)."""
    return Answers.model_json_schema(mode="validation")
