"""A model's real shape from a local Hugging Face ``config.json`` (model.config): layers, widths, heads, grouped-query
key-value heads, vocabulary, tied embeddings, and for a mixture of experts the routed and shared experts and the top-k.

Read from disk only (no network at run time). The parameter count is the sum of the weight matrices those keys define,
as the families' modelling code builds them: Llama, Mistral, Qwen2/Qwen3 (transformers LlamaForCausalLM and its kin:
q/k/v/o projections, a gated MLP of three h x intermediate matrices, RMSNorm), Mixtral and Qwen-MoE (the MLP replaced
by routed experts, plus Qwen's shared expert), DeepSeek-V2/V3 (multi-head latent attention, first_k_dense_replace dense
layers, routed + shared experts). Bottom layer: no pydantic, no numpy.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from advisor.base.errors import InputFileError
from advisor.base.i18n import _
from advisor.base.limits import MAX_COUNT
from advisor.base.safeload import parse_json, read_text

MAX_CONFIG_BYTES = 1_000_000
"""A config.json is a few kilobytes of keys and numbers; anything over 1 MB is not one (and is not read past 1 MB)."""


class ConfigError(ValueError):
    """A config file advisor cannot read, with the reason (the answers error names the file and the field)."""


def _int(cfg: dict[str, Any], *keys: str, default: int | None = None) -> int | None:
    for key in keys:
        value = cfg.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int) and value > MAX_COUNT:
            raise ConfigError(_("'{key}' is a whole number of {digits} digits, more than any model's shape (at most {most})",
                                key=key, digits=len(str(value)), most=f"{MAX_COUNT:,}"))
        if isinstance(value, int) and value >= 0:
            return value
    return default


def read_config(path: str | Path) -> dict[str, Any]:
    """The parsed JSON object at ``path``; ConfigError if it is missing, not a regular file, over MAX_CONFIG_BYTES, not
    JSON or not an object — read and parsed as every input file is (base/safeload.py: the file type checked before it
    is opened, duplicate keys, nesting and over-long numbers refused)."""
    p = Path(path).expanduser()
    try:
        name, text = read_text(p, str(p), max_bytes=MAX_CONFIG_BYTES, what=_("a Hugging Face config.json"))
        return parse_json(text, name)
    except InputFileError as exc:
        raise ConfigError(exc.msg) from None


def model_fields(cfg: dict[str, Any], path: str = "config.json") -> dict[str, Any]:
    """advisor's model answers from a Hugging Face config: params, active_params (MoE), layers, hidden_size,
    attention_heads, kv_heads, head_dim (where it is not hidden / heads), vocab_size, experts_per_token; ConfigError naming the first key it lacks or holds out of
    any model's range."""
    try:
        return _model_fields(cfg, path)
    except ConfigError as exc:
        raise ConfigError(str(exc) if str(exc).startswith(path) else f"{path}: {exc}") from None


def _positive(cfg: dict[str, Any], key: str) -> int | None:
    """A key that, where the config gives it (not null), must be a positive whole number: a ConfigError naming it
    otherwise, as the answers refuse the same value, rather than a shape silently priced without it."""
    value = cfg.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(_("'{key}' must be a positive whole number (got {value})", key=key, value=repr(value)[:40]))
    return _int(cfg, key)


def _sliding_window(cfg: dict[str, Any], layers: int) -> tuple[int, float] | None:
    """(window, percent of layers) where the config's model attends through a sliding window, as transformers builds it:
    'layer_types' names each layer (GPT-OSS alternates 'sliding_attention' and 'full_attention'); Gemma 3's
    'sliding_window_pattern' N makes every Nth layer full (layer i slides where (i + 1) % N != 0: five in six for 6, none
    for 1); Gemma 2 alternates; Qwen2 slides only where 'use_sliding_window' is true, and then only the layers from
    'max_window_layers' on; a window with none of these covers every layer (Mistral 7B v0.1)."""
    window = _positive(cfg, "sliding_window")
    if not window or cfg.get("use_sliding_window") is False:
        return None
    kinds = cfg.get("layer_types")
    if isinstance(kinds, list) and kinds:
        sliding = sum(1 for k in kinds if isinstance(k, str) and "sliding" in k)
        return (window, 100.0 * sliding / len(kinds)) if sliding else None
    if "sliding_window_pattern" in cfg:
        pattern = _positive(cfg, "sliding_window_pattern")
        if pattern is None or pattern == 1:
            return None
        return window, 100.0 * (pattern - 1) / pattern
    if str(cfg.get("model_type", "")).startswith("gemma2"):
        return window, 50.0
    if cfg.get("use_sliding_window") is True and "max_window_layers" in cfg:
        full = min(layers, _positive(cfg, "max_window_layers") or 0)
        return (window, 100.0 * (layers - full) / layers) if full < layers else None
    return window, 100.0


