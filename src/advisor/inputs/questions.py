"""The guided questions, as data: what each step asks, why it matters, and how to check it.

Front ends (the Textual app) render these; validation goes through the answers model, so the
TUI and ``advisor advise`` can never disagree about what a valid answer is.
"""

from __future__ import annotations

import copy
import re
from msgspec import Struct
from typing import TYPE_CHECKING, Any

from advisor.knowledge.gpurows import gpu_rows
from advisor.knowledge.strategies import STATE_BYTES_PER_PARAM, STRATEGIES
from advisor.base.i18n import _, zh
from advisor.base.units import as_written, parse_duration, parse_quantity, split_money, strip_per_hour

if TYPE_CHECKING:  # the answers model needs pydantic: loaded at the first validation, after the first question is drawn
    from advisor.inputs.answers import Answers


class Choice(Struct, frozen=True):
    value: Any
    label: str


class Field(Struct, frozen=True):
    """One answer on a step: a dotted path into the answers, shown as a text input or a choice list."""

    path: str
    label: str
    kind: str  # "text" or "choice"
    placeholder: str = ""
    optional: bool = False
    choices: tuple[Choice, ...] = ()
    number: str = ""  # "int", "float", "money" (a plain number read, '5万' or '¥10' kept as typed) or "" (text, e.g. "7B")
    needed_by_fine_tunes: bool = False
    """Optional for a pre-training, needed by a fine-tune given in examples (its data): the label does not say
    '(optional)', which stood beside 'step 13 still needs an answer' on a LoRA (user try 15); the step's hint says who
    needs it."""
    unanswered: Any = None
    """A choice's value where the answers leave it out — the answers model's default, which the advice uses — when that
    is not the list's first: an answers file without team.experience is advised as 'some', and its list and Review
    showed 'none' (user try 8). tests/test_user_try9.py checks every choice against the model."""

    def unanswered_index(self) -> int:
        """The choice a list highlights, and the Review shows, for an unanswered field."""
        return next((j for j, c in enumerate(self.choices) if self.unanswered is not None and c.value == self.unanswered), 0)


class Step(Struct, frozen=True):
    id: str
    title: str
    why: str
    fields: tuple[Field, ...]


def _gpu_choices() -> tuple[Choice, ...]:
    """The catalog's GPUs as the GPU step lists them, from the shipped rows (the typed catalog is not needed to draw
    the questions; it validates the same rows when the answers are checked)."""
    return tuple(
        Choice(gid, f"{gid:<11} {float(g['memory_gb']):>4g} GB  {float(g['peak_tflops']):>6g} TFLOP/s  {g['name']}") for gid, g in gpu_rows().items()
    )


