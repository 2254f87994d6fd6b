"""The GPU catalog and efficiency bands, shipped as data (src/advisor/data/*.yaml), not code."""

from functools import lru_cache
from typing import Any

from advisor.base.i18n import N_, _, zh
from pydantic import BaseModel, ConfigDict, Field, model_validator

from advisor.knowledge.gpurows import data_file, gpu_rows


DEFAULT_NETWORK_GBPS = 200.0
"""One HDR InfiniBand port, 200 Gb/s, per node (estimators-notes §9) where the GPU has no usual fabric on record."""

DEFAULT_NETWORK_SOURCE = N_("one 200 Gb/s HDR port per node, estimators-notes §9")
"""DEFAULT_NETWORK_GBPS's source in words: the memo's Links row and ask's machines line say the same (they had two
wordings, one never translated)."""


MEMORY_MIB_SOURCE = ("Modal, 'Why does an NVIDIA H100 80GB card offer 85.52 GB?' (thundergolfer.com/blog/nvidia-gpu-memory-capacity): "
                     "NVML totals H200 143,771 MiB, H100 81,559, A100 80GB 81,920, A100 40GB 40,960, A10 23,028, L40S 46,068, "
                     "L4 23,034; B200 183,359, RTX 4090 24,564 and H800 81,559 as nvidia-smi prints them in public logs; the A800, an "
                     "A100 80GB with only NVLink cut, the A100 80GB's 81,920; on the "
                     "H200 lent to issue 32, torch's total_memory was 150.1 GB (bench/measured/h200-2026-12-04.jsonl) against "
                     "the 141 the datasheet names")
"""Why capacity is not the datasheet figure: HBM stacks are sized in GiB and NVIDIA names them in GB (issue 32: NeMo's
Llama 2 70B SFT, published running at TP4 PP4 on 80 GB H100s, needs 80.9 GB by advisor's count — less than the 85.5 GB
the card has)."""

MEMORY_MIB_CITE = N_("nvidia-smi as Modal lists it, thundergolfer.com/blog/nvidia-gpu-memory-capacity, or as public logs print it")
"""The short citation the memo gives beside each GPU's usable memory (MEMORY_MIB_SOURCE has the figures)."""

FP8_GENERATIONS: tuple[str, ...] = ("hopper", "ada", "blackwell", "cdna3")
"""GPU generations with FP8 tensor cores (torchao float8 training needs compute capability 8.9+: Ada and later)."""


