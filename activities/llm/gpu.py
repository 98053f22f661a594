"""GPU-aware local model tiers (seed 004 §4): read VRAM with NVML, pick a tier; never crash without a GPU."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel


class GpuInfo(BaseModel):
    index: int
    name: str
    vram_total_gb: float
    vram_free_gb: float


class LocalTier(BaseModel):
    name: str
    vram_range: tuple[float, float]
    recommended: dict[str, str]
    fallback: str
    max_context_tokens: int


# The seed's table (Ollama model names). Ranges are inclusive of the low bound; gaps between ranges fall to
# the largest tier whose low bound is <= VRAM.
DEFAULT_TIERS: list[LocalTier] = [
    LocalTier(name="tier_cpu", vram_range=(0, 6), fallback="tinyllama", max_context_tokens=4096,
              recommended={"writer": "phi3:mini", "auditor": "phi3:mini", "coder": "qwen2.5-coder:1.5b"}),
    LocalTier(name="tier_8gb", vram_range=(6, 10), fallback="phi3:mini", max_context_tokens=8192,
              recommended={"writer": "llama3.2:8b-instruct-q4_K_M", "auditor": "mistral:7b-instruct-q4_K_M",
                           "coder": "deepseek-coder:6.7b-instruct-q4_K_M"}),
    LocalTier(name="tier_16gb", vram_range=(12, 18), fallback="llama3.2:8b-instruct", max_context_tokens=32768,
              recommended={"writer": "llama3.1:13b-instruct-q4_K_M", "auditor": "llama3.1:13b-instruct-q4_K_M",
                           "coder": "deepseek-coder:33b-instruct-q4_K_M"}),
    LocalTier(name="tier_24gb", vram_range=(20, 26), fallback="llama3.1:13b-instruct", max_context_tokens=65536,
              recommended={"writer": "llama3.1:70b-instruct-q4_K_M", "auditor": "llama3.1:70b-instruct-q4_K_M",
                           "coder": "deepseek-coder:33b-instruct"}),
    LocalTier(name="tier_48gb", vram_range=(40, 100), fallback="llama3.1:70b-instruct-q4_K_M",
              max_context_tokens=131072,
              recommended={"writer": "llama3.1:70b-instruct", "auditor": "llama3.1:70b-instruct",
                           "coder": "deepseek-coder:33b-instruct"}),
]


@dataclass
class GpuReading:
    """What NVML said (or why it could not say anything)."""

    gpus: list[GpuInfo] = field(default_factory=list)
    error: str | None = None

    @property
    def best_vram_gb(self) -> float:
        return max((g.vram_total_gb for g in self.gpus), default=0.0)


def read_gpus() -> GpuReading:
    """Read every GPU's memory via NVML. No package, no driver or no GPU → an empty reading, never an error."""
    try:
        import pynvml  # provided by nvidia-ml-py
    except Exception as exc:  # pragma: no cover - dependency is declared
        return GpuReading(error=f"nvidia-ml-py not importable: {exc}")
    try:
        pynvml.nvmlInit()
    except Exception as exc:
        return GpuReading(error=f"no NVIDIA driver/GPU: {exc.__class__.__name__}")
    try:
        gpus = []
        for i in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(i)
            mem = pynvml.nvmlDeviceGetMemoryInfo(handle)
            name = pynvml.nvmlDeviceGetName(handle)
            gpus.append(GpuInfo(index=i, name=name.decode() if isinstance(name, bytes) else str(name),
                                vram_total_gb=round(mem.total / 1024**3, 1),
                                vram_free_gb=round(mem.free / 1024**3, 1)))
        return GpuReading(gpus=gpus)
    except Exception as exc:
        return GpuReading(error=f"NVML query failed: {exc}")
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass


def choose_tier(vram_gb: float, tiers: list[LocalTier] | None = None) -> LocalTier:
    """The tier for this much VRAM: the highest tier whose lower bound it reaches (CPU tier below 6 GB)."""
    tiers = sorted(tiers or DEFAULT_TIERS, key=lambda t: t.vram_range[0])
    chosen = tiers[0]
    for tier in tiers:
        if vram_gb >= tier.vram_range[0]:
            chosen = tier
    return chosen


def local_model_for(role: str, tier: LocalTier) -> str:
    """The tier's recommended model for a role (writer/auditor/coder); the tier's fallback otherwise."""
    return tier.recommended.get(role, tier.fallback)