def steps() -> tuple[Step, ...]:
    """The thirteen steps, in order, in the current language. Explanations follow the seed article's framing."""
    return (
        Step("model", _("How big is the model?"),
             _("Parameter count drives everything: how much GPU memory each copy needs (about {bytes} bytes per parameter "
               "with Adam), and how much compute the run takes. Write it the way the team says it: 7B, 1.3B, 70B, 70亿 — or the "
               "model's name (Qwen2.5-72B, Llama-3.1-8B, …) to price its published shape.",
               bytes=f"{STATE_BYTES_PER_PARAM:g}"),
             (Field("model.params", _("Parameters"), "text", _("e.g. 7B or Qwen2.5-72B")),)),
        Step("training", _("How much training?"),
             _("Give the training tokens for one run (e.g. 1T, 300B), or — if the team already runs it — how many days "
               "one run takes today (3, 3d, 72h), and with which framework. A known duration becomes the baseline every option is "
               "compared against (it replaces the default tokens), as fine-tuning examples given in the last step do."),
             (Field("training.method", _("Job kind"), "choice",
                    choices=(Choice("pretrain", _("pretrain — train a model from scratch")),
                             Choice("finetune", _("finetune — adapt every weight of an existing model")),
                             Choice("lora", _("lora — frozen base, small trained adapters")),
                             Choice("qlora", _("qlora — LoRA on a 4-bit base: least memory, slower")))),
              Field("training.tokens", _("Training tokens"), "text", _("e.g. 1T"), optional=True),
              Field("training.duration_days", _("or: days one run takes today"), "text", _("e.g. 3"), optional=True, number="float"),
              Field("training.current_strategy", _("Framework the team runs today"), "choice", choices=_strategy_choices(),
                    unanswered="none"))),
        Step("gpu", _("Which GPU?"),
             _("GPU memory decides which frameworks fit at all; peak speed decides how long the run takes. "
               "Memory optimisation can let a bigger model train on cheaper GPUs. Give the GPUs the team trains on today (a "
               "run's days were measured on them); name another type to price on the comparison step."),
             (Field("cluster.gpu", _("GPU type"), "choice", choices=_gpu_choices()),)),
        Step("gpus", _("How many GPUs?"),
             _("More GPUs is not always faster: when synchronising costs more than the compute it saves, efficiency falls. "
               "The article's rule of thumb: DDP below 64, Horovod 64-256, DeepSpeed above 256; advisor also weighs memory, "
               "and FSDP for Horovod, whose last release was in 2023."),
             (Field("cluster.gpus", _("Total GPUs"), "text", _("e.g. 64"), number="int"),
              Field("cluster.max_gpus", _("Most GPUs you could get for a run (default 4x today)"), "text", _("e.g. 256"),
                    optional=True, number="int"))),
        Step("nodes", _("How many GPUs per node?"),
             _("GPUs inside one machine talk over fast links; across machines they share the network card. "
               "Most servers hold 8."),
             (Field("cluster.gpus_per_node", _("GPUs per node"), "text", _("e.g. 8"), number="int"),)),
        Step("network", _("How fast are the links?"),
             _("Communication is the key bottleneck. Inside a node: NVLink (fast) or PCIe (about a tenth). Between nodes: "
               "the network per node in Gbit/s, all its cards together (an A100 node usually has 8 x 200 = 1600, an H100 "
               "node 8 x 400 = 3200). Leave it empty for the GPU's usual fabric."),
             (Field("cluster.intra_node", _("Inside a node"), "choice",
                    choices=(Choice(None, _("the GPU's own link")), Choice("nvlink", "NVLink"), Choice("pcie", _("PCIe only")),
                             Choice("xgmi", "AMD XGMI"), Choice("hccs", _("Huawei HCCS")))),
              # per node, as the hint's A100 node of 8 x 200 = 1600: 'e.g. 200' beside that read as per card (user try 15)
              Field("cluster.inter_node_gbps", _("Network per node (Gbit/s)"), "text", _("e.g. 1600"), optional=True, number="float"))),
        Step("price", _("What does a GPU-hour cost?"),
             _("Cost = training time x price per GPU-hour x number of GPUs. At 2 USD per GPU-hour, 1,000 GPUs for a day "
               "cost 48,000 USD; 20% faster saves 9,600 USD a day. A price typed with its mark (¥8, 8元, $2) sets the currency."),
             (Field("budget.price_per_gpu_hour", _("Price per GPU-hour"), "text", _("e.g. 2.5"), number="money"),
              Field("budget.currency", _("Currency"), "text", _("e.g. USD")))),
        Step("other_gpu", _("Another GPU type to compare? (optional)"),
             _("Leave empty to plan on today's GPUs only. A cheaper GPU-hour is not a cheaper run on a slower GPU: advisor "
               "prices both. A spot price needs its rate: % of instances reclaimed a month, as published."),
             (Field("cluster.candidates.0.gpu", _("Other GPU type"), "text", _("e.g. h100-sxm"), optional=True),
              # in the budget's currency: '例如 3.5' in a CNY session read as a dollar price (user try 15)
              Field("cluster.candidates.0.price_per_gpu_hour", _("Its price per GPU-hour"), "text", _("e.g. 3.5, in the budget's currency"), optional=True,
                    number="float"),
              Field("cluster.candidates.0.max_gpus", _("Most of them you could get"), "text", _("e.g. 256"), optional=True, number="int"),
              Field("cluster.candidates.0.spot_price_per_gpu_hour", _("Spot price per GPU-hour"), "text", _("e.g. 2.4"),
                    optional=True, number="float"),
              Field("cluster.candidates.0.spot_interruptions_pct_per_month", _("Spot: % reclaimed a month"), "text", _("e.g. 15"),
                    optional=True, number="float"))),
        Step("budget", _("Any budget or deadline?"),
             _("Optional. A run budget and a monthly ceiling let the advice warn before the bill does; a deadline tells "
               "whether the plan ships in time; the runs a month the roadmap needs give the monthly bill. Leave empty if none."),
             (Field("budget.limit", _("Most the run may cost"), "text", _("e.g. 50000"), optional=True, number="money"),
              Field("budget.monthly_limit", _("Monthly GPU bill ceiling"), "text", _("e.g. 500000"), optional=True, number="money"),
              Field("training.deadline_days", _("Deadline (days)"), "text", _("e.g. 2"), optional=True, number="float"),
              Field("training.runs_per_month", _("Runs a month the roadmap needs"), "text", _("e.g. 4"),
                    optional=True, number="float"))),
        Step("team", _("How experienced is the team?"),
             _("DDP is low difficulty, Horovod medium, DeepSpeed and 3D parallelism high. The best framework is one the "
               "team can run reliably."),
             (Field("team.experience", _("Distributed-training experience"), "choice",
                    choices=(Choice("none", _("none — first distributed job")), Choice("some", _("some — has run multi-GPU jobs")),
                             Choice("expert", _("expert — runs large clusters"))), unanswered="some"),)),
        Step("tenancy", _("Is the cluster shared? How fast is data loading?"),
             _("On a shared cluster jobs contend for network and storage. Slow data loading leaves GPUs idle. "
               "Give the loader's measured tokens/s if known."),
             (Field("cluster.multi_tenant", _("Shared with other teams' jobs"), "choice",
                    choices=(Choice(False, _("no — dedicated")), Choice(True, _("yes — multi-tenant")))),
              Field("cluster.data_pipeline_tokens_per_sec", _("Data loader tokens/s"), "text", _("e.g. 400000"), optional=True, number="float"))),
        Step("stage", _("Where is the product?"),
             _("Early MVPs need fast iteration and no over-design; stable products train mid-size models repeatedly; "
               "frontier work trains very large models where memory optimisation pays most."),
             (Field("project.stage", _("Stage"), "choice",
                    choices=(Choice("mvp", _("MVP — fast iteration")), Choice("stable", _("stable — mid-size production")),
                             Choice("frontier", _("frontier — very large models")))),)),
        # '(optional)' in the title beside 'step 13 still needs an answer' for a LoRA whose data is asked here read as a
        # contradiction (user try 14): a fine-tune's data is needed, the rest is not
        Step("advanced", _("Advanced: a fine-tune's data, host memory, sequence, batch, precision"),
             _("A fine-tune gives its data here: examples and tokens per example (epochs: 1 if empty). The rest is optional; "
               "Enter skips it. Host RAM decides whether CPU offload can work; sequence and batch change activation memory."),
             (Field("cluster.cpu_memory_gb_per_node", _("Host RAM per node (GB)"), "text", _("e.g. 1024"), optional=True, number="float"),
              Field("model.seq_len", _("Sequence length (tokens)"), "text", _("e.g. 2048"), optional=True, number="int"),
              Field("training.global_batch_tokens", _("Global batch (tokens per step)"), "text", _("e.g. 4M"), optional=True),
              Field("training.examples", _("Fine-tuning examples"), "text", _("e.g. 200k"), optional=True, needed_by_fine_tunes=True),
              # needed with examples, and an empty epochs is one pass: said where they are typed (user try 2026-12-06)
              # the label read 'Tokens per example (needed with examples)  (optional)': the need is said in the hint
              Field("training.tokens_per_example", _("Tokens per example"), "text", _("e.g. 512; needed with examples"), optional=True,
                    number="int", needed_by_fine_tunes=True),
              Field("training.epochs", _("Epochs"), "text", _("e.g. 3 (empty: 1)"), optional=True, number="float"),
              Field("training.precision", _("Precision"), "choice",
                    choices=(Choice("bf16", _("bf16 (default)")), Choice("fp16", "fp16"), Choice("fp32", "fp32"),
                             Choice("fp8", _("fp8 (Hopper, Ada, Blackwell, MI300X)")))))),
    )