def _model_fields(cfg: dict[str, Any], path: str) -> dict[str, Any]:
    if isinstance(cfg.get("text_config"), dict):  # multimodal wrappers (Llama 4, Qwen-VL) keep the LM under text_config
        cfg = {**cfg, **cfg["text_config"]}
    need = {"num_hidden_layers": _int(cfg, "num_hidden_layers", "n_layer", "num_layers"),
            "hidden_size": _int(cfg, "hidden_size", "n_embd", "d_model"),
            "num_attention_heads": _int(cfg, "num_attention_heads", "n_head"),
            "vocab_size": _int(cfg, "vocab_size")}
    for key, value in need.items():
        if not value:
            raise ConfigError(_("{path} has no '{key}' (a Hugging Face config.json of a Llama, Qwen, Mixtral or DeepSeek model has it)",
                                path=path, key=key))
    L, h, heads, vocab = (int(v) for v in need.values())  # type: ignore[arg-type]
    kv = _int(cfg, "num_key_value_heads", default=heads) or heads
    head_dim = _positive(cfg, "head_dim") or h // heads
    ffn = _int(cfg, "intermediate_size", "ffn_dim", "n_inner", default=4 * h) or 4 * h
    tied = bool(cfg.get("tie_word_embeddings", False))

    # Attention per layer.
    if _int(cfg, "kv_lora_rank"):  # DeepSeek-V2/V3 multi-head latent attention
        kv_rank = _int(cfg, "kv_lora_rank") or 0
        q_rank = _int(cfg, "q_lora_rank") or 0
        nope, rope, v_dim = (_int(cfg, k) or 0 for k in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"))
        q = (h * q_rank + q_rank + q_rank * heads * (nope + rope)) if q_rank else h * heads * (nope + rope)
        attention = q + h * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v_dim) + heads * v_dim * h
    else:
        attention = h * heads * head_dim + 2 * h * kv * head_dim + heads * head_dim * h
        if cfg.get("attention_bias") or cfg.get("model_type") in ("qwen2", "qwen2_moe"):  # Qwen2 biases q, k, v
            attention += heads * head_dim + 2 * kv * head_dim

    # Experts: Mixtral num_local_experts; Qwen-MoE num_experts; DeepSeek n_routed_experts.
    experts = _int(cfg, "num_local_experts", "num_experts", "n_routed_experts") or 0
    top_k = _int(cfg, "num_experts_per_tok", "moe_topk", "num_experts_per_token") or 0
    expert_ffn = _int(cfg, "moe_intermediate_size") or ffn
    shared = (_int(cfg, "n_shared_experts") or 0) * 3 * h * expert_ffn
    if _int(cfg, "shared_expert_intermediate_size"):  # Qwen2-MoE: one shared expert of its own width, gated
        shared = 3 * h * (_int(cfg, "shared_expert_intermediate_size") or 0) + h
    dense_layers = L
    if experts > 1:
        first_dense = _int(cfg, "first_k_dense_replace", default=0) or 0
        dense_layers = min(L, first_dense)
    moe_layers = L - dense_layers
    dense_mlp = 3 * h * ffn
    routed = experts * 3 * h * expert_ffn + h * experts  # experts plus the router
    norms = 2 * h
    per_dense = attention + dense_mlp + norms
    per_moe = attention + routed + shared + norms
    embeddings = vocab * h * (1 if tied else 2) + h
    params = dense_layers * per_dense + moe_layers * per_moe + embeddings
    out: dict[str, Any] = {"params": float(params), "layers": L, "hidden_size": h, "attention_heads": heads, "kv_heads": kv,
                           "vocab_size": vocab}
    if _int(cfg, "kv_lora_rank"):
        # Multi-head latent attention scores over nope + rope per head and multiplies the values at v_head_dim: the
        # attention work of heads of their mean width (DeepSeek-V3: (128 + 64 + 128) / 2 = 160 against hidden / heads 56).
        nope, rope, v_dim = (_int(cfg, k) or 0 for k in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"))
        out["head_dim"] = max(1, (nope + rope + v_dim) // 2)
    elif head_dim * heads != h:  # Qwen3, GPT-OSS, Gemma: heads of their own size, apart from hidden / heads
        out["head_dim"] = head_dim
    window = _sliding_window(cfg, L)
    if window is not None:
        out["sliding_window"], out["sliding_window_layers_pct"] = window
    if experts > 1 and top_k:
        active_moe = attention + top_k * 3 * h * expert_ffn + h * experts + shared + norms
        out["active_params"] = float(dense_layers * per_dense + moe_layers * active_moe + embeddings)
        out["experts_per_token"] = top_k
        out["experts"] = experts  # what expert parallelism splits (EP must divide it)
    return out


# ------------------------------------------------------------------------------ known models by name

_ORG = re.compile(r"^[\w.-]+/")
_VARIANT = re.compile(r"-(?:instruct|chat|base|it|hf)$")


@lru_cache(maxsize=1)
def known_models() -> dict[str, dict[str, Any]]:
    """The shipped models by name (src/advisor/data/models.yaml): each its source and its config.json keys (read once:
    every answers file's params passes through model_key, 0.4 ms a read uncached)."""
    from advisor.knowledge.gpurows import data_file

    models: dict[str, dict[str, Any]] = data_file("models.yaml")["models"]
    return models


def model_key(text: Any) -> str | None:
    """The known model a name stands for ('Qwen2.5-72B-Instruct', 'qwen/qwen2.5-72b', 'Llama 3.1 70B'), or None: lower
    case, an 'org/' prefix and an '-instruct'/'-chat'/'-base' suffix dropped, spaces read as hyphens."""
    if not isinstance(text, str) or not text.strip() or len(text) > 80:
        return None
    name = _VARIANT.sub("", _ORG.sub("", text.strip().lower().replace(" ", "-")))
    models = known_models()
    if name in models:
        return name
    joined = re.sub(r"^(llama)(\d)", r"\1-\2", name)  # 'llama3.1-70b' as Meta's repositories write it
    return joined if joined in models else None


def model_preset(key: str) -> dict[str, Any]:
    """The answers a known model gives (model_fields of its config), with where they come from."""
    entry = known_models()[key]
    return model_fields(entry["config"], f"{key} ({entry['source']})")