class GpuSpec(BaseModel):
    """One accelerator: the figures the estimate needs, with where they were read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="Catalog id, e.g. a100-80gb.")
    name: str = Field(description="Human-readable name.")
    generation: str = Field(description="Architecture family; selects the MFU band.")
    memory_gb: float = Field(gt=0, description="Device memory as the datasheet names it, GB.")
    memory_mib: int | None = Field(default=None, gt=0, description="Memory the driver reports (nvidia-smi's total, MiB), where "
                                   "published: HBM parts are sized in binary gigabytes, so an '80 GB' H100 holds 85.5 GB.")
    peak_tflops: float = Field(gt=0, description="Dense BF16/FP16 tensor peak, TFLOP/s.")
    hbm_gbs: float | None = Field(default=None, gt=0, description="Device memory bandwidth, GB/s, as the datasheet gives it: "
                                  "what memory-bound work (QLoRA's dequantisation) runs at. None where no source gives it.")
    hbm_source: str | None = Field(default=None, description="Where the memory bandwidth was read.")
    intra_node: str = Field(description="Default GPU-to-GPU link inside a node: nvlink, pcie, xgmi (AMD) or hccs (Huawei).")
    nvlink_gbs: float | None = Field(default=None, description="GPU-to-GPU link bandwidth, unidirectional GB/s.")
    pcie_gbs: float = Field(gt=0, description="Host (PCIe) bandwidth, unidirectional GB/s.")
    source: str = Field(description="Where the figures were read.")
    network_gbps: float | None = Field(default=None, gt=0, description="Usual network per node, Gbit/s (the default for cluster.inter_node_gbps).")
    network_source: str | None = Field(default=None, description="Where the usual network figure comes from.")
    network_source_zh: str | None = Field(default=None, description="The same in Chinese, for the Chinese memo (a Chinese "
                                          "memo quoted the English source as its reason; user try 15).")
    network_gbps_per_gpu: float | None = Field(default=None, gt=0, description="Where each GPU has its own NIC and a node's "
                                               "size varies (GB200 NVL72: 4 to 72 GPUs): the network per GPU, so a node of "
                                               "any size gets its GPUs' NICs (cluster.network_gbps).")
    aliases: tuple[str, ...] = Field(default=(), description="Other names people type for it (a800-sxm, 910b).")
    gpus_per_host: int | None = Field(default=None, gt=0, description="GPUs one host (one operating system) drives, where that is "
                                      "fewer than the NVLink domain: GB200 NVL72's compute tray has 4. None: the node is the host.")
    nvlink_domain: int | None = Field(default=None, gt=0, description="GPUs in one NVLink domain across hosts (GB200 NVL72: 72).")
    host_source: str | None = Field(default=None, description="Where the host shape comes from.")
    c2c_gbs: float | None = Field(default=None, gt=0, description="A coherent CPU-GPU link (Grace's NVLink-C2C), GB/s each way "
                                  "per GPU when every GPU uses it: where set, a pre-training plan may keep some layers' "
                                  "activations in the CPU's memory instead of recomputing them (model.OFFLOAD_MODES).")
    host_memory_gb_per_gpu: float | None = Field(default=None, gt=0, description="The CPU memory behind each GPU on such a link "
                                                 "(a Grace's LPDDR5X over its GPUs), GB: where offloaded activations go.")
    host_memory_gbs_per_gpu: float | None = Field(default=None, gt=0, description="That CPU memory's bandwidth per GPU, GB/s: "
                                                  "where ZeRO-Offload's CPU Adam step runs (communication.communication_plan); "
                                                  "None: a two-socket x86 host's (workload.HOST_MEMORY_BW).")
    c2c_source: str | None = Field(default=None, description="Where the chip-to-chip link and the CPU memory come from.")
    efficiency_band: str | None = Field(default=None, description="The MFU band (data/efficiency.yaml mfu) where this GPU's "
                                        "own published runs set one apart from its generation's (RTX 4090); None: its generation's.")

    @model_validator(mode="after")
    def _bandwidth_is_cited(self) -> "GpuSpec":
        if self.hbm_gbs is not None and not self.hbm_source:
            raise ValueError(f"{self.id}: hbm_gbs {self.hbm_gbs:g} has no hbm_source; add where the bandwidth was read")
        if (self.c2c_gbs is not None or self.host_memory_gb_per_gpu is not None or self.host_memory_gbs_per_gpu is not None) \
                and not self.c2c_source:
            raise ValueError(f"{self.id}: c2c_gbs / host_memory_gb_per_gpu(s) have no c2c_source; add where they were read")
        if (self.c2c_gbs is None) != (self.host_memory_gb_per_gpu is None):
            raise ValueError(f"{self.id}: c2c_gbs and host_memory_gb_per_gpu go together (the link and the memory behind it)")
        return self

    @property
    def band(self) -> str:
        """The efficiency band this GPU is priced at: its own where a run measured on it set one, else its generation's."""
        return self.efficiency_band or self.generation

    @property
    def has_fp8(self) -> bool:
        """FP8 tensor cores: Hopper, Ada and Blackwell (FP8 columns of the H100/H200/H800, L4/L40S and B200 datasheets,
        astroC86/gpu-datasheet README.md) and CDNA3 (AMD Instinct MI300X datasheet: 2,614.9 TFLOPS FP8 dense, twice its
        1,307.4 BF16; issue 32); Ampere, Volta and the others have none that PyTorch's float8 training uses."""
        return self.generation in FP8_GENERATIONS

    @property
    def capacity_gb(self) -> float:
        """What a training process can fill, in GB (10^9 bytes): the driver's total where the catalog has it (MEMORY_MIB_SOURCE),
        else the datasheet figure read as 10^9 bytes (the smaller reading; a custom GPU's memory_gb as given)."""
        return self.memory_mib * 2**20 / 1e9 if self.memory_mib else self.memory_gb

    @property
    def usual_network(self) -> bool:
        """A network on record for this GPU, per node or per GPU: without one, cluster.network_gbps is an assumption
        (DEFAULT_NETWORK_GBPS), and the memo and ask say so."""
        return bool(self.network_gbps or self.network_gbps_per_gpu)

    @property
    def network_source_words(self) -> str:
        """Where the default network comes from, in the reader's language: the GPU's fabric's source, else the assumed
        port's (DEFAULT_NETWORK_SOURCE)."""
        if self.usual_network and self.network_source:
            return self.network_source_zh if zh() and self.network_source_zh else self.network_source
        return _(DEFAULT_NETWORK_SOURCE)

    @property
    def default_network_gbps(self) -> float:
        """The GPU's usual fabric, or one 200 Gb/s HDR port per node where no source gives one."""
        return self.network_gbps or DEFAULT_NETWORK_GBPS


class MfuBand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    low: float
    mid: float
    high: float
    source: str


@lru_cache(maxsize=1)
def gpu_catalog() -> dict[str, GpuSpec]:
    """All catalog GPUs by id, in file order."""
    return {gid: GpuSpec(id=gid, **spec) for gid, spec in gpu_rows().items()}


@lru_cache(maxsize=1)
def efficiency_data() -> tuple[dict[str, MfuBand], dict[str, Any]]:
    """(MFU bands by generation, link efficiencies with their source)."""
    raw = data_file("efficiency.yaml")
    return {gen: MfuBand(**band) for gen, band in raw["mfu"].items()}, raw["link_efficiency"]


def _norm(name: str) -> str:
    return "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())


@lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    out: dict[str, str] = {}
    for gid, spec in gpu_catalog().items():
        for name in (gid, *spec.aliases):
            out[_norm(name)] = gid
            out[_norm(name).replace("-", "")] = gid
    return out


def resolve_gpu(name: str) -> str | None:
    """The catalog id for what a person typed — 'A800', 'H800', '910B', 'a100_80gb', 'Ascend 910B' — or None."""
    key = _norm(name)
    return _names().get(key) or _names().get(key.replace("-", ""))


def mfu_band(band: str) -> MfuBand:
    """The band by key: a GPU's own (GpuSpec.band) or a generation's; an unknown generation gets the Ampere band."""
    bands, _ = efficiency_data()
    return bands.get(band, bands["ampere"])


@lru_cache(maxsize=1)
def _hidden_scaling() -> dict[str, Any]:
    return dict(data_file("efficiency.yaml")["hidden_scaling"])


def kernel_scale(hidden: float) -> float:
    """How much more of its band a model of this hidden size reaches than one of the reference width (1 at the
    reference): (hidden / reference) ** exponent, clipped (data/efficiency.yaml hidden_scaling, with its source)."""
    hs = _hidden_scaling()
    scale = (max(float(hidden), 1.0) / float(hs["reference"])) ** float(hs["exponent"])
    return float(min(max(scale, float(hs["min"])), float(hs["max"])))