def _strategy_choices() -> tuple[Choice, ...]:
    from advisor.knowledge.strategies import FRAMEWORKS

    return (*(Choice(s, f"{s} — {FRAMEWORKS[s].split(' (')[0]}") for s in STRATEGIES), Choice("none", _("none — not training yet")))


DEFAULT_DRAFT: dict[str, Any] = {
    "model": {"params": "7B"},
    # A new Q&A plans a new project: Enter past the framework list had saved ddp, and a PM whose LoRA was not yet started
    # read 'No change needed: keep PyTorch DDP' (user try 2026-12-06). A team that trains today picks its framework; a
    # known duration without one is refused on its step. An answers file without the key plans a new project too, unless
    # it gives a known run (then ddp: TrainingSection._ddp_under_a_known_run).
    "training": {"tokens": "1T", "current_strategy": "none"},
    "cluster": {"gpu": "a100-80gb", "gpus": 64, "gpus_per_node": 8},
    "budget": {"price_per_gpu_hour": 2.0, "currency": "USD"},
    "team": {"experience": "some"},
    "project": {"stage": "mvp"},
}
"""The shipped defaults the guided Q&A starts from (Enter through every step to use them)."""

DEFAULT_DRAFT_ZH_BUDGET: dict[str, Any] = {"price_per_gpu_hour": 10.0, "currency": "CNY"}
"""In Chinese the defaults are priced as the seed article prices them: 10 CNY per GPU-hour (seed:K14's worked example)."""


