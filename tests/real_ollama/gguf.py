"""What a GGUF file says of itself: its metadata and parameter count, read from its header.

Read here in pure Python (the header holds typed key-value pairs, then each tensor's
name and shape): asking llama.cpp instead means loading the file, vocab-only, which makes
a context that warns "n_ctx_seq (512) > n_ctx_train (0)" on every probe.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

__all__ = ["GgufError", "GgufInfo", "read_gguf"]

# GGUF value types: struct formats of the fixed-size ones; 8 is a string, 9 an array.
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q",
            12: "d"}  # fmt: skip
_STRING, _ARRAY = 8, 9
# llama.cpp's `general.file_type` (enum llama_ftype), named as Ollama names quantizations.
_FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
    23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S",
    29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0",
}  # fmt: skip


class GgufError(ValueError):
    """The file is not a GGUF file this reader understands."""


@dataclass(frozen=True)
class GgufInfo:
    """A GGUF file's own description.

    Attributes:
        path: The file.
        metadata: Its key-value pairs; arrays (the vocabulary...) are left out.
        parameters: Its parameter count (the sum of its tensors' sizes).
    """

    path: Path
    metadata: dict[str, Any]
    parameters: int

    @property
    def family(self) -> str:
        """The architecture (``llama``, ``gemma3``...), Ollama's "family"."""
        return str(self.metadata.get("general.architecture", "unknown"))

    @property
    def context_length(self) -> int:
        """The context it was trained for (0 if the file does not say)."""
        return int(self.metadata.get(f"{self.family}.context_length", 0))

    @property
    def quantization(self) -> str:
        """The file type, as Ollama's ``quantization_level`` says it (``Q4_K_M``...)."""
        kind = self.metadata.get("general.file_type")
        return _FILE_TYPES.get(kind, "unknown") if isinstance(kind, int) else "unknown"

    @property
    def parameter_size(self) -> str:
        """The parameter count as Ollama writes it: ``134.52M``, ``8.0B``."""
        for unit, scale in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
            if self.parameters >= scale:
                number = self.parameters / scale
                if number == math.floor(number):
                    return f"{number:.0f}{unit}"
                return f"{number:.1f}{unit}" if unit == "B" else f"{number:.2f}{unit}"
        return str(self.parameters)

    @property
    def chat_template(self) -> str:
        """Its chat template (Jinja2), or "" for a model without one (a base model)."""
        return str(self.metadata.get("tokenizer.chat_template") or "")


def read_gguf(path: Path) -> GgufInfo:
    """Read ``path``'s header (not its weights).

    Raises:
        GgufError: the file is not GGUF (version 2 or 3), or is cut short.
        OSError: it can't be read.
    """
    with path.open("rb") as file:
        try:
            if file.read(4) != b"GGUF":
                raise GgufError(f"{path} is not a GGUF file (it does not start with 'GGUF')")
            version, tensors, pairs = _unpack(file, "<IQQ")
            if version not in (2, 3):
                raise GgufError(f"{path} is GGUF version {version}; this reads 2 and 3")
            metadata = {}
            for _ in range(pairs):
                key = _string(file)
                value = _value(file, _unpack(file, "<I")[0])
                if value is not _SKIPPED:
                    metadata[key] = value
            parameters = sum(_tensor_size(file) for _ in range(tensors))
        except (struct.error, UnicodeDecodeError) as exc:
            raise GgufError(f"{path} is not a readable GGUF file ({exc})") from exc
    return GgufInfo(path, metadata, parameters)


_SKIPPED = object()


def _unpack(file: BinaryIO, fmt: str) -> tuple[Any, ...]:
    return struct.unpack(fmt, file.read(struct.calcsize(fmt)))


def _string(file: BinaryIO) -> str:
    (length,) = _unpack(file, "<Q")
    return file.read(length).decode("utf-8")


def _value(file: BinaryIO, kind: int) -> Any:
    if kind in _SCALARS:
        return _unpack(file, "<" + _SCALARS[kind])[0]
    if kind == _STRING:
        return _string(file)
    if kind == _ARRAY:
        item, count = _unpack(file, "<IQ")
        if item in _SCALARS:  # skipped whole: a vocabulary's scores are 100k+ numbers
            file.seek(count * struct.calcsize(_SCALARS[item]), 1)
        else:
            for _ in range(count):
                _value(file, item)
        return _SKIPPED
    raise GgufError(f"unknown GGUF value type {kind}")


def _tensor_size(file: BinaryIO) -> int:
    _string(file)  # its name
    (dims,) = _unpack(file, "<I")
    shape = _unpack(file, f"<{dims}Q")
    _unpack(file, "<IQ")  # its type and offset
    return math.prod(shape)