def default_draft() -> dict[str, Any]:
    """A fresh copy of the defaults, in the current language's currency."""
    draft = copy.deepcopy(DEFAULT_DRAFT)
    if zh():
        draft["budget"] = dict(DEFAULT_DRAFT_ZH_BUDGET)
    return draft


DEFAULT_TOKENS = DEFAULT_DRAFT["training"]["tokens"]
FINE_TUNES = ("finetune", "lora", "qlora")
"""The job kinds on the training step that adapt an existing model: sized by their examples, not by DEFAULT_TOKENS."""


def reconcile(draft: dict[str, Any], before: dict[str, Any]) -> str | None:
    """A known duration, or fine-tuning examples, typed over the untouched default tokens replace them (a default never
    becomes an answer silently); returns a note saying so, or None. Without it a fine-tune given as examples in the last
    step was refused ('give tokens or examples, not both'), and clearing the default at step 2 was refused too (no
    examples yet): no way through (user try 2026-12-06)."""
    currency = _currency_from_marks(draft, before)
    if currency:
        return currency
    training = draft.get("training", {})
    was = before.get("training", {})
    if (training.get("method") in FINE_TUNES and was.get("method") not in FINE_TUNES and training.get("tokens") == DEFAULT_TOKENS
            and was.get("tokens") == DEFAULT_TOKENS):
        # A fine-tune is sized by its data, not by the pre-training default: left in place, a LoRA picked at step 2 and
        # Entered through was priced over 1T tokens (user try 2026-12-06). Its data is asked on the Advanced step.
        training.pop("tokens", None)
        return _("A fine-tune is sized by its data: give its examples on the Advanced step (or its tokens on the 'How much training?' step); the default "
                 "{tokens} tokens were dropped.", tokens=DEFAULT_TOKENS)
    had_examples = was.get("examples") is not None
    if training.get("examples") is not None and not had_examples and training.get("tokens") == DEFAULT_TOKENS:
        training.pop("tokens", None)
        return _("Using the {examples} fine-tuning examples; the default {tokens} tokens were dropped.",
                 examples=display(training["examples"]), tokens=DEFAULT_TOKENS)
    had_duration = was.get("duration_days") is not None
    if training.get("duration_days") is not None and not had_duration and training.get("tokens") == DEFAULT_TOKENS:
        training.pop("tokens", None)
        try:  # '3天' or '72h' as typed: said in days, the unit once ('采用已知的 3天 天训练' said it twice)
            days: Any = display(float(parse_duration(training["duration_days"], "days")))
        except (TypeError, ValueError):
            days = display(training["duration_days"])  # the answers' own check words the error
        return _("Using the known {days}-day run; the default {tokens} tokens were dropped.", days=days, tokens=DEFAULT_TOKENS)
    return None


def _currency_from_marks(draft: dict[str, Any], before: dict[str, Any]) -> str | None:
    """A price typed with its currency ('¥8', '8元') over the prefilled currency, which this step did not change, sets the
    currency: the English Q&A refused '¥8' ('written in CNY but currency is USD') where an answers file without a
    currency takes it (user try 2026-12-07). A currency typed on the step, or marks that disagree, are left to the answers'
    own check."""
    budget, was = draft.get("budget", {}), before.get("budget", {})
    if budget.get("currency") != was.get("currency"):
        return None
    codes = set()
    for key in ("price_per_gpu_hour", "limit", "monthly_limit"):
        if budget.get(key) == was.get(key):
            continue  # only what was typed on this step
        try:
            _amount, mark = split_money(strip_per_hour(budget.get(key)))
        except ValueError:
            continue
        if mark:
            codes.add(mark)
    if len(codes) != 1:
        return None
    code = codes.pop()
    if str(budget.get("currency") or "").upper() == code:
        return None
    budget["currency"] = code
    return _("Currency set to {code}: the amount is written in it.", code=code)


def draft_from(answers: Answers | None) -> dict[str, Any]:
    if answers is None:
        return default_draft()
    data = answers.model_dump(mode="json", exclude_none=True)
    return data


def get_value(draft: dict[str, Any], path: str) -> Any:
    """'section.key', or 'section.list.index.key' for one entry of a list (cluster.candidates.0.gpu)."""
    parts = path.split(".")
    section, key = parts[0], parts[1]
    value = draft.get(section, {}).get(key)
    if len(parts) == 4:
        index = int(parts[2])
        entry = value[index] if isinstance(value, list) and index < len(value) else None
        return entry.get(parts[3]) if isinstance(entry, dict) else None
    return value


def set_value(draft: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    section, key = parts[0], parts[1]
    sec = draft.setdefault(section, {})
    if len(parts) == 4:
        _set_in_list(sec, key, int(parts[2]), parts[3], value)
    elif value is None:
        sec.pop(key, None)
    else:
        sec[key] = value


def _set_in_list(sec: dict[str, Any], key: str, index: int, name: str, value: Any) -> None:
    """One key of one list entry: a new entry where there was none; an entry left empty goes, and so does an empty list."""
    entries = sec.get(key)
    entries = list(entries) if isinstance(entries, (list, tuple)) else []
    while len(entries) <= index:
        if value is None:
            return
        entries.append({})
    entry = dict(entries[index]) if isinstance(entries[index], dict) else {}
    if value is None:
        entry.pop(name, None)
    else:
        entry[name] = value
    entries[index] = entry
    while entries and entries[-1] == {}:
        entries.pop()
    if entries:
        sec[key] = entries
    else:
        sec.pop(key, None)


MAX_FIELD_CHARS = 64
"""What a field accepts; longer text (a stray paste) is refused with one line, never parsed."""


_PLAIN_AMOUNT = re.compile(r"^[+-]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?$")
"""An amount written as a bare number (2.5, 50000, 500,000): read; anything else is the answers model's to read."""


def coerce(field: Field, text: str) -> Any:
    """Turn what was typed into what the answers model expects; leave the model to judge it. A number field reads the
    text with the answers' own parser (units.parse_quantity: '1,024', '2k', '4M'); text it cannot read ('$3.5', '3d',
    'lots') is kept as typed, for the field's validator to read or refuse in its own words."""
    text = text.strip()
    if not text:
        return None
    if len(text) > MAX_FIELD_CHARS:
        return text  # the answers model refuses it in one line; nothing here parses it
    if field.number == "money":
        # an amount: a plain number is read; '5万', '¥10' or '20元/小时' is kept as typed, for the answers model to read
        # and for saved answers to keep (user try 9: '5万' was saved as 50000)
        return as_written(float(text.replace(",", ""))) if _PLAIN_AMOUNT.match(text) else text
    if field.number in ("int", "float"):
        try:
            value = parse_quantity(text)
        except ValueError:
            return text
        return int(value) if field.number == "int" and value.is_integer() else value
    return text


def from_config(draft: dict[str, Any], path: str) -> str | None:
    """What model.config gives a model field the draft leaves empty, as the question shows it ('20.9B', '48'), or None:
    the answers take it from the file, so the Q&A says so rather than show the field unanswered (user try 10)."""
    model = draft.get("model")
    section, _sep, key = path.partition(".")
    if section != "model" or not isinstance(model, dict) or not isinstance(model.get("config"), str) or model.get(key) is not None:
        return None
    from advisor.inputs.hfconfig import ConfigError, model_fields, read_config

    try:
        value = model_fields(read_config(model["config"]), model["config"]).get(key)
    except ConfigError:
        return None
    if value is None:
        return None
    if key in ("params", "active_params"):
        return f"{float(value) / 1e9:.3g}B"
    return display(value)


def config_name(draft: dict[str, Any]) -> str:
    """The config file's name as the Q&A quotes it (its last path part)."""
    cfg = (draft.get("model") or {}).get("config")
    return str(cfg).replace("\\", "/").rsplit("/", 1)[-1] if cfg else ""


def display(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def validate(draft: dict[str, Any]) -> tuple[Answers | None, list[dict[str, Any]]]:
    """Validate the whole draft; return the answers or the list of pydantic errors."""
    from pydantic import ValidationError

    from advisor.inputs.answers import Answers

    try:
        return Answers.model_validate(draft), []
    except ValidationError as exc:
        return None, [dict(e) for e in exc.errors(include_url=False)]


def _sized_on(draft: dict[str, Any]) -> str:
    """The step that owns 'give tokens or examples': a fine-tune without tokens gives its examples on the Advanced
    step, so only there is their absence an error (at step 2 it would block the way to them)."""
    training = draft.get("training", {})
    fine_tune_data_to_come = training.get("method") in FINE_TUNES and training.get("tokens") is None
    return "advanced" if fine_tune_data_to_come and training.get("duration_days") is None else "training"


def step_error(draft: dict[str, Any], step: Step) -> str | None:
    """The first validation problem that belongs to this step's fields, in the CLI's words."""
    from advisor.inputs.answers import Answers, _one, _pick, field_path

    _answers, errors = validate(draft)
    if not errors:
        return None
    mine = []
    paths = [f.path for f in step.fields]
    sections = {p.split(".")[0] for p in paths}
    for err in errors:
        loc = [str(p) for p in field_path(err["loc"])]
        dotted = ".".join(loc)
        if any(dotted == p or dotted.startswith(p + ".") for p in paths):
            mine.append(err)
        elif len(loc) <= 1 and loc and loc[0] in sections:
            mine.append(err)  # a section-level rule (e.g. gpus must be a multiple of gpus_per_node)
        elif not loc and step.id == _sized_on(draft):
            mine.append(err)  # tokens-or-duration is checked at the top level
    if not mine:
        return None
    first, _rest = _pick(mine)
    return on_screen(_one(first, Answers))


def _label_on_screen(path: str) -> str | None:
    """The label a field of this path reads on the guided Q&A, or None where no step shows it."""
    return next((f.label for step in steps() for f in step.fields if f.path == path), None)


def field_label(path: str) -> str:
    """The label a field reads on the guided Q&A ('GPU 总数' for cluster.gpus), a list's by its first item's field
    (cluster.candidates by cluster.candidates.0.gpu), or its key where no step shows it."""
    return _label_on_screen(path) or next((f.label for step in steps() for f in step.fields if f.path.startswith(path + ".")), path)


def on_screen(message: str) -> str:
    """An answers error in the Q&A's words: the keys of the section it names ('training: give tokens or examples, not
    both') as the fields' labels read on screen ('Training tokens', 'Fine-tuning examples'). A PM on the guided Q&A never
    saw the keys (user try 12: 'training: tokens 和 examples 只能给一个')."""
    dotted = re.match(r"^([a-z_]+(?:\.[a-z_]+)+)(: |：)", message)
    if dotted is not None:
        # 'cluster.gpus：必填' at step 4 (user try 13): the field's own label, where it has one on screen
        label = _label_on_screen(dotted.group(1))
        return message if label is None else _("'{label}'", label=label) + dotted.group(2) + message[dotted.end():]
    m = re.match(r"^([a-z_]+): (?!\S+\.)", message)
    if m is None:
        return message
    section = m.group(1)
    labels = {f.path.split(".", 1)[1]: f.label for step in steps() for f in step.fields
              if f.path.startswith(section + ".") and f.path.count(".") == 1}
    if not labels or any(k not in labels for k in re.findall(r"(?<![\w.])[a-z]+_[a-z_]+(?![\w.])", message[m.end():])):
        return message  # a key with no field on screen (duration_hours): the message stays in the answers' words whole
    rx = re.compile(r"(?<![\w.])(" + "|".join(re.escape(k) for k in sorted(labels, key=len, reverse=True)) + r")(?![\w.])")
    body = rx.sub(lambda k: _("'{label}'", label=labels[k.group(1)]), message[m.end():])
    return body[:1].upper() + body[1:] if body else message
